import { and, asc, eq, inArray, isNull, lte, or, sql, lt } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { outbox, type OutboxRow } from "../../db/schema/index.ts";
import type { Logger } from "../log.ts";
import type { JobKind } from "./outbox.ts";
import { PokeLoop } from "./poke-loop.ts";

export type JobHandler = (job: OutboxRow) => Promise<void>;

export interface JobRunnerOptions {
  /** Jobs in flight at once on this node. */
  concurrency?: number;
  /** How often pending jobs are looked for when nothing pokes the runner (crash recovery, retries). */
  pollMs?: number;
  /** A claimed job is another node's to take after this long (its node died). */
  leaseMs?: number;
  /** Delay before retry n (1-based) of a job whose handler threw. */
  backoffMs?: (attempt: number) => number;
}

/**
 * Runs the outbox's jobs on this node. Claims are rows locked with SKIP LOCKED and leased,
 * so several nodes share one outbox and a job held by a dead node comes back after the
 * lease. A handler that throws is retried with back-off; one that returns is done (a
 * handler may also mark its job done inside its own transaction, to make the effect and
 * the completion one commit).
 */
export class JobRunner {
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly backoffMs: (attempt: number) => number;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly loop = new PokeLoop(
    () => this.drain(),
    (err) => this.log.warn({ err }, "job runner: claiming jobs failed"),
  );

  constructor(
    private readonly db: Db,
    private readonly handlers: Partial<Record<JobKind, JobHandler>>,
    private readonly log: Logger,
    opts: JobRunnerOptions = {},
  ) {
    this.concurrency = opts.concurrency ?? 8;
    this.pollMs = opts.pollMs ?? 1000;
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.backoffMs = opts.backoffMs ?? ((n) => Math.min(1000 * 2 ** (n - 1), 5 * 60_000));
  }

  start(): void {
    this.loop.start(this.pollMs);
  }

  /** Something was enqueued: look now rather than at the next poll. */
  poke(): void {
    this.loop.poke();
  }

  /** Runs one job now if it is pending and unclaimed (a send that wants its first attempt inline). */
  async runNow(jobId: string): Promise<boolean> {
    const [job] = await this.claim(eq(outbox.id, jobId), 1);
    if (!job) return false;
    await this.run(job);
    return true;
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  private async drain(): Promise<void> {
    const kinds = Object.keys(this.handlers) as JobKind[];
    while (!this.loop.isStopped) {
      const room = this.concurrency - this.inFlight.size;
      if (room <= 0) return; // a finishing job pokes again
      const jobs = await this.claim(and(inArray(outbox.kind, kinds), lte(outbox.runAfter, sql`now()`))!, room);
      for (const job of jobs) {
        const p = this.run(job).finally(() => {
          this.inFlight.delete(p);
          this.poke();
        });
        this.inFlight.add(p);
      }
      if (jobs.length < room) return;
    }
  }

  private claim(where: ReturnType<typeof and>, limit: number): Promise<OutboxRow[]> {
    const pending = this.db
      .select({ seq: outbox.seq })
      .from(outbox)
      .where(and(where, isNull(outbox.doneAt), or(isNull(outbox.lockedUntil), lt(outbox.lockedUntil, sql`now()`))))
      .orderBy(asc(outbox.seq))
      .limit(limit)
      .for("update", { skipLocked: true });
    return this.db
      .update(outbox)
      .set({ lockedUntil: sql`now() + ${`${this.leaseMs} milliseconds`}::interval`, attempts: sql`${outbox.attempts} + 1` })
      .where(inArray(outbox.seq, pending))
      .returning();
  }

  private async run(job: OutboxRow): Promise<void> {
    const handler = this.handlers[job.kind];
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      await handler(job);
      await this.db.update(outbox).set({ doneAt: sql`coalesce(${outbox.doneAt}, now())`, lockedUntil: null }).where(eq(outbox.seq, job.seq));
    } catch (err) {
      const delay = this.backoffMs(job.attempts);
      this.log.warn({ err, job_id: job.id, kind: job.kind, attempt: job.attempts, retry_in_ms: delay }, "job failed; will retry");
      await this.db
        .update(outbox)
        .set({ lockedUntil: null, runAfter: sql`now() + ${`${delay} milliseconds`}::interval`, lastError: String((err as Error)?.message ?? err).slice(0, 2000) })
        .where(eq(outbox.seq, job.seq))
        .catch((e) => this.log.error({ err: e, job_id: job.id }, "could not record a job failure; the lease will return it"));
    }
  }
}
