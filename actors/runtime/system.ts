/**
 * ActorSystem: the registry of actor kinds and live actors, message routing,
 * the idle sweep and graceful shutdown. Per-actor ordering and lifecycle live
 * in ActorCell; this file only decides which cell a message goes to and when
 * cells should be passivated.
 */
import { ActorCell, type AnyActorDefinition, type CellHost } from "./actor-cell.ts";
import { consoleLogger, safeLog } from "./logger.ts";
import {
  ActorError,
  ActorStoppedError,
  UnknownActorKindError,
  type ActorDefinition,
  type ActorLogger,
  type ActorSystemOptions,
  type AskOptions,
  type ShutdownOptions,
} from "./types.ts";

const DEFAULT_IDLE_MS = 60_000;
const DEFAULT_ASK_TIMEOUT_MS = 10_000;
const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;
/** setTimeout fires larger delays immediately, so anything beyond counts as "no timeout". */
const MAX_TIMER_MS = 2_147_483_647;

interface KindEntry {
  readonly def: AnyActorDefinition;
  /** Live cells by actor id; a per-kind map avoids building "kind:id" strings on every message. */
  readonly cells: Map<string, ActorCell>;
}

/** Cells still busy when shutdown began, and how to end the wait once none are left. */
interface DrainWait {
  readonly busy: Set<ActorCell>;
  readonly finish: () => void;
}

export class ActorSystem {
  private readonly kinds = new Map<string, KindEntry>();
  private readonly idleMs: number;
  /** 0 means asks wait forever and no timer is armed. */
  private readonly askTimeoutMs: number;
  private readonly logger: ActorLogger;
  private readonly host: CellHost;
  private readonly sweepTimer: ReturnType<typeof setInterval> | undefined;
  private sweepRunning = false;
  /** Shutdown has begun: refuse new messages. */
  private stopping = false;
  /** Draining is over: every cell that goes quiet from now on is passivated at once. */
  private finalizing = false;
  private drainWait: DrainWait | undefined;
  private shutdownPromise: Promise<void> | undefined;

  constructor(opts: ActorSystemOptions = {}) {
    this.idleMs = nonNegative("idleMs", opts.idleMs ?? DEFAULT_IDLE_MS);
    this.askTimeoutMs = timerMs("askTimeoutMs", opts.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS);
    this.logger = opts.logger ?? consoleLogger;
    // A separate object keeps the cell callbacks out of the public API.
    this.host = {
      logger: this.logger,
      onQuiescent: (cell) => this.cellQuiescent(cell),
      onRemoved: (cell) => this.cellRemoved(cell),
    };
    if (this.idleMs !== Infinity) {
      const intervalMs = opts.sweepIntervalMs ?? Math.min(Math.max(this.idleMs / 2, 1_000), 30_000);
      if (!(intervalMs > 0 && intervalMs <= MAX_TIMER_MS)) {
        throw new RangeError(`sweepIntervalMs must be a positive number of milliseconds (got ${intervalMs})`);
      }
      this.sweepTimer = setInterval(() => this.sweep(), intervalMs);
      // The sweep is housekeeping: it must never be the reason the process stays up.
      this.sweepTimer.unref();
    }
  }

  /** Adds an actor kind. Throws if the kind is already registered or the system is stopping. */
  register<S, M, R>(def: ActorDefinition<S, M, R>): void {
    if (this.stopping) throw new ActorStoppedError(`cannot register "${def.kind}": actor system is stopping`);
    if (typeof def.kind !== "string" || def.kind === "") {
      throw new TypeError("actor definition needs a non-empty kind");
    }
    if (this.kinds.has(def.kind)) {
      throw new ActorError(`actor kind "${def.kind}" is already registered`, { kind: def.kind });
    }
    this.kinds.set(def.kind, { def: def as AnyActorDefinition, cells: new Map() });
  }

  /**
   * Sends a message and resolves with the handler's return value. A handler's
   * own error rejects the promise as-is; runtime failures are ActorError
   * subclasses. A handler must not ask its own actor: that waits behind itself
   * until the ask times out.
   */
  ask<R = unknown>(kind: string, id: string, msg: unknown, opts?: AskOptions): Promise<R> {
    let timeoutMs = this.askTimeoutMs;
    if (opts?.timeoutMs !== undefined) {
      try {
        timeoutMs = timerMs("timeoutMs", opts.timeoutMs);
      } catch (err) {
        return Promise.reject(err);
      }
    }
    const cell = this.cellFor(kind, id);
    if (cell instanceof ActorError) return Promise.reject(cell);
    return cell.ask(msg, timeoutMs) as Promise<R>;
  }

  /**
   * A read-only message: answered at once by the definition's shared `read` handler when the
   * actor is in memory and can answer from it, otherwise handled like `ask`. A `read` that
   * throws rejects the returned promise.
   */
  read<R = unknown>(kind: string, id: string, msg: unknown, opts?: AskOptions): Promise<R> {
    const cell = this.kinds.get(kind)?.cells.get(id);
    if (cell !== undefined && !this.stopping) {
      try {
        const value = cell.tryRead(msg);
        if (value !== undefined) return Promise.resolve(value as R);
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return this.ask<R>(kind, id, msg, opts);
  }

  /**
   * Runs a message at once when its actor is in memory and idle (see ActorCell.runNow);
   * undefined when it cannot, and nothing ran: the caller then asks as usual. Never
   * activates an actor.
   */
  runNow(kind: string, id: string, msg: unknown): { value: unknown } | undefined {
    if (this.stopping) return undefined;
    return this.kinds.get(kind)?.cells.get(id)?.runNow(msg);
  }


  /** Sends a message without waiting. Nothing is thrown or returned: every failure is logged at error level. */
  tell(kind: string, id: string, msg: unknown): void {
    const cell = this.cellFor(kind, id);
    if (cell instanceof ActorError) {
      safeLog(this.logger, "error", { err: cell, kind, id }, "actor tell rejected");
      return;
    }
    cell.tell(msg);
  }

  /** Actors held in memory, including ones mid-activation or mid-passivation. */
  activeCount(kind?: string): number {
    if (kind !== undefined) return this.kinds.get(kind)?.cells.size ?? 0;
    let count = 0;
    for (const entry of this.kinds.values()) count += entry.cells.size;
    return count;
  }

  /** Whether this actor is held in memory (including mid-activation or mid-passivation). */
  isActive(kind: string, id: string): boolean {
    return this.kinds.get(kind)?.cells.has(id) ?? false;
  }

  /** Messages waiting for their turn (not the ones running), summed over actors. O(actors): meant for metrics. */
  queueDepth(kind?: string): number {
    let depth = 0;
    for (const [name, entry] of this.kinds) {
      if (kind !== undefined && name !== kind) continue;
      for (const cell of entry.cells.values()) depth += cell.inbox.length;
    }
    return depth;
  }

  /**
   * Runs one idle sweep as of `now`: passivates every actor that has been idle
   * for at least idleMs and whose canPassivate allows it. Resolves, once their
   * passivate hooks have finished, with how many were passivated.
   */
  async passivateIdle(now: number = Date.now()): Promise<number> {
    if (this.stopping) return 0; // shutdown passivates everything itself
    const passivations: Promise<void>[] = [];
    for (const entry of this.kinds.values()) {
      for (const cell of entry.cells.values()) {
        // passivate() flips the cell to "passivating" synchronously, so no message can slip in between.
        if (cell.isIdleFor(now, this.idleMs)) passivations.push(cell.passivate());
      }
    }
    await Promise.all(passivations);
    return passivations.length;
  }

  /**
   * Passivates, whatever canPassivate says, every quiescent actor for which `matches` holds
   * (a placement handing those actors to another node). Resolves with how many matching
   * actors were busy and left alone; call again once they are quiet.
   */
  async passivateMatching(matches: (kind: string, id: string) => boolean): Promise<number> {
    const passivations: Promise<void>[] = [];
    let busy = 0;
    for (const [kind, entry] of this.kinds) {
      for (const cell of entry.cells.values()) {
        if (!matches(kind, cell.id)) continue;
        if (cell.isQuiescent()) passivations.push(cell.passivate());
        else busy++;
      }
    }
    await Promise.all(passivations);
    return busy;
  }

  /**
   * Stops accepting messages, lets queued ones finish (up to drainTimeoutMs,
   * after which they reject with ActorStoppedError), then passivates every
   * actor. Idempotent: later calls return the first call's promise.
   *
   * An actor whose handler is still running when the drain times out cannot be
   * interrupted; it is passivated as soon as that handler ends, but shutdown
   * does not wait for it (a hung handler must not hang the process).
   */
  shutdown(opts: ShutdownOptions = {}): Promise<void> {
    if (this.shutdownPromise === undefined) {
      let drainTimeoutMs: number;
      try {
        drainTimeoutMs = nonNegative("drainTimeoutMs", opts.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
      } catch (err) {
        return Promise.reject(err);
      }
      this.stopping = true;
      if (this.sweepTimer !== undefined) clearInterval(this.sweepTimer);
      this.shutdownPromise = this.stop(drainTimeoutMs);
    }
    return this.shutdownPromise;
  }

  private cellFor(kind: string, id: string): ActorCell | ActorError {
    if (this.stopping) {
      return new ActorStoppedError(`actor system is stopping; message to ${kind}/${id} not accepted`, { kind, id });
    }
    const entry = this.kinds.get(kind);
    if (entry === undefined) return new UnknownActorKindError(kind);
    let cell = entry.cells.get(id);
    if (cell === undefined) {
      // Registered before the message is queued, so concurrent first messages share one activation.
      cell = new ActorCell(entry.def, id, this.host);
      entry.cells.set(id, cell);
    }
    return cell;
  }

  private sweep(): void {
    // A slow passivate hook must not let sweeps pile up on top of each other.
    if (this.sweepRunning) return;
    this.sweepRunning = true;
    this.passivateIdle()
      .catch((err: unknown) => safeLog(this.logger, "error", { err }, "actor idle sweep failed"))
      .finally(() => {
        this.sweepRunning = false;
      });
  }

  private async stop(drainTimeoutMs: number): Promise<void> {
    await this.waitForDrain(drainTimeoutMs);
    this.finalizing = true;
    const passivations: Promise<void>[] = [];
    let stillBusy = 0;
    for (const entry of this.kinds.values()) {
      for (const cell of entry.cells.values()) {
        if (cell.isQuiescent()) {
          passivations.push(cell.passivate());
          continue;
        }
        // Drain timed out for this one: whatever is still waiting will never run.
        stillBusy++;
        const { kind, id } = cell;
        cell.failQueued(
          () => new ActorStoppedError(`actor system stopped before ${kind}/${id} processed the message`, { kind, id }),
        );
      }
    }
    if (stillBusy > 0) {
      safeLog(
        this.logger,
        "warn",
        { actors: stillBusy, drainTimeoutMs },
        "actor shutdown drain timed out; queued messages rejected, busy actors passivate when they finish",
      );
    }
    await Promise.all(passivations);
  }

  /** Resolves once every actor is quiescent or gone, or after timeoutMs. */
  private waitForDrain(timeoutMs: number): Promise<void> {
    const busy = new Set<ActorCell>();
    for (const entry of this.kinds.values()) {
      for (const cell of entry.cells.values()) if (!cell.isQuiescent()) busy.add(cell);
    }
    if (busy.size === 0) return Promise.resolve();
    // New messages are refused from now on, so the busy set can only shrink:
    // cells report in as they go quiet instead of being polled.
    return new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        this.drainWait = undefined;
        resolve();
      };
      if (timeoutMs <= MAX_TIMER_MS) timer = setTimeout(finish, timeoutMs);
      this.drainWait = { busy, finish };
    });
  }

  private cellQuiescent(cell: ActorCell): void {
    if (!this.stopping) return;
    if (this.finalizing) void cell.passivate();
    else this.leaveDrain(cell);
  }

  private cellRemoved(cell: ActorCell): void {
    const cells = this.kinds.get(cell.kind)?.cells;
    if (cells?.get(cell.id) === cell) cells.delete(cell.id);
    if (this.drainWait !== undefined) this.leaveDrain(cell);
  }

  private leaveDrain(cell: ActorCell): void {
    const wait = this.drainWait;
    if (wait !== undefined && wait.busy.delete(cell) && wait.busy.size === 0) wait.finish();
  }
}

function nonNegative(name: string, value: number): number {
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative number of milliseconds (got ${String(value)})`);
  }
  return value;
}

/** Normalises a timeout: 0 = no timer, including for Infinity and delays setTimeout cannot represent. */
function timerMs(name: string, value: number): number {
  const ms = nonNegative(name, value);
  return ms > MAX_TIMER_MS ? 0 : ms;
}
