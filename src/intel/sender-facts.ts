import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import type { SenderProfileRow } from "../../db/schema/index.ts";
import type { SenderFacts } from "./engine.ts";

const counts = (rows: { k: string | null; n: number | string }[]): Record<string, number> => Object.fromEntries(rows.filter((r) => r.k !== null).map((r) => [r.k!, Number(r.n)]));

/**
 * What the account's mail says about one sender, over all its mailboxes: volume, when,
 * whether anyone answered, and how its mail was judged and authenticated. Every query is
 * bounded to the sender's own messages through messages_from_idx.
 */
export async function senderFacts(db: Db, profile: SenderProfileRow, now = new Date()): Promise<SenderFacts> {
  const mine = sql`m.from_address = ${profile.address} and m.direction = 'inbound' and m.mailbox_id in (select id from mailboxes where account_id = ${profile.accountId})`;
  const day = 86_400_000;
  const [volume] = rowsOf<{ inbound: number; d7: number; d30: number; first: Date | string | null; last: Date | string | null }>(
    await db.execute(sql`
      select count(*)::int as inbound,
        (count(*) filter (where m.created_at >= ${new Date(now.getTime() - 7 * day).toISOString()}::timestamptz))::int as d7,
        (count(*) filter (where m.created_at >= ${new Date(now.getTime() - 30 * day).toISOString()}::timestamptz))::int as d30,
        min(m.created_at) as first, max(m.created_at) as last
      from messages m where ${mine}`),
  );
  const [outbound] = rowsOf<{ n: number }>(
    await db.execute(sql`
      select count(*)::int as n from messages m
      where m.direction = 'outbound' and m.mailbox_id in (select id from mailboxes where account_id = ${profile.accountId})
        and (position(${profile.address} in lower(m.to_address)) > 0 or m.cc @> jsonb_build_array(${profile.address}::text))`),
  );
  const [threads] = rowsOf<{ threads: number; replied: number }>(
    await db.execute(sql`
      with t as (select m.thread_id, min(m.created_at) as first_in from messages m where ${mine} and m.thread_id is not null group by m.thread_id)
      select count(*)::int as threads,
        (count(*) filter (where exists (select 1 from messages o where o.thread_id = t.thread_id and o.direction = 'outbound' and o.created_at > t.first_in)))::int as replied
      from t`),
  );
  // One scan of the sender's messages for every breakdown.
  const grouped = rowsOf<{ dim: string; k: string | null; n: number }>(
    await db.execute(sql`
      select case when grouping(m.triage_label) = 0 then 'triage' when grouping(m.risk_level) = 0 then 'risk'
          when grouping(m.auth->>'spf') = 0 then 'spf' when grouping(m.auth->>'dkim') = 0 then 'dkim' else 'dmarc' end as dim,
        coalesce(m.triage_label, m.risk_level, m.auth->>'spf', m.auth->>'dkim', m.auth->>'dmarc') as k, count(*)::int as n
      from messages m where ${mine}
      group by grouping sets ((m.triage_label), (m.risk_level), (m.auth->>'spf'), (m.auth->>'dkim'), (m.auth->>'dmarc'))`),
  );
  const by = (dim: string) => counts(grouped.filter((r) => r.dim === dim));
  const signals = counts(
    rowsOf<{ k: string; n: number }>(await db.execute(sql`select s as k, count(*)::int as n from messages m, jsonb_array_elements_text(m.suspicious_signals) s where ${mine} group by 1`)),
  );
  const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);
  const threadCount = Number(threads?.threads ?? 0);
  const replied = Number(threads?.replied ?? 0);
  return {
    address: profile.address,
    display_name: profile.displayName,
    disposition: profile.disposition,
    volume: { inbound: Number(volume?.inbound ?? 0), last_7_days: Number(volume?.d7 ?? 0), last_30_days: Number(volume?.d30 ?? 0), outbound_to: Number(outbound?.n ?? 0) },
    first_seen_at: iso(volume?.first) ?? iso(profile.firstSeenAt),
    last_seen_at: iso(volume?.last) ?? iso(profile.lastSeenAt),
    threads: threadCount,
    replied_threads: replied,
    reply_rate: threadCount > 0 ? Math.round((replied / threadCount) * 1000) / 1000 : null,
    triage: by("triage"),
    risk: by("risk"),
    signals,
    authentication: { spf: by("spf"), dkim: by("dkim"), dmarc: by("dmarc") },
  };
}
