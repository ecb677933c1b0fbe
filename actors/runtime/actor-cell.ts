/**
 * One live actor: its state, its inbox and the lifecycle that guarantees
 * handlers run one at a time, in arrival order, and never against state that
 * is not (or no longer) loaded.
 *
 *   new ──1st message──▶ activating ──ok──▶ active ──idle / shutdown──▶ passivating
 *                          │     ▲                                          │
 *                          │     └────────── messages arrived meanwhile ────┤
 *                          │                                                ▼
 *                          └──activate() threw──▶ removed ◀──── nothing waiting
 *
 * The cell stays registered while passivating, so a message that arrives then
 * queues behind the passivation and triggers a fresh activation instead of
 * running against released state or starting a second copy of the actor.
 */
import { ActorScopedLogger, safeLog } from "./logger.ts";
import { Envelope, SerialInbox, type EnvelopeOwner } from "./serial-inbox.ts";
import { ActorActivationError, type ActorContext, type ActorDefinition, type ActorLogger } from "./types.ts";

// Method syntax in ActorDefinition makes any concrete definition assignable here.
export type AnyActorDefinition = ActorDefinition<unknown, unknown, unknown>;

/** What a cell reports to the system that owns it. */
export interface CellHost {
  readonly logger: ActorLogger;
  /** The cell is active with nothing running or queued. */
  onQuiescent(cell: ActorCell): void;
  /** The cell left memory (passivated with nothing waiting, or activation failed). */
  onRemoved(cell: ActorCell): void;
}

type Status = "new" | "activating" | "active" | "passivating" | "removed";

export class ActorCell implements EnvelopeOwner {
  readonly kind: string;
  readonly inbox = new SerialInbox();
  readonly logger: ActorLogger;
  private readonly ctx: ActorContext;
  private status: Status = "new";
  private state: unknown = undefined;
  /** A message loop is scheduled or running; at most one exists per cell. */
  private looping = false;
  private lastActiveAt = 0;
  /** Created once per cell, so scheduling a loop needs no new closure. */
  private readonly runLoop: () => void;

  constructor(
    private readonly def: AnyActorDefinition,
    readonly id: string,
    private readonly host: CellHost,
  ) {
    this.kind = def.kind;
    this.logger = new ActorScopedLogger(host.logger, def.kind, id);
    this.ctx = { id, kind: def.kind, logger: this.logger };
    this.runLoop = () => {
      this.loop().catch((err: unknown) => {
        // Unreachable unless a host callback throws; never let it become an unhandled rejection.
        this.looping = false;
        safeLog(this.logger, "error", { err }, "actor message loop crashed");
      });
    };
  }

  /** Queues a message whose reply (or error) the caller awaits. `timeoutMs` 0 means no timeout. */
  ask(msg: unknown, timeoutMs: number): Promise<unknown> {
    const env = new Envelope(this, msg);
    const reply = new Promise<unknown>((resolve, reject) => {
      env.resolve = resolve;
      env.reject = reject;
    });
    if (timeoutMs > 0) env.armTimeout(timeoutMs);
    this.enqueue(env);
    return reply;
  }

  /**
   * Answers through the definition's shared `read` handler when the actor is active and the
   * handler can; undefined otherwise (the caller then asks). Counts as activity.
   */
  tryRead(msg: unknown): unknown {
    if (this.status !== "active" || this.def.read === undefined) return undefined;
    const value = this.def.read(this.state, msg);
    if (value !== undefined) this.lastActiveAt = Date.now();
    return value;
  }

  /**
   * Runs a message at once, on the caller's stack, when the actor is active with nothing
   * running or waiting: the turn it would get from the inbox anyway, without the envelope,
   * the promise and the microtask of `ask`. `{ value }` is the handler's reply (a promise
   * when the handler awaits, and the actor stays busy until it settles); a handler's
   * synchronous error is thrown. undefined: it cannot run now, and nothing ran (the caller asks).
   */
  runNow(msg: unknown): { value: unknown } | undefined {
    if (this.status !== "active" || this.looping || this.inbox.length > 0) return undefined;
    this.looping = true;
    let reply: unknown;
    try {
      reply = this.def.handle(this.state, msg, this.ctx);
    } catch (err) {
      this.endTurn();
      throw err;
    }
    if (!isThenable(reply)) {
      this.endTurn();
      return { value: reply };
    }
    const settled = Promise.resolve(reply);
    settled.then(this.endTurnNow, this.endTurnNow);
    return { value: settled };
  }

  private readonly endTurnNow = (): void => this.endTurn();

  /** A turn taken by runNow is over: what queued meanwhile runs next, else the actor is quiet. */
  private endTurn(): void {
    if (this.inbox.length > 0) {
      // `looping` stays set: the loop takes over the turn.
      queueMicrotask(this.runLoop);
      return;
    }
    this.looping = false;
    this.lastActiveAt = Date.now();
    this.host.onQuiescent(this);
  }

  /** Queues a message nobody awaits; its failure is logged by the envelope. */
  tell(msg: unknown): void {
    this.enqueue(new Envelope(this, msg));
  }

  /** Active with nothing running or waiting: the only state in which passivation may start. */
  isQuiescent(): boolean {
    return this.status === "active" && !this.looping && this.inbox.length === 0;
  }

  /** Whether the idle sweep should passivate this actor now. */
  isIdleFor(now: number, idleMs: number): boolean {
    if (!this.isQuiescent() || now - this.lastActiveAt < idleMs) return false;
    if (this.def.canPassivate === undefined) return true;
    try {
      return this.def.canPassivate(this.state, now) !== false;
    } catch (err) {
      // Keeping an actor too long costs memory; dropping it early may lose state. Prefer memory.
      safeLog(this.logger, "error", { err }, "actor canPassivate threw; keeping it in memory");
      return false;
    }
  }

  /** Fails every waiting message (the running one, if any, is left to finish). */
  failQueued(makeError: () => unknown): void {
    this.inbox.failAll(makeError);
  }

  /**
   * Releases the state. Callers must check isQuiescent() first; a cell that is
   * not quiescent is left alone so passivate never overlaps a handler.
   */
  async passivate(): Promise<void> {
    if (!this.isQuiescent()) return;
    this.status = "passivating";
    const state = this.state;
    if (this.def.passivate !== undefined) {
      try {
        await this.def.passivate(this.id, state);
      } catch (err) {
        // There is nobody to hand this to; the state is dropped either way so the actor cannot wedge.
        safeLog(this.logger, "error", { err }, "actor passivation failed; state dropped");
      }
    }
    this.state = undefined;
    if (this.inbox.length > 0) {
      void this.activate();
    } else {
      this.status = "removed";
      this.host.onRemoved(this);
    }
  }

  private enqueue(env: Envelope): void {
    this.inbox.push(env);
    if (this.status === "active") {
      if (!this.looping) this.schedule();
    } else if (this.status === "new") {
      // Activation starts only once the first message is queued: if activate()
      // throws synchronously, that message is failed with it instead of stranded.
      void this.activate();
    }
  }

  private schedule(): void {
    this.looping = true;
    // A microtask rather than a direct call, so a handler never runs on its sender's stack.
    queueMicrotask(this.runLoop);
  }

  private async activate(): Promise<void> {
    this.status = "activating";
    let state: unknown;
    try {
      state = await this.def.activate(this.id);
    } catch (err) {
      this.status = "removed";
      // Unregister before failing the waiters so a retry from their handlers starts a fresh cell.
      this.host.onRemoved(this);
      safeLog(this.logger, "warn", { err }, "actor activation failed");
      this.inbox.failAll(() => new ActorActivationError(this.kind, this.id, err));
      return;
    }
    this.state = state;
    this.status = "active";
    this.lastActiveAt = Date.now();
    if (this.inbox.length > 0) this.schedule();
    else this.host.onQuiescent(this);
  }

  private async loop(): Promise<void> {
    const { def, inbox, ctx } = this;
    for (let env = inbox.shift(); env !== null; env = inbox.shift()) {
      if (!env.begin()) continue; // settled while waiting (defensive: timed-out asks unlink themselves)
      const key = def.handleBatch ? def.batchKey?.(env.msg) : undefined;
      if (key !== undefined) {
        await this.runBatch(env, key);
        continue;
      }
      try {
        let reply = def.handle(this.state, env.msg, ctx);
        // Only await real thenables: an await on a plain value still costs a microtask turn.
        if (isThenable(reply)) reply = await reply;
        env.succeed(reply);
      } catch (err) {
        env.fail(err);
      }
    }
    this.looping = false;
    this.lastActiveAt = Date.now();
    this.host.onQuiescent(this);
  }

  /** Takes `first` and the messages of the same batch key queued right behind it, and handles them in one call. */
  private async runBatch(first: Envelope, key: string): Promise<void> {
    const { def, inbox } = this;
    const batch = [first];
    const max = def.maxBatch ?? 64;
    if (def.batchesCommute) {
      // Past other keys' batched messages (they commute with these), never past an unbatched one.
      for (let next = inbox.peek(); next !== null && batch.length < max; ) {
        const nextKey = def.batchKey!(next.msg);
        if (nextKey === undefined) break;
        const after = next.next;
        if (nextKey === key) {
          inbox.remove(next);
          if (next.begin()) batch.push(next);
        }
        next = after;
      }
    }
    while (batch.length < max) {
      const next = inbox.peek();
      if (next === null || def.batchKey!(next.msg) !== key) break;
      inbox.shift();
      if (next.begin()) batch.push(next);
    }
    try {
      await this.handleBatch(batch);
    } catch (err) {
      if (batch.length === 1) return batch[0]!.fail(err);
      // One message's data can fail the whole batch (its transaction): each alone then, so only that one fails.
      for (const e of batch) await this.handleBatch([e]).catch((alone) => e.fail(alone));
    }
  }

  private async handleBatch(batch: Envelope[]): Promise<void> {
    const outcomes = await this.def.handleBatch!(this.state, batch.map((e) => e.msg), this.ctx);
    batch.forEach((e, i) => {
      const o = outcomes[i];
      if (o === undefined) e.fail(new Error("handleBatch returned no outcome for a message"));
      else if (o.ok) e.succeed(o.value);
      else e.fail(o.error);
    });
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  if (value instanceof Promise) return true;
  return (
    value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
