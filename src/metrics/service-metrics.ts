import { sql } from "drizzle-orm";
import type { ActorSystem } from "../../actors/runtime/index.ts";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import type { SharedCommit } from "../../db/shared-commit.ts";
import { Registry, type Sample } from "./registry.ts";

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface MetricSources {
  db: Db;
  actors: ActorSystem;
  /** JetStream's delivery backlog; null in-process. */
  jetstreamBacklog: () => Promise<{ pending: number; ackPending: number } | null>;
}

/**
 * The operator's view of one node, as Prometheus text at GET /metrics: counters and
 * histograms fed as things happen (HTTP, SMTP), and gauges read at scrape time (actors,
 * queues, outbox lag, JetStream). Database-wide gauges are the same on every node.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly httpRequests = this.registry.counter("mailroom_http_requests_total", "HTTP requests answered, by route template and status.", ["method", "route", "status"]);
  private readonly httpLatency = this.registry.histogram("mailroom_http_request_duration_seconds", "Time from request to response, by route template.", LATENCY_BUCKETS, ["method", "route"]);
  private readonly smtpSessions = this.registry.counter("mailroom_smtp_sessions_total", "SMTP connections accepted.");
  private readonly smtpOpen = this.registry.gauge("mailroom_smtp_sessions_open", "SMTP connections open now.");
  private readonly jobsEnded = this.registry.counter("mailroom_jobs_failed_total", "Outbox jobs this node ended as failed (a permanent error, or JOB_MAX_ATTEMPTS used up), by kind.", ["kind"]);
  private readonly started = Date.now();

  constructor() {
    this.registry.collect("mailroom_process_uptime_seconds", "Seconds since this node started.", "gauge", () => [{ value: (Date.now() - this.started) / 1000 }]);
    this.registry.collect("mailroom_process_resident_memory_bytes", "Resident set size of this node.", "gauge", () => [{ value: process.memoryUsage().rss }]);
  }

  /** Per "method route status": the two series a request feeds, looked up once rather than on every request. */
  private readonly httpSeries = new Map<string, { count: () => void; time: (seconds: number) => void }>();

  observeHttp(method: string, route: string, status: number, seconds: number): void {
    const series = this.httpSeriesOf(method, route, status);
    series.count();
    series.time(seconds);
  }

  /** The two series of one "method route status", for a caller that observes it often (src/http/fast-read.ts). */
  httpSeriesOf(method: string, route: string, status: number): { count: () => void; time: (seconds: number) => void } {
    const key = `${method} ${route} ${status}`;
    let series = this.httpSeries.get(key);
    if (series === undefined) {
      series = { count: this.httpRequests.series({ method, route, status: String(status) }), time: this.httpLatency.series({ method, route }) };
      // Routes are templates and statuses few, so this stays small; the bound is a guard only.
      if (this.httpSeries.size < 10_000) this.httpSeries.set(key, series);
    }
    return series;
  }

  smtpSessionOpened(): void {
    this.smtpSessions.inc();
    this.smtpOpen.inc();
  }

  smtpSessionClosed(): void {
    this.smtpOpen.dec();
  }

  jobFailed(kind: string): void {
    this.jobsEnded.inc({ kind });
  }

  /** The gauges read at scrape time; called once the sources exist. */
  watch(sources: MetricSources): void {
    const { db, actors } = sources;
    this.registry.collect("mailroom_actors_active", "Mailbox actors in memory on this node.", "gauge", () => [{ value: actors.activeCount() }]);
    this.registry.collect("mailroom_actor_queue_depth", "Commands waiting for their actor's turn on this node, summed over actors.", "gauge", () => [{ value: actors.queueDepth() }]);
    this.registry.collect("mailroom_outbox_pending", "Outbox rows not yet done, by kind (events and jobs).", "gauge", async () =>
      rowsOf<{ kind: string; n: number | string }>(await db.execute(sql`select kind, count(*) as n from outbox where done_at is null group by kind`)).map((r) => ({ labels: { kind: r.kind }, value: Number(r.n) })),
    );
    this.registry.collect("mailroom_outbox_lag_seconds", "Age of the oldest outbox row that is due and not done, by kind: how far the job runners are behind.", "gauge", async () =>
      rowsOf<{ kind: string; lag: number | string | null }>(
        await db.execute(sql`select kind, extract(epoch from (now() - min(run_after))) as lag from outbox where done_at is null and run_after <= now() group by kind`),
      ).map((r) => ({ labels: { kind: r.kind }, value: Math.max(0, Number(r.lag ?? 0)) })),
    );
    this.registry.collect("mailroom_jobs_failed", "Outbox jobs that ended failed and are still kept (EVENT_RETENTION_DAYS), by kind; the reasons are in outbox.last_error.", "gauge", async () =>
      rowsOf<{ kind: string; n: number | string }>(await db.execute(sql`select kind, count(*) as n from outbox where failed_at is not null group by kind`)).map((r) => ({ labels: { kind: r.kind }, value: Number(r.n) })),
    );
    this.registry.collect("mailroom_jobs_retrying", "Outbox jobs whose last attempt failed and that will be tried again, by kind.", "gauge", async () =>
      rowsOf<{ kind: string; n: number | string }>(await db.execute(sql`select kind, count(*) as n from outbox where done_at is null and last_error is not null group by kind`)).map((r) => ({ labels: { kind: r.kind }, value: Number(r.n) })),
    );
    this.registry.collect("mailroom_webhook_deliveries_pending", "Webhook, callback and runtime deliveries not yet succeeded or given up, by target.", "gauge", async () =>
      rowsOf<{ target: string; n: number | string }>(await db.execute(sql`select target, count(*) as n from webhook_deliveries where state = 'pending' group by target`)).map((r) => ({
        labels: { target: r.target },
        value: Number(r.n),
      })),
    );
    this.registry.collect("mailroom_jetstream_pending", "JetStream webhook consumer backlog: not yet delivered (state=pending) and delivered but unacknowledged (state=ack_pending). Absent in-process.", "gauge", async () => {
      const backlog = await sources.jetstreamBacklog();
      return backlog
        ? [
            { labels: { state: "pending" }, value: backlog.pending },
            { labels: { state: "ack_pending" }, value: backlog.ackPending },
          ]
        : [];
    });
  }

  /** The commits the mailbox actors share (db/shared-commit.ts), by kind of write. */
  watchCommits(commits: Record<string, SharedCommit>): void {
    const each = (f: (c: SharedCommit["counts"]) => Sample[]) => () => Object.entries(commits).flatMap(([kind, c]) => f(c.counts).map((x) => ({ ...x, labels: { kind, ...x.labels } })));
    this.registry.collect(
      "mailroom_actor_commits_total",
      "Transactions the mailbox actors' writes were committed in, by kind of write (arrivals, processed): shared by several mailboxes, or of one mailbox's write alone.",
      "counter",
      each((c) => [
        { labels: { shared: "true" }, value: c.shared },
        { labels: { shared: "false" }, value: c.alone },
      ]),
    );
    this.registry.collect("mailroom_actor_shared_writes_total", "Mailbox actors' writes committed in a shared transaction, by kind of write.", "counter", each((c) => [{ value: c.members }]));
    this.registry.collect(
      "mailroom_actor_merged_statements_total",
      "Statements of committed shared transactions that carried the calls of several mailboxes' writes at once (db/tx-batch.ts), by kind of write.",
      "counter",
      each((c) => [{ value: c.merged }]),
    );
    this.registry.collect("mailroom_actor_merged_calls_total", "Calls those merged statements carried (each would have been a statement of its own), by kind of write.", "counter", each((c) => [{ value: c.mergedCalls }]));
    this.registry.collect("mailroom_actor_shared_commits_given_up_total", "Shared transactions rolled back because one write or the commit failed (each write then ran alone), by kind of write.", "counter", each((c) => [{ value: c.givenUp }]));
  }

  /** Inbound mail whose SPF/DKIM/DMARC verdict was a recent message's (src/mail/assess/auth-verdicts.ts). */
  watchAuthVerdicts(verdicts: { readonly reused: number } | null): void {
    if (!verdicts) return;
    this.registry.collect(
      "mailroom_auth_verdicts_reused_total",
      "Inbound messages that took the SPF/DKIM/DMARC verdict of a recent unsigned message with the same client, envelope sender and From instead of running mailauth.",
      "counter",
      () => [{ value: verdicts.reused }],
    );
  }

  /** In-flow control's holds of MAIL FROM (src/mail/in-flow.ts); absent when SMTP has none. */
  watchInFlow(inFlow: { readonly counts: { caughtUp: number; maxWait: number; heldMs: number }; readonly lag: number }): void {
    const { counts } = inFlow;
    this.registry.collect(
      "mailroom_smtp_in_flow_holds_total",
      "MAIL FROM commands held because processing ran more than SMTP_IN_FLOW_LAG_MS behind, counted when the hold ends: once processing caught up (released=caught_up), or at the longest hold while it was still behind (released=max_wait).",
      "counter",
      () => [
        { labels: { released: "caught_up" }, value: counts.caughtUp },
        { labels: { released: "max_wait" }, value: counts.maxWait },
      ],
    );
    this.registry.collect("mailroom_smtp_in_flow_held_seconds_total", "Seconds MAIL FROM commands spent held by in-flow control, counted when each hold ends.", "counter", () => [{ value: counts.heldMs / 1000 }]);
    this.registry.collect("mailroom_smtp_in_flow_lag_seconds", "How far processing ran behind (the oldest due mail.process job's wait) when in-flow control last read it; read only while mail arrives.", "gauge", () => [{ value: inFlow.lag / 1000 }]);
  }

  render(): Promise<string> {
    return this.registry.render();
  }
}
