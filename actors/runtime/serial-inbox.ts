/**
 * The per-actor message queue and the envelope each message travels in.
 *
 * The queue is an intrusive doubly-linked list: the envelope is the node, so
 * enqueue/dequeue allocate nothing extra, never shift() an array, and an ask
 * that times out while still waiting can unlink itself in O(1). That keeps a
 * backlog of abandoned asks from holding memory or inflating queueDepth.
 */
import { deadlineList, type DeadlineList, type Deadlined } from "./deadlines.ts";
import { safeLog } from "./logger.ts";
import type { ActorLogger } from "./types.ts";
import { ActorTimeoutError } from "./types.ts";

/** Waiting in an inbox. Invariant: an envelope is linked into its inbox iff it is QUEUED. */
const QUEUED = 0;
/** Taken by the message loop; the handler is running and its caller waits for its outcome. */
const RUNNING = 1;
/** Its outcome is decided (replied, failed, or dropped before it ran); later outcomes are dropped. */
const SETTLED = 2;
type Phase = typeof QUEUED | typeof RUNNING | typeof SETTLED;

/** What an envelope needs from the actor it was sent to. */
export interface EnvelopeOwner {
  readonly kind: string;
  readonly id: string;
  readonly inbox: SerialInbox;
  readonly logger: ActorLogger;
}


export class Envelope implements Deadlined {
  prev: Envelope | null = null;
  next: Envelope | null = null;
  phase: Phase = QUEUED;
  deadline = 0;
  dprev: Deadlined | null = null;
  dnext: Deadlined | null = null;
  dlist: DeadlineList | null = null;
  private timeoutMs = 0;
  /** Both null for a tell: nobody awaits it, so failures are logged instead. */
  resolve: ((value: unknown) => void) | null = null;
  reject: ((reason: unknown) => void) | null = null;

  constructor(
    readonly owner: EnvelopeOwner,
    readonly msg: unknown,
  ) {}

  /** Arms the ask timeout (the deadline to start) on the shared deadline list for this timeout value. */
  armTimeout(timeoutMs: number): void {
    this.timeoutMs = timeoutMs;
    deadlineList(timeoutMs).arm(this);
  }

  onDeadline(): void {
    expire(this, this.timeoutMs);
  }

  /**
   * Called by the message loop right before the handler runs; false if it must be skipped.
   * The deadline is disarmed here: a handler cannot be interrupted, so once it runs its
   * outcome is the only true answer, and a timeout reported now could name as failed a
   * write that then commits.
   */
  begin(): boolean {
    if (this.phase !== QUEUED) return false;
    this.dlist?.disarm(this);
    this.phase = RUNNING;
    return true;
  }

  succeed(value: unknown): void {
    this.dlist?.disarm(this);
    if (this.phase === SETTLED) return; // defensive: settled envelopes never run
    this.phase = SETTLED;
    if (this.resolve !== null) this.resolve(value);
  }

  fail(err: unknown): void {
    this.dlist?.disarm(this);
    const { owner } = this;
    if (this.phase === SETTLED) {
      // Defensive: a settled envelope never runs, but a failure is still news to an operator.
      safeLog(owner.logger, "warn", { err }, "actor message failed after it was settled");
      return;
    }
    this.phase = SETTLED;
    if (this.reject !== null) this.reject(err);
    else safeLog(owner.logger, "error", { err }, "actor tell failed");
  }
}

/** Timer callback for an ask that did not start in time: it leaves the inbox and never runs. */
function expire(env: Envelope, timeoutMs: number): void {
  // Only a queued envelope is armed (begin() disarms), so this is belt and braces.
  if (env.phase !== QUEUED) return;
  env.owner.inbox.remove(env);
  env.phase = SETTLED;
  env.reject?.(new ActorTimeoutError(env.owner.kind, env.owner.id, timeoutMs));
}

/** FIFO of envelopes waiting for one actor. Not thread-safe, and needs not be: JS is single-threaded. */
export class SerialInbox {
  private head: Envelope | null = null;
  private tail: Envelope | null = null;
  private count = 0;

  /** Messages waiting, not counting the one being handled. */
  get length(): number {
    return this.count;
  }

  push(env: Envelope): void {
    env.prev = this.tail;
    env.next = null;
    if (this.tail === null) this.head = env;
    else this.tail.next = env;
    this.tail = env;
    this.count++;
  }

  /** The next envelope, left in place. */
  peek(): Envelope | null {
    return this.head;
  }

  shift(): Envelope | null {
    const env = this.head;
    if (env === null) return null;
    this.head = env.next;
    if (this.head === null) this.tail = null;
    else this.head.prev = null;
    env.next = null;
    this.count--;
    return env;
  }

  remove(env: Envelope): void {
    // Guard against an envelope that is no longer linked (double removal).
    if (env.prev === null && this.head !== env) return;
    if (env.prev === null) this.head = env.next;
    else env.prev.next = env.next;
    if (env.next === null) this.tail = env.prev;
    else env.next.prev = env.prev;
    env.prev = null;
    env.next = null;
    this.count--;
  }

  /** Empties the inbox, failing every waiting message with the error `makeError` builds for it. */
  failAll(makeError: () => unknown): void {
    let env = this.shift();
    while (env !== null) {
      env.fail(makeError());
      env = this.shift();
    }
  }
}
