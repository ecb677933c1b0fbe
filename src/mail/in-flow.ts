import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";

/** How often, at most, the lag is read while mail is arriving. */
const SAMPLE_MS = 100;
/** The longest one MAIL FROM is held; past it the message goes ahead (as Postfix's in_flow_delay). */
export const IN_FLOW_MAX_WAIT_MS = 2_000;

/**
 * In-flow control: SMTP takes a new message only while processing keeps up.
 *
 * Accepting a message costs a fraction of processing it (parse, assessment, full-text
 * indexing), so a sender that pushes as fast as it is answered can be accepted faster than
 * the node processes, and the backlog, and with it the time from a message's 250 to its
 * `message.processed`, then grows for as long as the push lasts. Like Postfix's
 * `in_flow_delay`, MAIL FROM is held while processing runs more than `limitMs` behind:
 * the sender slows to the rate the service processes at, and the backlog stays about
 * `limitMs` long. The hold comes before the message is sent, so it is never a message the
 * sender waits on after DATA (which it might give up on and send again), and it ends after
 * IN_FLOW_MAX_WAIT_MS whatever the lag: stuck processing slows senders down but never turns
 * mail away.
 *
 * The lag is the age of the oldest `mail.process` job due and not done, read from the outbox
 * (the first entry of its pending index: one index probe) at most every SAMPLE_MS and only
 * while mail arrives. It is cluster-wide: every node reads the same queue. A job waiting for
 * a retry is not due, so one failing message does not hold the gate shut.
 */
export class InFlow {
  private lagMs = 0;
  private sampledAt = -Infinity;
  private sampling: Promise<void> | null = null;
  /**
   * Holds ended so far (GET /metrics): let go once processing caught up, let go at the
   * maximum wait while it was still behind, and the milliseconds they lasted. While these
   * grow, senders are paced by processing, and the rate mail is accepted at is the rate it is
   * processed at.
   */
  readonly counts = { caughtUp: 0, maxWait: 0, heldMs: 0 };

  constructor(
    private readonly db: Db,
    private readonly limitMs: number,
    private readonly maxWaitMs = IN_FLOW_MAX_WAIT_MS,
  ) {}

  /** Resolves when the next message may come: at once while processing keeps up; never rejects. */
  async admit(): Promise<void> {
    if (this.limitMs <= 0) return;
    const start = performance.now();
    const until = start + this.maxWaitMs;
    for (let held = false; ; held = true) {
      await this.fresh();
      if (this.lagMs <= this.limitMs) return held ? this.held(start, "caughtUp") : undefined;
      const left = until - performance.now();
      if (left <= 0) return this.held(start, "maxWait");
      await new Promise((resolve) => setTimeout(resolve, Math.min(SAMPLE_MS, left)));
    }
  }

  private held(start: number, end: "caughtUp" | "maxWait"): void {
    this.counts[end]++;
    this.counts.heldMs += performance.now() - start;
  }

  /** The lag last read, in ms (for tests and metrics). */
  get lag(): number {
    return this.lagMs;
  }

  private fresh(): Promise<void> {
    if (performance.now() - this.sampledAt < SAMPLE_MS) return Promise.resolve();
    return (this.sampling ??= this.sample().finally(() => (this.sampling = null)));
  }

  private async sample(): Promise<void> {
    try {
      const [row] = rowsOf<{ lag: number | string | null }>(
        await this.db.execute(sql`
          select extract(epoch from (clock_timestamp() - min(run_after))) * 1000 as lag
          from outbox where kind = 'mail.process' and done_at is null and run_after <= now()`),
      );
      this.lagMs = Math.max(0, Number(row?.lag ?? 0));
    } catch {
      // The database is unreachable: acceptance fails on its own, so the gate stays open.
      this.lagMs = 0;
    }
    this.sampledAt = performance.now();
  }
}
