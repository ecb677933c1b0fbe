import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import type { Db } from "../../../db/client.ts";
import { mailboxMetrics, METRIC_SERIES } from "../../stats/mailbox-metrics.ts";
import { mailboxStats } from "../../stats/mailbox-stats.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import { Timestamp, Uuid } from "../schemas.ts";

const Counts = t.Record(t.String(), t.Integer());
const series = Object.fromEntries(METRIC_SERIES.map((k) => [k, t.Integer()])) as Record<(typeof METRIC_SERIES)[number], ReturnType<typeof t.Integer>>;
const P50 = t.Union([t.Integer(), t.Null()], { description: "median milliseconds from arrival to processed; null with no processed inbound mail" });

const Stats = t.Object(
  {
    mailbox_id: Uuid(),
    generated_at: Timestamp,
    messages: t.Object({
      total: t.Integer(),
      by_direction: Counts,
      by_status: Counts,
      by_transport: Counts,
      by_triage_label: Counts,
      by_risk_level: Counts,
      unreviewed: t.Integer({ description: "inbound, not reviewed and not archived" }),
      unprocessed: t.Integer({ description: "inbound, not yet parsed and assessed" }),
      processing_failed: t.Integer({ description: "inbound whose processing ended failed (signal processing_failed)" }),
    }),
    threads: t.Object({ total: t.Integer(), open: t.Integer(), archived: t.Integer() }),
    drafts: t.Integer(),
  },
  { additionalProperties: false },
);

const Window = t.Object({
  bucket_seconds: t.Literal(3600),
  from: Timestamp,
  to: Timestamp,
  totals: t.Object({ ...series, processing_ms_p50: P50 }),
  series: t.Array(t.Object({ hour: Timestamp, ...series, processing_ms_p50: P50 })),
});

const Metrics = t.Object({ mailbox_id: Uuid(), generated_at: Timestamp, windows: t.Object({ "24h": Window, "7d": Window }) }, { additionalProperties: false });

export function statsRoutes(mailboxes: Mailboxes, db: Db) {
  return new Elysia({ name: "stats" })
    .get(
      "/v1/mailboxes/:mailboxId/stats",
      async ({ params }) => {
        const mailbox = await mailboxes.get(params.mailboxId);
        return { mailbox_id: mailbox.id, generated_at: new Date().toISOString(), ...(await mailboxStats(db, mailbox.id)) };
      },
      {
        params: MailboxParams,
        response: { 200: Stats },
        detail: { summary: "Mailbox counts", description: "Messages by direction, status, transport, triage label and risk level; unreviewed, unprocessed and processing-failed inbound mail; threads open and archived; drafts.", tags: ["Stats"] },
      },
    )
    .get(
      "/v1/mailboxes/:mailboxId/metrics",
      async ({ params }) => {
        const mailbox = await mailboxes.get(params.mailboxId);
        return { mailbox_id: mailbox.id, generated_at: new Date().toISOString(), windows: await mailboxMetrics(db, mailbox.id) };
      },
      {
        params: MailboxParams,
        response: { 200: Metrics },
        detail: {
          summary: "Mailbox time series",
          description:
            "Hourly buckets (UTC hours, the current one last and still filling) for the last 24 hours and 7 days: inbound and outbound messages, sends refused by policy (`refused_policy`), suppression (`refused_suppression`) and the rate window (`refused_rate`), webhook deliveries that succeeded and that were given up, and the median processing time of inbound mail. Empty hours are zeros.",
          tags: ["Stats"],
        },
      },
    );
}
