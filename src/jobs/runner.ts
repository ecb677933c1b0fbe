import { and, asc, eq, inArray, isNull, lte, or, sql, lt } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { Compiled, slot } from "../../db/compiled.ts";
import { outbox, type OutboxRow } from "../../db/schema/index.ts";
import type { Logger } from "../log.ts";
import { isPermanent, reasonOf, type JobResult } from "./failure.ts";
import type { JobKind } from "./outbox.ts";
import { PokeLoop } from "./poke-loop.ts";

/**
 * Runs one attempt. Returning is done (or `{ retryAt }`: not yet); throwing is a failed
 * attempt, retried with back-off unless the error is permanent (see `isPermanent`). The
 * signal aborts when the attempt's deadline passes: the runner has then given up on it.
 */
export type JobHandler = (job: OutboxRow, signal: AbortSignal) => Promise<JobResult>;

/** A job kind whose owner records the end of a job that failed for good (a message's status…). */
export interface JobSpec {
  run: JobHandler;
  /** Called once when the job ends failed, before the job is marked; must be idempotent (a crash repeats it). */
  failed?: (job: OutboxRow, reason: string) => Promise<void>;
}

export interface JobRunnerOptions {
  /** Jobs in flight at once on this node. */
  concurrency?: number;
  /** How often pending jobs are looked for when nothing pokes the runner (crash recovery, retries). */
  pollMs?: number;
  /** A claimed job is another node's to take after this long (its node died). */
  leaseMs?: number;
  /** Delay before retry n (1-based) of a job whose handler threw. */
  backoffMs?: (attempt: number) => number;
  /** Attempts before a job whose handler keeps failing ends as failed. */
  maxAttempts?: number;
  /** Told of every job that ends failed on this node (the operator's counter). */
  onFailed?: (kind: JobKind) => void;
}

/**
 * Runs the outbox's jobs on this node. Claims are rows locked with SKIP LOCKED and leased,
 * so several nodes share one outbox and a job held by a dead node comes back after the
 * lease. A handler that throws is retried with back-off; one that returns is done (a
 * handler may also mark its job done inside its own transaction, to make the effect and
 * the completion one commit). A job ends failed, with its reason, when its handler throws a
 * permanent error or after `maxAttempts` attempts; its kind's `failed` hook records the end
 * where the job's subject lives. An attempt past its deadline (inside the lease) frees its
 * slot and counts as failed, so a hung handler neither holds the node nor runs twice at once.
 */
export class JobRunner {
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly deadlineMs: number;
  private readonly maxAttempts: number;
  private readonly backoffMs: (attempt: number) => number;
  private readonly specs: Partial<Record<JobKind, JobSpec>>;
  private readonly inFlight = new Set<Promise<void>>();
  /** The runs under way on this node, by job id (runNow waits for one the loop took first). */
  private readonly running = new Map<string, Promise<void>>();
  /** Claims of the loop under way: what they take is in `running` once they settle. */
  private readonly claiming = new Set<Promise<unknown>>();
  private readonly loop = new PokeLoop(
    () => this.drain(),
    (err) => this.log.warn({ err }, "job runner: claiming jobs failed"),
  );

  constructor(
    private readonly db: Db,
    handlers: Partial<Record<JobKind, JobHandler | JobSpec>>,
    private readonly log: Logger,
    private readonly opts: JobRunnerOptions = {},
  ) {
    this.concurrency = opts.concurrency ?? 8;
    this.pollMs = opts.pollMs ?? 1000;
    this.leaseMs = opts.leaseMs ?? 60_000;
    // The attempt is given up before the lease runs out, so its failure is recorded while the job is still ours.
    this.deadlineMs = this.leaseMs - Math.min(5000, this.leaseMs / 5);
    this.maxAttempts = opts.maxAttempts ?? 10;
    this.backoffMs = opts.backoffMs ?? ((n) => Math.min(1000 * 2 ** (n - 1), 5 * 60_000));
    this.specs = Object.fromEntries(Object.entries(handlers).map(([kind, h]) => [kind, typeof h === "function" ? { run: h } : h]));
  }

  start(): void {
    this.loop.start(this.pollMs);
  }

  /** Something was enqueued: look now rather than at the next poll. */
  poke(): void {
    this.loop.poke();
  }

  /**
   * Runs one job now (a send that wants its first attempt inline). When this node's loop took
   * it first (a poke races the caller), waits for that run instead. false: it is not pending
   * here (done already, held by another node, or not due).
   */
  async runNow(jobId: string): Promise<boolean> {
    const [job] = await this.claim(eq(outbox.id, jobId), 1);
    if (job) {
      await this.launch(job, false);
      return true;
    }
    await Promise.allSettled([...this.claiming]);
    const run = this.running.get(jobId);
    if (!run) return false;
    await run;
    return true;
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  private async drain(): Promise<void> {
    while (!this.loop.isStopped) {
      const room = this.concurrency - this.inFlight.size;
      // A finishing job pokes again. While more than half the slots are busy, a freed slot waits
      // for others: claims are taken several at a time (each claim is a round trip), and the
      // busy half keeps the handlers fed meanwhile.
      if (room <= 0 || this.inFlight.size > this.concurrency / 2) return;
      // The runs start as the claim settles, so whoever awaits `claiming` finds them in `running`.
      const claimed = this.claimDue.run(this.db, { limit: room }).then((jobs) => {
        for (const job of jobs) void this.launch(job, true);
        return jobs.length;
      });
      this.claiming.add(claimed);
      const taken = await claimed.finally(() => this.claiming.delete(claimed));
      if (taken < room) return;
    }
  }

  /** Runs a claimed job, counted in flight and findable by id until it settles; a loop's run frees its slot with a poke. */
  private launch(job: OutboxRow, fromLoop: boolean): Promise<void> {
    const p = this.run(job).finally(() => {
      this.inFlight.delete(p);
      this.running.delete(job.id);
      if (fromLoop) this.poke();
    });
    this.inFlight.add(p);
    this.running.set(job.id, p);
    return p;
  }

  private claim(where: ReturnType<typeof and>, limit: number): Promise<OutboxRow[]> {
    return this.claimStatement(this.db, where, limit);
  }

  /**
   * The loop's claim, of any due job of this runner's kinds, built once (db/compiled.ts): it
   * runs for every few jobs, and building it anew cost more than the rest of the client's work.
   */
  private readonly claimDue = new Compiled<{ limit: number }, OutboxRow[]>((db) =>
    this.claimStatement(db, and(inArray(outbox.kind, Object.keys(this.specs) as JobKind[]), lte(outbox.runAfter, sql`now()`)), slot<number>("limit")),
  );

  /** Takes up to `limit` jobs that `where` picks and no other node holds: leased to this one, each attempt counted. */
  private claimStatement(db: Db, where: ReturnType<typeof and>, limit: number) {
    const pending = db
      .select({ seq: outbox.seq })
      .from(outbox)
      .where(and(where, isNull(outbox.doneAt), or(isNull(outbox.lockedUntil), lt(outbox.lockedUntil, sql`now()`))))
      .orderBy(asc(outbox.seq))
      .limit(limit)
      .for("update", { skipLocked: true });
    return db
      .update(outbox)
      .set({ lockedUntil: sql`now() + ${`${this.leaseMs} milliseconds`}::interval`, attempts: sql`${outbox.attempts} + 1` })
      .where(inArray(outbox.seq, pending))
      .returning();
  }

  private async run(job: OutboxRow): Promise<void> {
    const spec = this.specs[job.kind];
    // Over the cap already: an earlier end was not recorded (its node died, or the hook failed).
    if (job.attempts > this.maxAttempts) return this.end(job, job.lastError ?? `gave up after ${this.maxAttempts} attempts`);
    let result: JobResult;
    try {
      if (!spec) throw new Error(`no handler for job kind ${job.kind}`);
      result = await this.attempt(spec, job);
    } catch (err) {
      const reason = reasonOf(err);
      if (isPermanent(err)) return this.end(job, reason);
      if (job.attempts >= this.maxAttempts) return this.end(job, `${reason} (gave up after ${job.attempts} attempts)`);
      return this.retry(job, reason, this.backoffMs(job.attempts));
    }
    const later = (result as { retryAt?: Date } | undefined)?.retryAt;
    if (later) {
      // Not an attempt that failed: it does not count against the cap.
      await this.release(job, { runAfter: later, attempts: sql`greatest(${outbox.attempts} - 1, 0)` });
      return;
    }
    if ((result as { recorded?: boolean } | undefined)?.recorded === true) return;
    await this.release(job, { doneAt: sql`coalesce(${outbox.doneAt}, now())` });
  }

  /** One attempt under the deadline; past it the attempt is abandoned (its handler may still finish, idempotently). */
  private async attempt(spec: JobSpec, job: OutboxRow): Promise<JobResult> {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(new Error(`the attempt did not finish within ${this.deadlineMs} ms`));
      }, this.deadlineMs);
    });
    try {
      return await Promise.race([spec.run(job, abort.signal), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async retry(job: OutboxRow, reason: string, delayMs: number): Promise<void> {
    this.log.warn({ job_id: job.id, kind: job.kind, attempt: job.attempts, max_attempts: this.maxAttempts, retry_in_ms: delayMs, reason }, "job attempt failed; will retry");
    await this.release(job, { runAfter: sql`now() + ${`${delayMs} milliseconds`}::interval`, lastError: reason });
  }

  /** The job ends failed: its owner records the outcome, then the row is marked (done, failed, with the reason). */
  private async end(job: OutboxRow, reason: string): Promise<void> {
    const spec = this.specs[job.kind];
    try {
      await spec?.failed?.(job, reason);
    } catch (err) {
      // The end is not recorded: the job comes back (over the cap, straight here) after a back-off.
      const hook = reasonOf(err);
      this.log.warn({ job_id: job.id, kind: job.kind, reason, hook_error: hook }, "could not record a failed job's outcome; will retry");
      await this.release(job, { runAfter: sql`now() + ${`${this.backoffMs(job.attempts)} milliseconds`}::interval`, lastError: reason });
      return;
    }
    const ended = await this.release(job, { doneAt: sql`coalesce(${outbox.doneAt}, now())`, failedAt: sql`coalesce(${outbox.failedAt}, now())`, lastError: reason });
    if (!ended) return;
    this.log.error({ job_id: job.id, kind: job.kind, attempts: job.attempts, reason, payload: job.payload }, "job failed for good");
    this.opts.onFailed?.(job.kind);
  }

  /** Lets go of the claim with the given changes; false when that could not be written (the lease returns the job). */
  private async release(job: OutboxRow, changes: Partial<Record<keyof typeof outbox.$inferInsert, unknown>>): Promise<boolean> {
    try {
      await this.db
        .update(outbox)
        .set({ lockedUntil: null, ...changes } as never)
        .where(eq(outbox.seq, job.seq));
      return true;
    } catch (err) {
      this.log.error({ job_id: job.id, kind: job.kind, reason: reasonOf(err) }, "could not record a job's outcome; the lease will return it");
      return false;
    }
  }
}
