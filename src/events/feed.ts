import type { Logger } from "../log.ts";

/** The channel the outbox trigger notifies on every event insert; the payload is the mailbox id. */
export const EVENTS_CHANNEL = "mailroom_events";
/**
 * The channel the outbox trigger notifies when a transaction wrote an event that some webhook
 * endpoint subscribes to (migration 0019); the others are done as they are written.
 */
export const RELAY_CHANNEL = "mailroom_relay";

/** `Database.listen`: LISTEN on a channel, resolving to an unsubscribe. */
export type Listen = (channel: string, onNotify: (payload: string) => void) => Promise<() => Promise<void>>;

interface Subscriber {
  wake(): void;
  close(): void;
}

/**
 * One LISTEN per process on `mailroom_events`, fanned out in memory to the open event streams
 * of each mailbox, and one on `mailroom_relay` for the webhook relay. A wake is only a hint
 * that something committed; streams and the relay read what is new from the outbox themselves
 * (and poll as well, in case a notification is lost, e.g. while the listening connection
 * reconnects).
 *
 * `stop()` closes every open stream (so that `server.stop` can finish) and refuses new ones.
 */
export class EventFeed {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private readonly relayWork = new Set<() => void>();
  private readonly shared = new Map<string, { value: unknown; users: number }>();
  private unlisten: (() => Promise<void>)[] = [];
  private state: "new" | "running" | "stopped" = "new";

  constructor(
    private readonly listen: Listen,
    private readonly log?: Logger,
    /** Open streams one mailbox may have on this node (EVENT_STREAMS_PER_MAILBOX). */
    readonly streamsPerMailbox = Infinity,
  ) {}

  /** Subscribes to the channel. A failure is logged, not thrown: streams then rely on polling. */
  async start(): Promise<void> {
    if (this.state !== "new") return;
    this.state = "running";
    const channels: [string, (payload: string) => void][] = [
      [EVENTS_CHANNEL, (payload) => this.notify(payload)],
      [RELAY_CHANNEL, () => this.notifyRelay()],
    ];
    for (const [channel, onNotify] of channels) {
      try {
        const unlisten = await this.listen(channel, onNotify);
        if (this.stopped) await unlisten(); // stopped while subscribing
        else this.unlisten.push(unlisten);
      } catch (err) {
        this.log?.warn({ err, channel }, "could not LISTEN for event notifications; event streams and the relay fall back to polling");
      }
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

  /** Whether the mailbox has as many open streams on this node as it may. */
  full(mailboxId: string): boolean {
    return (this.subscribers.get(mailboxId.toLowerCase())?.size ?? 0) >= this.streamsPerMailbox;
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

  /**
   * What the open streams of one mailbox share on this node (their reads: tail.ts): made for
   * the first that asks, dropped when the last lets go.
   */
  share<T>(mailboxId: string, make: () => T): { value: T; release(): void } {
    const key = mailboxId.toLowerCase();
    let entry = this.shared.get(key);
    if (!entry) this.shared.set(key, (entry = { value: make(), users: 0 }));
    entry.users++;
    const held = entry;
    let released = false;
    return {
      value: held.value as T,
      release: () => {
        if (released) return;
        released = true;
        if (--held.users === 0 && this.shared.get(key) === held) this.shared.delete(key);
      },
    };
  }

  /** How many mailboxes have shared state (for tests). */
  get sharedCount(): number {
    return this.shared.size;
  }

  /** Calls `wake` whenever events that a webhook endpoint wants commit (the relay); answers the unsubscribe. */
  onRelayWork(wake: () => void): () => void {
    this.relayWork.add(wake);
    return () => void this.relayWork.delete(wake);
  }

  /** Wakes the relay listeners (what a `mailroom_relay` notification does). */
  notifyRelay(): void {
    for (const wake of this.relayWork) {
      try {
        wake();
      } catch (err) {
        this.log?.warn({ err }, "relay listener failed");
      }
    }
  }

  /** Wakes the streams of one mailbox (what a `mailroom_events` notification does). */
  notify(mailboxId: string): void {
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
    this.relayWork.clear();
    for (const s of all) {
      try {
        s.close();
      } catch (err) {
        this.log?.warn({ err }, "event stream close failed");
      }
    }
    const unlisten = this.unlisten;
    this.unlisten = [];
    for (const u of unlisten) await u().catch((err: unknown) => this.log?.warn({ err }, "could not UNLISTEN event notifications"));
  }
}
