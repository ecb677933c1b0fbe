/**
 * Public contracts of the actor runtime: what an actor kind provides, what the
 * runtime hands back, and the typed errors callers map to HTTP answers.
 * Nothing in here has behaviour beyond constructing errors.
 */

/** The subset of pino we use, so the runtime never depends on a logging library. */
export interface ActorLogger {
  debug(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * One kind of actor (e.g. "mailbox"). The runtime keeps at most one live
 * instance per (kind, id) and feeds it messages strictly one at a time, so
 * `handle` may read-modify-write `state` without locks.
 */
export interface ActorDefinition<State, Msg, Reply = unknown> {
  /** Unique name of this kind, used to route messages. */
  kind: string;
  /** Loads the actor's state; called on the first message after the actor was not in memory. */
  activate(id: string): Promise<State>;
  /** Processes one message. Never called concurrently for the same id. */
  handle(state: State, msg: Msg, ctx: ActorContext): Promise<Reply> | Reply;
  /**
   * A shared (read-only) handler: answers from the state in memory at once, without queueing
   * behind other messages, when the actor is active. It must not change state or await;
   * returning undefined means "I cannot answer from memory" and the message is handled by
   * `handle` in turn instead. A read running while a `handle` awaits sees the state as it was
   * before that write finished, which is what a read ordered before it would have seen.
   */
  read?(state: State, msg: Msg): Reply | undefined;
  /**
   * Group commit: messages with the same batch key may be handled together. When such a
   * message reaches the head of the inbox, it and the messages of the same key queued right
   * behind it (up to `maxBatch`, order kept) go to `handleBatch` in one call, which answers
   * each with its own outcome. Still one handler at a time: a batch is one turn of the actor.
   * If it throws, each message of the batch is handed to it again alone, so a message whose
   * data fails the batch fails alone (the call must have no effect when it throws: one
   * transaction).
   */
  batchKey?(msg: Msg): string | undefined;
  handleBatch?(state: State, msgs: Msg[], ctx: ActorContext): Promise<BatchOutcome<Reply>[]>;
  /** Largest batch handed to `handleBatch` (default 64). */
  maxBatch?: number;
  /**
   * Batched messages of different keys commute (their order among themselves does not matter):
   * a batch then also takes the messages of its key queued behind other keys' batched messages,
   * up to the first message that is not batched, which stays a barrier nothing passes. Without
   * it, interleaved keys (a b a b) make batches of one.
   */
  batchesCommute?: boolean;
  /** Flushes or releases state; called when the actor has been idle long enough, and on shutdown. */
  passivate?(id: string, state: State): Promise<void> | void;
  /**
   * Return false to keep an idle actor in memory (e.g. it still holds live rate
   * windows that would be lost). Re-checked on the next idle sweep; ignored on shutdown.
   */
  canPassivate?(state: State, now: number): boolean;
}

/** The outcome of one message of a batch, in the order the messages were given. */
export type BatchOutcome<Reply> = { ok: true; value: Reply } | { ok: false; error: unknown };

/** Per-actor information handed to `handle`; the logger already carries kind and id. */
export interface ActorContext {
  id: string;
  kind: string;
  logger: ActorLogger;
}

export interface AskOptions {
  /**
   * Milliseconds the message may wait in the inbox before its handler starts; overrides the
   * system default. Past it the message is dropped unrun (ActorTimeoutError). Once started,
   * the caller gets the handler's own outcome however long it takes: a handler cannot be
   * interrupted, so a timeout then could report as failed a write that commits.
   * 0 or Infinity disables the timeout (no timer is armed at all).
   */
  timeoutMs?: number;
}

export interface ActorSystemOptions {
  /** An actor with no running or queued message for this long is passivated. Default 60_000; Infinity disables passivation. */
  idleMs?: number;
  /** Default `ask` timeout (the deadline to start, see AskOptions). Default 10_000; 0 or Infinity disables it. */
  askTimeoutMs?: number;
  /** Default: warn/error to the console, debug dropped. */
  logger?: ActorLogger;
  /** How often the idle sweep runs. Default: half of idleMs, clamped to [1s, 30s]. */
  sweepIntervalMs?: number;
}

export interface ShutdownOptions {
  /** How long to wait for queued messages to be processed before rejecting them. Default 10_000. */
  drainTimeoutMs?: number;
}

// ---------------------------------------------------------------------------
// Errors. Each carries the (kind, id) it concerns, when there is one, so the
// caller can log or map it without parsing the message.
// ---------------------------------------------------------------------------

export interface ActorErrorOptions {
  kind?: string;
  id?: string;
  cause?: unknown;
}

/** Base of every error the runtime itself raises. Errors thrown by handlers are passed through untouched. */
export class ActorError extends Error {
  readonly kind: string | undefined;
  readonly id: string | undefined;

  constructor(message: string, options: ActorErrorOptions = {}) {
    super(message, "cause" in options ? { cause: options.cause } : undefined);
    // Set explicitly rather than via constructor.name, which bundlers may mangle.
    this.name = "ActorError";
    this.kind = options.kind;
    this.id = options.id;
  }
}

/**
 * An `ask` did not start within its timeout: the message was taken out of the inbox and its
 * handler never ran, so nothing it would have done happened and the caller may send it again.
 */
export class ActorTimeoutError extends ActorError {
  readonly timeoutMs: number;

  constructor(kind: string, id: string, timeoutMs: number) {
    super(`ask to ${kind}/${id} did not start within ${timeoutMs}ms; it was dropped unrun`, { kind, id });
    this.name = "ActorTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/** The system is shutting down or stopped, so the message was not (or will not be) processed. */
export class ActorStoppedError extends ActorError {
  constructor(message = "actor system is stopped", options: ActorErrorOptions = {}) {
    super(message, options);
    this.name = "ActorStoppedError";
  }
}

/** No definition was registered for the requested kind. */
export class UnknownActorKindError extends ActorError {
  constructor(kind: string) {
    super(`unknown actor kind "${kind}"`, { kind });
    this.name = "UnknownActorKindError";
  }
}

/** The kind's `activate` threw; `cause` is the original error. */
export class ActorActivationError extends ActorError {
  constructor(kind: string, id: string, cause: unknown) {
    super(`activation of ${kind}/${id} failed`, { kind, id, cause });
    this.name = "ActorActivationError";
  }
}
