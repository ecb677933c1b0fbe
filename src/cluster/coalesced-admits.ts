/**
 * The calls of one key made on this node while an earlier call of it is on its way to the
 * mailbox's owner travel together: they wait for the end of their turn of the event loop and
 * go as one `admitMany`, instead of an `admit` each. Under load a node reads many requests of a
 * hot key (an agent polling hard, a fleet sharing one key) in each turn; forwarded one by one,
 * each was a command for the owner to decode, remember (ask memory), run and answer, and a
 * promise on both sides: most of what a read of another node's mailbox cost the two nodes
 * (bench/cluster-cpu.ts). A call of a key with nothing on its way is asked for at once, so a
 * lone call waits for nothing; a call never waits for an earlier call's answer either, only
 * for the end of its own turn.
 *
 * Exact: the owner counts an `admitMany` of n as n `admit`s in a row, at once, and each call
 * is answered with its own place in that row (the first `granted` admitted, each with the
 * calls left after it; the rest refused). Nothing is admitted ahead of a call that waits for
 * it, so a node never holds calls it might not use. A failed ask fails every call in it.
 */
import { MAX_ADMITS, type ManyAdmitted } from "../../actors/mailbox/admission.ts";
import type { RateDecision } from "../domain/rate-limit.ts";

export interface AdmitsOwner {
  admitMany(mailboxId: string, keyId: string, count: number): Promise<ManyAdmitted>;
}

interface Waiting {
  resolve(decision: RateDecision): void;
  reject(err: unknown): void;
}

interface Queue {
  /** `${mailboxId} ${keyId}`: its place in `queues`. */
  id: string;
  mailboxId: string;
  keyId: string;
  /** Asks of this key on their way. */
  asking: number;
  /** Calls waiting for the end of this turn. */
  waiting: Waiting[];
}

export class CoalescedAdmits {
  /** Keys with an ask on its way or calls waiting, by mailbox and key. */
  private readonly queues = new Map<string, Queue>();
  /** Keys with calls waiting for the end of this turn. */
  private turn: Queue[] = [];

  constructor(private readonly owner: AdmitsOwner) {}

  /** One call of `keyId` on `mailboxId` (lower-case), as `admit` answers it. */
  admit(mailboxId: string, keyId: string): Promise<RateDecision> {
    const id = `${mailboxId} ${keyId}`;
    let queue = this.queues.get(id);
    if (queue === undefined) {
      queue = { id, mailboxId, keyId, asking: 0, waiting: [] };
      this.queues.set(id, queue);
    }
    const q = queue;
    return new Promise<RateDecision>((resolve, reject) => {
      if (q.asking === 0 && q.waiting.length === 0) return this.ask(q, [{ resolve, reject }]);
      if (q.waiting.push({ resolve, reject }) > 1) return;
      if (this.turn.push(q) === 1) setImmediate(this.endTurn);
    });
  }

  /** Keys with an ask on its way or calls waiting (tests). */
  get pending(): number {
    return this.queues.size;
  }

  private readonly endTurn = (): void => {
    const turn = this.turn;
    this.turn = [];
    for (const queue of turn) {
      const calls = queue.waiting;
      queue.waiting = [];
      for (let from = 0; from < calls.length; from += MAX_ADMITS) this.ask(queue, calls.slice(from, from + MAX_ADMITS));
    }
  };

  private ask(queue: Queue, calls: Waiting[]): void {
    queue.asking++;
    const settled = () => {
      if (--queue.asking === 0 && queue.waiting.length === 0) this.queues.delete(queue.id);
    };
    this.owner.admitMany(queue.mailboxId, queue.keyId, calls.length).then(
      (answer) => {
        settled();
        for (let i = 0; i < calls.length; i++) {
          // The i-th of the row saw the calls after it still left in the window.
          const allowed = i < answer.granted;
          calls[i]!.resolve({ allowed, limit: answer.limit, remaining: allowed ? answer.remaining + (answer.granted - 1 - i) : 0, resetInMs: answer.resetInMs });
        }
      },
      (err) => {
        settled();
        for (const call of calls) call.reject(err);
      },
    );
  }
}
