import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";

const HOUR = 3_600_000;

export const METRIC_SERIES = [
  "inbound",
  "outbound",
  "refused_policy",
  "refused_suppression",
  "refused_rate",
  "webhook_deliveries",
  "webhook_failures",
] as const;
export type MetricName = (typeof METRIC_SERIES)[number];

export type Bucket = { hour: string } & Record<MetricName, number> & { processing_ms_p50: number | null };

export interface MetricWindow {
  bucket_seconds: 3600;
  from: string;
  to: string;
  totals: Record<MetricName, number> & { processing_ms_p50: number | null };
  series: Bucket[];
}

/**
 * Hourly series of a mailbox's traffic over the last 7 days, and the last 24 hours of it:
 * messages in and out (by arrival), sends refused by policy, suppression and the rate window
 * (counted as they happen), webhook deliveries that succeeded or were given up (by when they
 * finished), and the median time from arrival to processed. Hours with nothing are zeros, so
 * every series has 24 or 168 points; the current hour is the last, still filling.
 */
export async function mailboxMetrics(db: Db, mailboxId: string, now = new Date()): Promise<{ "24h": MetricWindow; "7d": MetricWindow }> {
  const end = Math.floor(now.getTime() / HOUR) * HOUR + HOUR;
  const start = end - 168 * HOUR;
  const from = new Date(start).toISOString();
  type R = { h: Date | string; k: string; n: number | string };
  const counted: R[] = [
    ...rowsOf<R>(
      await db.execute(sql`
        select date_trunc('hour', created_at) as h, direction as k, count(*) as n from messages
        where mailbox_id = ${mailboxId} and created_at >= ${from}::timestamptz group by 1, 2`),
    ),
    ...rowsOf<R>(
      await db.execute(sql`
        select hour as h, counter as k, count as n from mailbox_hourly_counters
        where mailbox_id = ${mailboxId} and hour >= ${from}::timestamptz`),
    ),
    ...rowsOf<R>(
      await db.execute(sql`
        select date_trunc('hour', finished_at) as h, case when state = 'succeeded' then 'webhook_deliveries' else 'webhook_failures' end as k, count(*) as n
        from webhook_deliveries
        where mailbox_id = ${mailboxId} and target = 'webhook' and finished_at >= ${from}::timestamptz and state in ('succeeded', 'failed')
        group by 1, 2`),
    ),
  ];
  const processing = rowsOf<{ h: Date | string; p50: number | string | null }>(
    await db.execute(sql`
      select date_trunc('hour', created_at) as h, percentile_cont(0.5) within group (order by extract(epoch from (processed_at - created_at)) * 1000) as p50
      from messages
      where mailbox_id = ${mailboxId} and direction = 'inbound' and processed_at is not null and not suspicious_signals @> '["processing_failed"]'::jsonb and created_at >= ${from}::timestamptz
      group by 1`),
  );
  const overall = async (since: string) => {
    const [row] = rowsOf<{ p50: number | string | null }>(
      await db.execute(sql`
        select percentile_cont(0.5) within group (order by extract(epoch from (processed_at - created_at)) * 1000) as p50
        from messages where mailbox_id = ${mailboxId} and direction = 'inbound' and processed_at is not null and not suspicious_signals @> '["processing_failed"]'::jsonb and created_at >= ${since}::timestamptz`),
    );
    return row?.p50 == null ? null : Math.round(Number(row.p50));
  };

  const buckets = new Map<number, Bucket>();
  for (let t = start; t < end; t += HOUR) {
    buckets.set(t, { hour: new Date(t).toISOString(), ...zeros(), processing_ms_p50: null });
  }
  const aliases: Record<string, MetricName> = { inbound: "inbound", outbound: "outbound" };
  for (const r of counted) {
    const b = buckets.get(new Date(r.h).getTime());
    const name = (aliases[r.k] ?? r.k) as MetricName;
    if (b && (METRIC_SERIES as readonly string[]).includes(name)) b[name] += Number(r.n);
  }
  for (const r of processing) {
    const b = buckets.get(new Date(r.h).getTime());
    if (b && r.p50 !== null) b.processing_ms_p50 = Math.round(Number(r.p50));
  }
  const all = [...buckets.values()];
  const window = async (series: Bucket[]): Promise<MetricWindow> => {
    const totals = zeros();
    for (const b of series) for (const k of METRIC_SERIES) totals[k] += b[k];
    return { bucket_seconds: 3600, from: series[0]!.hour, to: new Date(end).toISOString(), totals: { ...totals, processing_ms_p50: await overall(series[0]!.hour) }, series };
  };
  return { "24h": await window(all.slice(-24)), "7d": await window(all) };
}

const zeros = () => Object.fromEntries(METRIC_SERIES.map((k) => [k, 0])) as Record<MetricName, number>;
