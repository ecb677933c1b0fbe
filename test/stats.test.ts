import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, ISO, seedAccount, startTestService, waitFor, type TestService } from "./harness.ts";
import { postInbound, rfc822, smtpSend, startRelaySink, waitForMessage } from "./mail-support.ts";
import { startReceiver } from "./webhook-support.ts";

let t: TestService;
let relay: Awaited<ReturnType<typeof startRelaySink>>;
beforeAll(async () => {
  relay = await startRelaySink();
  t = await startTestService({ SMTP_RELAY_URL: relay.url });
});
afterAll(async () => {
  await t.stop();
  await relay.close();
});

type Seed = Awaited<ReturnType<typeof seedAccount>>;
let n = 0;
async function receive(s: Seed, subject: string, body: string, extra: Record<string, string> = {}): Promise<any> {
  const raw = rfc822({ From: "Sam <sam@outside.example>", To: s.agent.email_address, Subject: subject, Date: new Date().toUTCString(), "Message-ID": `<st${++n}.${crypto.randomUUID()}@example.com>`, "Content-Type": "text/plain", ...extra }, `${body}\r\n`);
  const res = await postInbound(t, raw, [s.agent.email_address]);
  return waitForMessage(t, res.body.message_ids[0]);
}
const send = (s: Seed, to = "friend@elsewhere.example") => t.api("POST", `/v1/mailboxes/${s.agent.id}/send`, { body: { to: [to], subject: "Hi", textBody: "Hello" } });

describe("GET /v1/mailboxes/:id/stats", () => {
  test("counts by direction, status, transport, triage and risk; threads, drafts, unreviewed", async () => {
    const s = await seedAccount(t);
    const empty = await t.api("GET", `/v1/mailboxes/${s.agent.id}/stats`);
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({
      mailbox_id: s.agent.id,
      messages: { total: 0, by_direction: { inbound: 0, outbound: 0 }, by_status: {}, unreviewed: 0, unprocessed: 0, processing_failed: 0 },
      threads: { total: 0, open: 0, archived: 0 },
      drafts: 0,
    });
    expect(empty.body.generated_at).toMatch(ISO);

    const a = await receive(s, "Question", "Are you free tomorrow?");
    const b = await receive(s, "News", "Weekly news.", { "List-Unsubscribe": "<mailto:u@outside.example>", "List-Id": "<news.outside.example>" });
    await receive(s, "Scan", "Download http://198.51.100.23/x.pdf");
    expect((await send(s)).status).toBe(201);
    await t.api("POST", `/v1/mailboxes/${s.agent.id}/drafts`, { body: { subject: "later" } });
    await t.api("POST", `/v1/messages/${a.id}/review`);
    await t.api("POST", `/v1/messages/${b.id}/archive`);
    await t.api("POST", `/v1/threads/${b.thread_id}/archive`);

    const res = await t.api("GET", `/v1/mailboxes/${s.agent.id}/stats`);
    expect(res.body.messages).toMatchObject({
      total: 4,
      by_direction: { inbound: 3, outbound: 1 },
      by_transport: { smtp: 4 },
      by_triage_label: { reply_needed: 1, newsletter: 1 },
      by_risk_level: { low: 3, medium: 1 },
      unreviewed: 1,
      unprocessed: 0,
      processing_failed: 0,
    });
    const statuses = res.body.messages.by_status;
    expect(Object.values(statuses).reduce((x: number, y) => x + (y as number), 0)).toBe(4);
    expect(statuses.archived).toBe(1);
    expect(res.body.threads).toEqual({ total: 4, open: 3, archived: 1 });
    expect(res.body.drafts).toBe(1);
  });

  test("a mailbox key reads its own mailbox; others are refused; unknown is 404", async () => {
    const s = await seedAccount(t);
    expect((await t.api("GET", `/v1/mailboxes/${s.agent.id}/stats`, { token: s.agentKey.token })).status).toBe(200);
    expectError(await t.api("GET", `/v1/mailboxes/${s.agent.id}/metrics`, { token: s.primaryKey.token }), 403, "forbidden");
    expectError(await t.api("GET", `/v1/mailboxes/00000000-0000-4000-8000-000000000000/stats`), 404, "not_found");
  });
});

describe("GET /v1/mailboxes/:id/metrics", () => {
  test("hourly series over 24 h and 7 days with traffic, refusals, deliveries and processing time", async () => {
    const s = await seedAccount(t);
    const hooks = startReceiver();
    try {
      await t.api("POST", `/v1/mailboxes/${s.agent.id}/webhooks`, { body: { url: hooks.url, events: ["message.sent"] } });
      await receive(s, "One", "first");
      await receive(s, "Two", "second");
      expect((await send(s)).status).toBe(201);
      // Refused by suppression, by policy, by the rate window: each counted once.
      await t.api("POST", `/v1/accounts/${s.account.id}/suppressions`, { body: { address: "blocked@elsewhere.example" } });
      expectError(await send(s, "blocked@elsewhere.example"), 409, "address_suppressed");
      await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { body: { allow_outbound: false } });
      expectError(await send(s), 403, "outbound_disabled");
      await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { body: { allow_outbound: true, max_outbound_per_day: 1 } });
      expectError(await send(s), 429, "rate_limit_exceeded");
      await waitFor(async () => (hooks.requests.length >= 1 ? true : undefined), "the webhook delivery");

      const metrics = async () => (await t.api("GET", `/v1/mailboxes/${s.agent.id}/metrics`)).body;
      const m = await waitFor(async () => {
        const body = await metrics();
        return body.windows["24h"].totals.webhook_deliveries >= 1 ? body : undefined;
      }, "the delivery to count");
      const day = m.windows["24h"];
      const week = m.windows["7d"];
      expect(day.series.length).toBe(24);
      expect(week.series.length).toBe(168);
      expect(day.bucket_seconds).toBe(3600);
      expect(Date.parse(day.series[1].hour) - Date.parse(day.series[0].hour)).toBe(3_600_000);
      expect(day.series.at(-1).hour).toBe(week.series.at(-1).hour);
      expect(Date.parse(day.to)).toBeGreaterThan(Date.now());
      expect(day.totals).toMatchObject({ inbound: 2, outbound: 1, refused_policy: 1, refused_suppression: 1, refused_rate: 1, webhook_deliveries: 1, webhook_failures: 0 });
      expect(week.totals).toMatchObject({ inbound: 2, outbound: 1, refused_rate: 1 });
      expect(day.totals.processing_ms_p50).toBeGreaterThanOrEqual(0);
      const current = day.series.at(-1);
      expect(current.inbound + (day.series.at(-2)?.inbound ?? 0)).toBe(2);
      const quiet = day.series[0];
      expect(quiet).toMatchObject({ inbound: 0, outbound: 0, processing_ms_p50: null });
    } finally {
      hooks.stop();
    }
  });
});

describe("GET /metrics (Prometheus)", () => {
  test("admin only; requests by route template and status, latency histograms, SMTP sessions, actors, outbox", async () => {
    const s = await seedAccount(t);
    await t.api("GET", `/v1/mailboxes/${s.agent.id}/stats`);
    await t.api("GET", `/v1/messages/00000000-0000-4000-8000-000000000000`);
    await smtpSend(t.service.smtpPort, { from: "x@outside.example", to: [s.agent.email_address] }, rfc822({ From: "x@outside.example", To: s.agent.email_address, Subject: "smtp" }));

    expectError(await t.api("GET", "/metrics", { token: s.agentKey.token }), 403, "forbidden");
    expectError(await t.api("GET", "/metrics", { token: null }), 401, "missing_authorization");
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${t.admin}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
    const text = await res.text();
    expect(text).toContain("# TYPE mailroom_http_requests_total counter");
    expect(text).toMatch(/mailroom_http_requests_total\{method="GET",route="\/v1\/mailboxes\/:mailboxId\/stats",status="200"\} [1-9]/);
    expect(text).toMatch(/mailroom_http_requests_total\{method="GET",route="\/v1\/messages\/:messageId",status="404"\} [1-9]/);
    expect(text).toContain("# TYPE mailroom_http_request_duration_seconds histogram");
    expect(text).toMatch(/mailroom_http_request_duration_seconds_bucket\{method="GET",route="\/v1\/mailboxes\/:mailboxId\/stats",le="\+Inf"\} [1-9]/);
    // No raw ids in labels: one series per route template.
    expect(text).not.toContain(s.agent.id);
    expect(text).toMatch(/mailroom_smtp_sessions_total [1-9]/);
    expect(text).toMatch(/mailroom_smtp_sessions_open \d/);
    expect(text).toMatch(/mailroom_actors_active \d+/);
    expect(text).toMatch(/mailroom_actor_queue_depth \d+/);
    // The arrival above was committed: in a transaction of its own or in one it shared.
    const commits = [...text.matchAll(/^mailroom_actor_commits_total\{kind="arrivals",shared="(true|false)"\} (\d+)$/gm)];
    expect(commits.map((m) => m[1]).sort()).toEqual(["false", "true"]);
    expect(commits.reduce((n, m) => n + Number(m[2]), 0)).toBeGreaterThan(0);
    expect(text).toMatch(/^mailroom_actor_shared_writes_total\{kind="processed"\} \d+$/m);
    expect(text).toMatch(/^mailroom_actor_shared_commits_given_up_total\{kind="arrivals"\} \d+$/m);
    expect(text).toMatch(/^mailroom_actor_merged_statements_total\{kind="processed"\} \d+$/m);
    expect(text).toMatch(/^mailroom_actor_merged_calls_total\{kind="arrivals"\} \d+$/m);
    // How often it counts is test/auth-verdicts.test.ts's: here DNS may answer or fail.
    expect(text).toMatch(/^mailroom_auth_verdicts_reused_total \d+$/m);
    // In-flow control's holds (how often they end each way is test/in-flow.test.ts's).
    expect(text).toMatch(/^mailroom_smtp_in_flow_holds_total\{released="caught_up"\} \d+$/m);
    expect(text).toMatch(/^mailroom_smtp_in_flow_holds_total\{released="max_wait"\} \d+$/m);
    expect(text).toMatch(/^mailroom_smtp_in_flow_held_seconds_total [\d.e+-]+$/m);
    expect(text).toMatch(/^mailroom_smtp_in_flow_lag_seconds [\d.e+-]+$/m);
    expect(text).toContain("# TYPE mailroom_outbox_pending gauge");
    expect(text).toContain("# TYPE mailroom_outbox_lag_seconds gauge");
    // Jobs that end (test/jobs.test.ts makes them non-zero).
    expect(text).toContain("# TYPE mailroom_jobs_failed gauge");
    expect(text).toContain("# TYPE mailroom_jobs_failed_total counter");
    expect(text).toContain("# TYPE mailroom_jobs_retrying gauge");
    expect(text).toContain("# TYPE mailroom_jetstream_pending gauge");
    if (process.env.NATS_URL) expect(text).toMatch(/mailroom_jetstream_pending\{state="pending"\} \d+/);
  });
});
