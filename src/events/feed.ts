import type { Logger } from "../log.ts";

/** The channel the outbox trigger notifies on every event insert; the payload is the mailbox id. */
export const EVENTS_CHANNEL = "mailroom_events";

/** `Database.listen`: LISTEN on a channel, resolving to an unsubscribe. */
export type Listen = (channel: string, onNotify: (payload: string) => void) => Promise<() => Promise<void>>;

interface Subscriber {
  wake(): void;
  close(): void;
}

/**
 * One LISTEN per process on `mailroom_events`, fanned out in memory to the open event streams
 * of each mailbox. A wake is only a hint that something committed; streams read what is new
 * from the outbox themselves (and poll as well, in case a notification is lost, e.g. while
 * the listening connection reconnects).
 *
 * `stop()` closes every open stream (so that `server.stop` can finish) and refuses new ones.
 */
export class EventFeed {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private readonly everyEvent = new Set<() => void>();
  private unlisten: (() => Promise<void>) | undefined;
  private state: "new" | "running" | "stopped" = "new";

  constructor(
    private readonly listen: Listen,
    private readonly log?: Logger,
  ) {}

  /** Subscribes to the channel. A failure is logged, not thrown: streams then rely on polling. */
  async start(): Promise<void> {
    if (this.state !== "new") return;
    this.state = "running";
    try {
      const unlisten = await this.listen(EVENTS_CHANNEL, (payload) => this.notify(payload));
      if (this.stopped) await unlisten(); // stopped while subscribing
      else this.unlisten = unlisten;
    } catch (err) {
      this.log?.warn({ err }, "could not LISTEN for event notifications; event streams fall back to polling");
    }
  }

  get stopped(): boolean {
    return this.state === "stopped";
  }

  /** How many streams are open (all mailboxes). */
  get size(): number {
    let n = 0;
    for (const set of this.subscribers.values()) n += set.size;
    return n;
  }

  /**
   * Calls `wake` whenever an event of `mailboxId` commits, and `onClose` once if the feed stops
   * first. Answers the unsubscribe. On a stopped feed `onClose` runs at once.
   */
  subscribe(mailboxId: string, wake: () => void, onClose: () => void = () => {}): () => void {
    if (this.state === "stopped") {
      onClose();
      return () => {};
    }
    const key = mailboxId.toLowerCase();
    const subscriber: Subscriber = { wake, close: onClose };
    let set = this.subscribers.get(key);
    if (!set) this.subscribers.set(key, (set = new Set()));
    set.add(subscriber);
    return () => {
      const current = this.subscribers.get(key);
      if (!current?.delete(subscriber)) return;
      if (current.size === 0) this.subscribers.delete(key);
    };
  }

  /** Calls `wake` on every event of any mailbox (the webhook relay); answers the unsubscribe. */
  onEveryEvent(wake: () => void): () => void {
    this.everyEvent.add(wake);
    return () => void this.everyEvent.delete(wake);
  }

  /** Wakes the streams of one mailbox (what a notification does), and the every-event listeners. */
  notify(mailboxId: string): void {
    for (const wake of this.everyEvent) {
      try {
        wake();
      } catch (err) {
        this.log?.warn({ err }, "event listener failed");
      }
    }
    const set = this.subscribers.get(mailboxId.trim().toLowerCase());
    if (!set) return;
    for (const s of [...set]) {
      try {
        s.wake();
      } catch (err) {
        this.log?.warn({ err, mailboxId }, "event stream wake failed");
      }
    }
  }

  /** Closes every open stream, refuses new ones and stops listening. Safe to call twice. */
  async stop(): Promise<void> {
    if (this.state === "stopped") return;
    this.state = "stopped";
    const all = [...this.subscribers.values()].flatMap((set) => [...set]);
    this.subscribers.clear();
    this.everyEvent.clear();
    for (const s of all) {
      try {
        s.close();
      } catch (err) {
        this.log?.warn({ err }, "event stream close failed");
      }
    }
    const unlisten = this.unlisten;
    this.unlisten = undefined;
    if (unlisten) await unlisten().catch((err: unknown) => this.log?.warn({ err }, "could not UNLISTEN event notifications"));
  }
}
