/**
 * A small pool of Bun Workers that run CPU-heavy calls off the event loop, each with a time
 * budget: a call that overruns it has its worker terminated and replaced, so hostile input
 * costs one thread for the budget, never the node. Used by the MIME parser (src/mail/parse)
 * and the local intelligence engine (src/intel/worker-engine.ts); the worker side is
 * `serveWorker` in ./serve.ts.
 *
 * A call never rejects; it resolves with the worker's value or a failure:
 *   timeout   the call overran `timeoutMs` (counted from when a worker takes it, not while queued)
 *   failed    the handler threw, or the worker died, failed to start or could not be reached
 *   closed    close() was called before the call finished, or run() after it
 */
import type { WorkerPriority, WorkerReply, WorkerRequest } from "./serve.ts";
import { workerNice } from "./thread-priority.ts";

export interface WorkerPoolOptions {
  /** The worker's module; it calls serveWorker. */
  url: URL;
  /** Threads, started on demand. */
  workers: number;
  /** Time budget of one call in milliseconds. */
  timeoutMs: number;
  /**
   * Threads beyond `workers` for a pool held up by slow calls: while a call has waited
   * `afterMs` in the queue, up to `spare.workers` more threads take calls. Without them, the
   * calls behind a slow one wait for up to its whole budget; with them, a pool can be sized for
   * ordinary calls and still keep mail moving past a slow one.
   */
  spare?: { workers: number; afterMs: number };
  /**
   * Calls one thread runs at a time (default 1). More only for calls that mostly wait (DNS)
   * and whose CPU is bounded: a call that overruns its budget terminates its thread, and the
   * calls sharing that thread end as `failed` with it.
   */
  concurrency?: number;
}

export type PoolOutcome<R> = { ok: true; value: R } | { ok: false; kind: "timeout" | "failed" | "closed"; message: string };

/** A worker that has not said "ready" by then is taken for broken. */
const BOOT_TIMEOUT_MS = 15_000;
/** close() waits this long at most for terminated workers to report closed. */
const CLOSE_WAIT_MS = 2000;

interface Job<Q, R> {
  id: number;
  input: Q;
  /** performance.now() when it was queued. */
  queuedAt: number;
  transfer: Bun.Transferable[];
  resolve: (outcome: PoolOutcome<R>) => void;
}

interface Slot<Q, R> {
  worker: Worker;
  ready: boolean;
  /** The calls it runs, each with its budget's timer. */
  jobs: Map<number, { job: Job<Q, R>; timer: ReturnType<typeof setTimeout> }>;
  /** Until the worker says "ready". */
  bootTimer: ReturnType<typeof setTimeout> | null;
  closed: Promise<void>;
}

const failed = (kind: "timeout" | "failed" | "closed", message: string) => ({ ok: false, kind, message }) as const;

export class WorkerPool<Q, R> {
  readonly #url: URL;
  readonly #workers: number;
  readonly #timeoutMs: number;
  readonly #spare: { workers: number; afterMs: number };
  readonly #concurrency: number;
  /** Pumps the queue when its head will have waited `spare.afterMs`. */
  #spillTimer: ReturnType<typeof setTimeout> | null = null;
  readonly #queue: Job<Q, R>[] = [];
  readonly #slots: Slot<Q, R>[] = [];
  #nextId = 1;
  #closed = false;

  constructor(opts: WorkerPoolOptions) {
    if (!Number.isFinite(opts.workers) || opts.workers <= 0) throw new RangeError("WorkerPool: workers must be a positive number");
    if (!Number.isFinite(opts.timeoutMs) || opts.timeoutMs <= 0) throw new RangeError("WorkerPool: timeoutMs must be a positive number");
    this.#url = opts.url;
    this.#workers = Math.max(1, Math.floor(opts.workers));
    this.#timeoutMs = opts.timeoutMs;
    const spare = opts.spare ?? { workers: 0, afterMs: 0 };
    if (!Number.isInteger(spare.workers) || spare.workers < 0 || !Number.isFinite(spare.afterMs) || spare.afterMs < 0) {
      throw new RangeError("WorkerPool: spare needs a whole number of workers and a wait of 0 ms or more");
    }
    this.#spare = spare;
    const concurrency = opts.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError("WorkerPool: concurrency must be a whole number of 1 or more");
    this.#concurrency = concurrency;
  }

  /** Runs one call; `transfer` lists buffers of `input` to move rather than copy. */
  run(input: Q, transfer: Bun.Transferable[] = []): Promise<PoolOutcome<R>> {
    if (this.#closed) return Promise.resolve(failed("closed", "the pool is closed"));
    return new Promise((resolve) => {
      this.#queue.push({ id: this.#nextId++, input, transfer, resolve, queuedAt: performance.now() });
      this.#pump();
    });
  }

  /** Terminates the workers; calls still queued or running resolve as "closed". */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#spillTimer) clearTimeout(this.#spillTimer);
    this.#spillTimer = null;
    for (const job of this.#queue.splice(0)) job.resolve(failed("closed", "the pool is closed"));
    const slots = this.#slots.splice(0);
    for (const slot of slots) {
      this.#settle(slot, failed("closed", "the pool is closed"));
      slot.worker.terminate();
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const gaveUp = new Promise<void>((r) => (timer = setTimeout(r, CLOSE_WAIT_MS)));
    await Promise.race([Promise.all(slots.map((s) => s.closed)), gaveUp]);
    clearTimeout(timer);
  }

  /**
   * Hands queued jobs to idle ready workers, starting workers up to the pool size: `workers`
   * calls at a time, and up to `spare.workers` more while the oldest queued call has waited
   * `spare.afterMs`. The first idle thread in start order takes a call, so an ordinary load
   * stays on the same threads (their code compiled and in cache).
   */
  #pump(): void {
    if (this.#closed) return;
    while (this.#queue.length > 0) {
      // A thread already running calls takes more up to `concurrency`; an idle one only while
      // fewer threads than the limit are busy.
      const room = this.#busyThreads() < this.#limit();
      const slot = this.#slots.find((s) => s.ready && s.jobs.size < this.#concurrency && (s.jobs.size > 0 || room));
      if (!slot) break;
      this.#dispatch(slot, this.#queue.shift()!);
    }
    const busy = this.#busyThreads();
    const limit = this.#limit();
    const starting = this.#slots.filter((s) => !s.ready).length;
    while (this.#queue.length > starting * this.#concurrency && this.#slots.length < limit && busy + starting < limit) this.#spawn();
    this.#armSpill(busy);
  }

  #busyThreads(): number {
    let busy = 0;
    for (const s of this.#slots) if (s.jobs.size > 0) busy++;
    return busy;
  }

  /** How many calls may run now: `workers`, and the spares while the queue's head has waited long enough. */
  #limit(): number {
    const head = this.#queue[0];
    const spill = this.#spare.workers > 0 && head !== undefined && performance.now() - head.queuedAt >= this.#spare.afterMs;
    return this.#workers + (spill ? this.#spare.workers : 0);
  }

  /** While calls wait behind busy workers, pump again when the oldest will have waited long enough to spill. */
  #armSpill(busy: number): void {
    const head = this.#queue[0];
    if (this.#spillTimer || !head || this.#spare.workers === 0 || busy >= this.#workers + this.#spare.workers) return;
    const wait = head.queuedAt + this.#spare.afterMs - performance.now();
    if (wait <= 0) return;
    this.#spillTimer = setTimeout(() => {
      this.#spillTimer = null;
      this.#pump();
    }, Math.ceil(wait));
    // A waiting call is held by the calls it waits behind, whose budget timers keep the process alive.
    this.#spillTimer.unref();
  }

  #dispatch(slot: Slot<Q, R>, job: Job<Q, R>): void {
    const timer = setTimeout(() => this.#kill(slot, failed("timeout", `the call overran its budget of ${this.#timeoutMs} ms`), job.id), this.#timeoutMs);
    slot.jobs.set(job.id, { job, timer });
    try {
      slot.worker.postMessage({ id: job.id, input: job.input } satisfies WorkerRequest<Q>, job.transfer);
    } catch (err) {
      this.#kill(slot, failed("failed", `could not send the call to a worker: ${String(err)}`), job.id);
    }
  }

  #spawn(): void {
    const worker = new Worker(this.#url);
    // Idle threads must not keep the process alive; a running call holds its timer.
    worker.unref();
    // Messages arrive in order, so the thread is niced before its first call.
    const nice = workerNice();
    if (nice > 0) worker.postMessage({ nice } satisfies WorkerPriority);
    let onClose!: () => void;
    const slot: Slot<Q, R> = { worker, ready: false, jobs: new Map(), bootTimer: null, closed: new Promise((r) => (onClose = r)) };
    slot.bootTimer = setTimeout(() => this.#kill(slot, failed("failed", "worker did not start")), BOOT_TIMEOUT_MS);
    this.#slots.push(slot);

    worker.addEventListener("message", (event: MessageEvent<WorkerReply<R>>) => {
      if (!this.#slots.includes(slot)) return; // a late message from a worker already dropped
      const msg = event.data;
      if (msg.type === "ready") {
        clearTimeout(slot.bootTimer!);
        slot.bootTimer = null;
        slot.ready = true;
      } else {
        const running = slot.jobs.get(msg.id);
        if (running) {
          clearTimeout(running.timer);
          slot.jobs.delete(msg.id);
          running.job.resolve(msg.ok ? { ok: true, value: msg.value } : failed("failed", msg.error));
        }
      }
      this.#pump();
    });
    worker.addEventListener("error", (event: ErrorEvent) => {
      this.#kill(slot, failed("failed", `worker failed: ${event.message || "unknown error"}`));
    });
    worker.addEventListener("messageerror", () => {
      this.#kill(slot, failed("failed", "worker reply could not be read"));
    });
    worker.addEventListener("close", () => {
      onClose();
      this.#kill(slot, failed("failed", "worker exited"));
    });
  }

  /**
   * Drops a worker, failing the calls it runs: `outcome` for the call `culprit` (all of them
   * when none is named), a failure for the calls that shared its thread. A worker that dies
   * while starting takes the oldest queued job with it, so a worker that can never start fails
   * calls instead of leaving them queued for ever, and is not respawned in a tight loop.
   */
  #kill(slot: Slot<Q, R>, outcome: PoolOutcome<R>, culprit?: number): void {
    const at = this.#slots.indexOf(slot);
    if (at < 0) return;
    this.#slots.splice(at, 1);
    const bootFailure = !slot.ready;
    this.#settle(slot, outcome, culprit);
    slot.worker.terminate();
    if (bootFailure) this.#queue.shift()?.resolve(outcome);
    // Replace it at once so the pool stays warm; #pump starts one only if work is waiting.
    if (!this.#closed && !bootFailure && this.#slots.length < this.#workers) this.#spawn();
    this.#pump();
  }

  #settle(slot: Slot<Q, R>, outcome: PoolOutcome<R>, culprit?: number): void {
    if (slot.bootTimer) clearTimeout(slot.bootTimer);
    slot.bootTimer = null;
    const running = [...slot.jobs.values()];
    slot.jobs.clear();
    const bystander = culprit === undefined || outcome.ok ? outcome : failed("failed", `its worker was stopped: ${outcome.message}`);
    for (const { job, timer } of running) {
      clearTimeout(timer);
      job.resolve(job.id === culprit ? outcome : bystander);
    }
  }
}
