import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";

export interface MailboxStats {
  messages: {
    total: number;
    by_direction: Record<string, number>;
    by_status: Record<string, number>;
    by_transport: Record<string, number>;
    by_triage_label: Record<string, number>;
    by_risk_level: Record<string, number>;
    /** Inbound, not yet reviewed and not archived: what still waits for someone. */
    unreviewed: number;
    /** Inbound, arrived but not yet parsed and assessed. */
    unprocessed: number;
    /** Inbound whose processing ended failed (signal processing_failed), whatever their status now. */
    processing_failed: number;
  };
  threads: { total: number; open: number; archived: number };
  drafts: number;
}

type Row = { dim: string; k: string | null; n: number | string };

/**
 * Counts of a mailbox's mail. Every breakdown comes from one grouping-sets scan of the
 * mailbox's messages (its index), so the figures agree with each other.
 */
export async function mailboxStats(db: Db, mailboxId: string): Promise<MailboxStats> {
  const grouped = rowsOf<Row>(
    await db.execute(sql`
      select case
          when grouping(direction) = 0 then 'direction' when grouping(status) = 0 then 'status'
          when grouping(transport) = 0 then 'transport' when grouping(triage_label) = 0 then 'triage'
          when grouping(risk_level) = 0 then 'risk' else 'total' end as dim,
        coalesce(direction, status, transport, triage_label, risk_level) as k,
        count(*) as n
      from messages where mailbox_id = ${mailboxId}
      group by grouping sets ((direction), (status), (transport), (triage_label), (risk_level), ())`),
  );
  const [flags] = rowsOf<{ unreviewed: number | string; unprocessed: number | string; failed: number | string }>(
    await db.execute(sql`
      select count(*) filter (where direction = 'inbound' and reviewed_at is null and status <> 'archived') as unreviewed,
        count(*) filter (where direction = 'inbound' and processed_at is null) as unprocessed,
        count(*) filter (where direction = 'inbound' and suspicious_signals @> '["processing_failed"]'::jsonb) as failed
      from messages where mailbox_id = ${mailboxId}`),
  );
  const [threads] = rowsOf<{ total: number | string; open: number | string; archived: number | string }>(
    await db.execute(sql`
      select count(*) as total, count(*) filter (where status = 'open') as open, count(*) filter (where status = 'archived') as archived
      from threads where mailbox_id = ${mailboxId}`),
  );
  const [drafts] = rowsOf<{ n: number | string }>(await db.execute(sql`select count(*) as n from drafts where mailbox_id = ${mailboxId}`));

  const by = (dim: string) => Object.fromEntries(grouped.filter((r) => r.dim === dim && r.k !== null).map((r) => [r.k!, Number(r.n)]));
  return {
    messages: {
      total: Number(grouped.find((r) => r.dim === "total")?.n ?? 0),
      by_direction: { inbound: 0, outbound: 0, ...by("direction") },
      by_status: by("status"),
      by_transport: by("transport"),
      by_triage_label: by("triage"),
      by_risk_level: by("risk"),
      unreviewed: Number(flags?.unreviewed ?? 0),
      unprocessed: Number(flags?.unprocessed ?? 0),
      processing_failed: Number(flags?.failed ?? 0),
    },
    threads: { total: Number(threads?.total ?? 0), open: Number(threads?.open ?? 0), archived: Number(threads?.archived ?? 0) },
    drafts: Number(drafts?.n ?? 0),
  };
}
