import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import type { Logger } from "../log.ts";

export interface SweeperOptions {
  intervalMs: number;
  eventRetentionDays: number;
  /** NATS mode: hand lost deliveries back to the stream. Absent in-process (the queue reads the table). */
  republish?: (ids: string[]) => Promise<void>;
  /** A pending delivery not attempted this long after it fell due is taken for lost by the stream. */
  overdueMs: number;
}

/** Delivery history is kept this long after a delivery finished. */
const HISTORY_DAYS = 30;
/** A delivery committed but not on the stream after this long lost its publisher. */
const UNPUBLISHED_MS = 10_000;

/**
 * PostgreSQL is the record, NATS the transport. Periodically, on every node (SKIP LOCKED
 * keeps them apart): re-publishes deliveries that never reached the stream and those the
 * stream seems to have lost (JetStream acknowledges before fsync by default, so a crash can
 * drop messages it acked), and removes events and history past their retention.
 */
export class Sweeper {
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly opts: SweeperOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep()
        .then(() => undefined)
        .catch((err) => this.log.warn({ err }, "webhook sweep failed"))
        .finally(() => (this.running = undefined));
    }, this.opts.intervalMs);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  async sweep(): Promise<{ republished: number; purgedEvents: number }> {
    let republished = 0;
    if (this.opts.republish) {
      const ids = rowsOf<{ id: string }>(
        await this.db.execute(sql`
          update webhook_deliveries set next_attempt_at = greatest(next_attempt_at, now()), published_at = null
          where id in (
            select id from webhook_deliveries
            where state = 'pending' and (
              (published_at is null and created_at < now() - make_interval(secs => ${UNPUBLISHED_MS / 1000}))
              or next_attempt_at < now() - make_interval(secs => ${this.opts.overdueMs / 1000}))
            order by next_attempt_at
            limit 1000
            for update skip locked)
          returning id`),
      ).map((r) => r.id);
      if (ids.length > 0) {
        this.log.warn({ count: ids.length }, "re-publishing webhook deliveries the stream did not deliver in time");
        await this.opts.republish(ids);
        republished = ids.length;
      }
    }
    const purged = rowsOf<{ n: number }>(
      await this.db.execute(sql`
        with gone as (
          delete from outbox where done_at < now() - make_interval(days => ${this.opts.eventRetentionDays}) returning 1
        ) select count(*)::int as n from gone`),
    );
    await this.db.execute(sql`delete from webhook_deliveries where finished_at < now() - make_interval(days => ${HISTORY_DAYS})`);
    return { republished, purgedEvents: purged[0]?.n ?? 0 };
  }
}
