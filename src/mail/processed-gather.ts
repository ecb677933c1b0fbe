/**
 * Processing results of one mailbox, handed to its actor together.
 *
 * The actor commits the results queued behind one another in one transaction (a batched
 * command), and a transaction costs the same seven statements (begin, the row locks, the
 * attachment records, the senders, the jobs' completions, the events, the commit) whether it
 * carries one message or ten. Under a steady stream of mail to one mailbox the results come
 * from the parser threads one at a time, a few milliseconds apart, and the actor, done with
 * the last one, takes each on its own: 1.4 messages a transaction in the ingest bench. So a
 * result waits here, at most LINGER_MS, for the others of its mailbox that are being
 * processed now. A result whose mailbox has nothing else in progress goes at once: a lone
 * message, or the last of a burst, waits for nothing.
 *
 * Nothing waiting here is lost in a crash: the job is done only when the actor's transaction
 * commits, and a job not done runs again. A stopping service waits for its running jobs, and
 * so for the timer, before it stops the actors.
 */
import type { MailboxArgs } from "../../actors/mailbox/client.ts";

/** What processing hands the mailbox's actor for one message. */
export type ProcessedUpdate = MailboxArgs<"applyProcessed">[0];

/** How long a result waits for others of its mailbox at most. */
export const LINGER_MS = 20;
/** At most this many results go at once (the actor's batches are capped at 64). */
export const MAX_HELD = 32;

export type ApplyProcessed = (mailboxId: string, update: ProcessedUpdate) => Promise<unknown>;

interface Mailbox {
  /** Jobs of the mailbox begun here whose result is not handed in yet. */
  running: number;
  held: { update: ProcessedUpdate; resolve: (value: unknown) => void; reject: (err: unknown) => void }[];
  timer: ReturnType<typeof setTimeout> | null;
}

/** One job's part: `apply` its result, or `release` it without one (either ends it; later calls do nothing). */
export interface GatherSlot {
  apply(update: ProcessedUpdate): Promise<unknown>;
  release(): void;
}

export class ProcessedGather {
  private readonly mailboxes = new Map<string, Mailbox>();

  constructor(
    private readonly send: ApplyProcessed,
    private readonly lingerMs = LINGER_MS,
  ) {}

  /** A job of `mailboxId` began: results of the mailbox may wait for its result. */
  begin(mailboxId: string): GatherSlot {
    const box = this.mailboxes.get(mailboxId) ?? this.open(mailboxId);
    box.running++;
    let open = true;
    const end = () => {
      if (!open) return false;
      open = false;
      box.running--;
      return true;
    };
    return {
      apply: (update) => {
        if (!end()) return this.send(mailboxId, update);
        const handed = new Promise<unknown>((resolve, reject) => box.held.push({ update, resolve, reject }));
        this.settle(mailboxId, box);
        return handed;
      },
      release: () => {
        if (end()) this.settle(mailboxId, box);
      },
    };
  }

  private open(mailboxId: string): Mailbox {
    const box: Mailbox = { running: 0, held: [], timer: null };
    this.mailboxes.set(mailboxId, box);
    return box;
  }

  /** Sends what is held when nothing else of the mailbox is coming, or enough is held; else waits for the timer. */
  private settle(mailboxId: string, box: Mailbox): void {
    if (box.running === 0 || box.held.length >= MAX_HELD) this.flush(mailboxId, box);
    else if (box.held.length > 0 && box.timer === null) box.timer = setTimeout(() => this.flush(mailboxId, box), this.lingerMs);
  }

  /** All held results sent in one turn of the event loop, so that they reach the actor as one batch. */
  private flush(mailboxId: string, box: Mailbox): void {
    if (box.timer !== null) clearTimeout(box.timer);
    box.timer = null;
    const held = box.held;
    box.held = [];
    for (const h of held) {
      let sent: Promise<unknown>;
      try {
        sent = this.send(mailboxId, h.update);
      } catch (err) {
        sent = Promise.reject(err); // its job fails and is retried; the others still go
      }
      sent.then(h.resolve, h.reject);
    }
    if (box.running === 0 && box.held.length === 0) this.mailboxes.delete(mailboxId);
  }
}
