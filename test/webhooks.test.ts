import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { rowsOf } from "../db/migrate.ts";
import { standardSignature, serviceSignature, standardWebhooksSecret } from "../src/webhooks/signing.ts";
import { expectError, fieldPaths, ISO, issueKey, seedAccount, sleep, startTestService, usingNats, UUID, type TestService } from "./harness.ts";
import { postInbound, rfc822, waitForMessage } from "./mail-support.ts";
import { startReceiver } from "./webhook-support.ts";

let t: TestService;
const FAST = { WEBHOOK_RETRY_DELAYS: "0.05,0.05,0.05,0.05,0.05" };

beforeAll(async () => {
  t = await startTestService(FAST);
});
afterAll(async () => {
  await t.stop();
});

async function endpointFor(mailboxId: string, url: string, events = ["message.received", "message.processed", "message.sent"]) {
  const res = await t.api("POST", `/v1/mailboxes/${mailboxId}/webhooks`, { body: { url, events } });
  expect(res.status).toBe(201);
  return res.body as { webhook: { id: string; status: string }; signing_secret: string; standard_webhooks_secret: string };
}

async function inbound(to: string, subject = "Hello") {
  const res = await postInbound(t, rfc822({ From: "Ann <ann@example.com>", To: to, Subject: subject, "Message-ID": `<${crypto.randomUUID()}@example.com>` }, "Hi there.\r\n"));
  expect(res.status).toBe(202);
  return res.body.message_ids[0] as string;
}

describe("signatures", () => {
  test("x-service-signature: lowercase hex HMAC-SHA256 of the raw body (known answer)", () => {
    expect(serviceSignature("key", "The quick brown fox jumps over the lazy dog")).toBe("f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
  });

  test("Standard Webhooks signature matches the specification's test vector", () => {
    const key = Buffer.from("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "base64");
    expect(standardSignature(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}')).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  test("the whsec_ form carries the same key bytes", () => {
    const secret = "ab".repeat(32);
    expect(Buffer.from(standardWebhooksSecret(secret).slice(6), "base64").toString()).toBe(secret);
  });
});

describe("webhook endpoints", () => {
  let s: Awaited<ReturnType<typeof seedAccount>>;
  beforeAll(async () => {
    s = await seedAccount(t);
  });

  test("create returns the endpoint and a 256-bit hex secret once; list and get never show it", async () => {
    const created = await endpointFor(s.agent.id, "https://hooks.example.com/in", ["message.received"]);
    const id = created.webhook.id;
    expect({ ...created.webhook }).toMatchObject({ id: expect.stringMatching(UUID), url: "https://hooks.example.com/in", events: ["message.received"], status: "active", enabled: true, consecutive_failures: 0 });
    expect(created.signing_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(created.standard_webhooks_secret).toBe(standardWebhooksSecret(created.signing_secret));
    const list = await t.api("GET", `/v1/mailboxes/${s.agent.id}/webhooks`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((w: { id: string }) => w.id)).toContain(id);
    expect(list.text).not.toContain(created.signing_secret);
    const got = await t.api("GET", `/v1/webhooks/${id}`);
    expect(got.body.webhook).toEqual(created.webhook);
    expect(got.body.webhook.created_at).toMatch(ISO);
  });

  test("events outside section 6, an empty list, a bad url or unknown fields are 400 validation_error", async () => {
    for (const body of [
      { url: "https://h.example.com/", events: ["message.deleted"] },
      { url: "https://h.example.com/", events: [] },
      { url: "ftp://h.example.com/", events: ["message.sent"] },
      { url: "not a url", events: ["message.sent"] },
      { url: "https://user:pw@h.example.com/", events: ["message.sent"] },
      { url: "https://h.example.com/", events: ["message.sent"], secret: "mine" },
      { events: ["message.sent"] },
    ]) {
      const res = await t.api("POST", `/v1/mailboxes/${s.agent.id}/webhooks`, { body });
      expectError(res, 400, "validation_error");
    }
    const bad = await t.api("POST", `/v1/mailboxes/${s.agent.id}/webhooks`, { body: { url: "https://h.example.com/", events: ["message.sent", "nope"] } });
    expect(fieldPaths(bad)).toContain("body.events");
  });

  test("admin only; unknown mailbox or endpoint is 404", async () => {
    const key = await issueKey(t, s.agent.id);
    expectError(await t.api("POST", `/v1/mailboxes/${s.agent.id}/webhooks`, { token: key.token, body: { url: "https://h.example.com/", events: ["message.sent"] } }), 403, "forbidden");
    expectError(await t.api("GET", `/v1/mailboxes/${s.agent.id}/webhooks`, { token: key.token }), 403, "forbidden");
    expectError(await t.api("POST", `/v1/mailboxes/${crypto.randomUUID()}/webhooks`, { body: { url: "https://h.example.com/", events: ["message.sent"] } }), 404, "not_found");
    expectError(await t.api("GET", `/v1/webhooks/${crypto.randomUUID()}`), 404, "not_found");
    expectError(await t.api("GET", `/v1/webhooks/${crypto.randomUUID()}/deliveries`), 404, "not_found");
  });

  test("update url, events and enabled; rotate the secret; delete", async () => {
    const created = await endpointFor(s.agent.id, "https://a.example.com/", ["message.sent"]);
    const id = created.webhook.id;
    const patched = await t.api("PATCH", `/v1/webhooks/${id}`, { body: { url: "https://b.example.com/x", events: ["message.received", "message.received"], enabled: false } });
    expect(patched.status).toBe(200);
    expect(patched.body.webhook).toMatchObject({ url: "https://b.example.com/x", events: ["message.received"], enabled: false });
    expectError(await t.api("PATCH", `/v1/webhooks/${id}`, { body: { events: ["bogus"] } }), 400, "validation_error");
    expectError(await t.api("PATCH", `/v1/webhooks/${id}`, { body: { colour: "red" } }), 400, "validation_error");
    const rotated = await t.api("POST", `/v1/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.signing_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.body.signing_secret).not.toBe(created.signing_secret);
    const deleted = await t.api("DELETE", `/v1/webhooks/${id}`);
    expect(deleted.status).toBe(200);
    expectError(await t.api("GET", `/v1/webhooks/${id}`), 404, "not_found");
  });

  test("Idempotency-Key: the same create answers the same endpoint and secret", async () => {
    const headers = { "idempotency-key": `wh-${crypto.randomUUID()}` };
    const body = { url: "https://idem.example.com/", events: ["message.sent"] };
    const a = await t.api("POST", `/v1/mailboxes/${s.agent.id}/webhooks`, { body, headers });
    const b = await t.api("POST", `/v1/mailboxes/${s.agent.id}/webhooks`, { body, headers });
    expect(a.status).toBe(201);
    expect(b.body).toEqual(a.body);
  });
});

describe("delivery", () => {
  test("message.received and message.processed arrive signed both ways, with the section 6 payload", async () => {
    const s = await seedAccount(t);
    const rx = startReceiver();
    try {
      const { signing_secret, standard_webhooks_secret } = await endpointFor(s.agent.id, rx.url);
      const id = await inbound(s.agent.email_address, "Signed delivery");
      await waitForMessage(t, id);
      await rx.waitFor(() => rx.of("message.received").length >= 1 && rx.of("message.processed").length >= 1);
      for (const event of ["message.received", "message.processed"]) {
        const [req] = rx.of(event);
        expect(req!.headers["content-type"]).toBe("application/json");
        expect(req!.headers["x-service-signature"]).toBe(createHmac("sha256", signing_secret).update(req!.body).digest("hex"));
        // Standard Webhooks, checked by its own library (timestamp tolerance included).
        expect(() => new Webhook(standard_webhooks_secret).verify(req!.body, req!.headers)).not.toThrow();
        expect(() => new Webhook(signing_secret, { format: "raw" }).verify(req!.body, req!.headers)).not.toThrow();
        expect(req!.headers["webhook-id"]).toMatch(UUID);
        const payload = JSON.parse(req!.body);
        expect(Object.keys(payload).sort()).toEqual(
          ["attachments", "direction", "from_address", "html_body", "id", "mailbox_id", "risk_level", "status", "subject", "suspicious_signals", "text_body", "thread_id", "to_address", "transport", "triage_label"].sort(),
        );
        expect(payload).toMatchObject({ id, mailbox_id: s.agent.id, direction: "inbound", from_address: "ann@example.com", subject: "Signed delivery" });
      }
      expect(JSON.parse(rx.of("message.processed")[0]!.body)).toMatchObject({ status: "processed", risk_level: expect.any(String), triage_label: expect.any(String) });
      // A tampered body does not verify.
      const [req] = rx.of("message.received");
      expect(() => new Webhook(standard_webhooks_secret).verify(req!.body.replace("Signed", "Forged"), req!.headers)).toThrow();
    } finally {
      rx.stop();
    }
  });

  test("message.sent fires for an outbound send", async () => {
    const s = await seedAccount(t);
    const rx = startReceiver();
    try {
      await endpointFor(s.agent.id, rx.url, ["message.sent"]);
      const sent = await t.api("POST", `/v1/mailboxes/${s.agent.id}/send`, { token: s.agentKey.token, body: { to: ["someone@example.org"], subject: "Out", textBody: "Going out." } });
      expect(sent.status).toBe(201);
      await rx.waitFor(() => rx.of("message.sent").length >= 1);
      expect(JSON.parse(rx.of("message.sent")[0]!.body)).toMatchObject({ id: sent.body.message.id, direction: "outbound", status: "sent", subject: "Out" });
      expect(rx.of("message.received")).toHaveLength(0); // not subscribed
    } finally {
      rx.stop();
    }
  });

  test("a receiver that fails twice then succeeds gets three requests with one webhook-id; history newest first", async () => {
    const s = await seedAccount(t);
    const rx = startReceiver((n) => (n <= 2 ? new Response("down", { status: 503 }) : new Response("fine")));
    try {
      const { webhook } = await endpointFor(s.agent.id, rx.url, ["message.received"]);
      await inbound(s.agent.email_address);
      await rx.waitFor((rs) => rs.length >= 3);
      await sleep(300);
      expect(rx.requests).toHaveLength(3);
      expect(new Set(rx.requests.map((r) => r.headers["webhook-id"])).size).toBe(1);
      const history = await waitForHistory(webhook.id, 3);
      expect(history.map((a: any) => [a.attempt, a.success, a.status_code])).toEqual([
        [3, true, 200],
        [2, false, 503],
        [1, false, 503],
      ]);
      expect(history[0]).toMatchObject({ trigger: "scheduled", response_body: "fine", delivery_id: rx.requests[0]!.headers["webhook-id"], url: rx.url, error: null });
      expect(history[1].error).toContain("503");
      expect(history[0].duration_ms).toBeGreaterThanOrEqual(0);
      expect((await t.api("GET", `/v1/webhooks/${webhook.id}`)).body.webhook).toMatchObject({ status: "active", consecutive_failures: 0 });
      const limited = await t.api("GET", `/v1/webhooks/${webhook.id}/deliveries?limit=1`);
      expect(limited.body.items).toHaveLength(1);
      expectError(await t.api("GET", `/v1/webhooks/${webhook.id}/deliveries?limit=0`), 400, "validation_error");
    } finally {
      rx.stop();
    }
  });

  test("always failing: six requests, then degraded; replay-failed after recovery delivers and sets active", async () => {
    const s = await seedAccount(t);
    let healthy = false;
    const rx = startReceiver(() => (healthy ? new Response("ok") : new Response("no", { status: 500 })));
    try {
      const { webhook } = await endpointFor(s.agent.id, rx.url, ["message.received"]);
      await inbound(s.agent.email_address);
      await rx.waitFor((rs) => rs.length >= 6);
      await sleep(400);
      expect(rx.requests).toHaveLength(6);
      const ep = (await t.api("GET", `/v1/webhooks/${webhook.id}`)).body.webhook;
      expect(ep).toMatchObject({ status: "degraded", consecutive_failures: 6 });

      healthy = true;
      const replay = await t.api("POST", `/v1/webhooks/${webhook.id}/replay-failed`, { body: { since: new Date(Date.now() - 3600_000).toISOString() } });
      expect(replay.status).toBe(202);
      expect(replay.body).toEqual({ replayed: 1 });
      await rx.waitFor((rs) => rs.length >= 7);
      await waitFor(async () => (await t.api("GET", `/v1/webhooks/${webhook.id}`)).body.webhook.status === "active");
      expect(rx.requests[6]!.headers["webhook-id"]).toBe(rx.requests[0]!.headers["webhook-id"]);
      // Nothing left to replay.
      expect((await t.api("POST", `/v1/webhooks/${webhook.id}/replay-failed`)).body).toEqual({ replayed: 0 });
      expectError(await t.api("POST", `/v1/webhooks/${webhook.id}/replay-failed`, { body: { since: "yesterday" } }), 400, "validation_error");
    } finally {
      rx.stop();
    }
  });

  test("replay re-sends one delivery as a new recorded attempt", async () => {
    const s = await seedAccount(t);
    const rx = startReceiver();
    try {
      const { webhook } = await endpointFor(s.agent.id, rx.url, ["message.received"]);
      await inbound(s.agent.email_address);
      await rx.waitFor((rs) => rs.length >= 1);
      const [first] = await waitForHistory(webhook.id, 1);
      const replayed = await t.api("POST", `/v1/webhooks/${webhook.id}/deliveries/${first.delivery_id}/replay`);
      expect(replayed.status).toBe(200);
      expect(replayed.body.attempt).toMatchObject({ delivery_id: first.delivery_id, attempt: 2, trigger: "replay", success: true, status_code: 200 });
      expect(rx.requests).toHaveLength(2);
      expect(rx.requests[1]!.body).toBe(rx.requests[0]!.body);
      const history = await waitForHistory(webhook.id, 2);
      expect(history[0].id).toBe(replayed.body.attempt.id);
      expectError(await t.api("POST", `/v1/webhooks/${webhook.id}/deliveries/${crypto.randomUUID()}/replay`), 404, "not_found");
    } finally {
      rx.stop();
    }
  });

  test("a redirect is a failure and is not followed; the response body kept is at most 4 KiB", async () => {
    const s = await seedAccount(t);
    let target = 0;
    const other = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => (target++, new Response("moved here")) });
    const rx = startReceiver((n) => (n === 1 ? new Response(null, { status: 302, headers: { location: `http://127.0.0.1:${other.port}/` } }) : new Response("x".repeat(100_000))));
    try {
      const { webhook } = await endpointFor(s.agent.id, rx.url, ["message.received"]);
      await inbound(s.agent.email_address);
      const history = await waitForHistory(webhook.id, 2);
      expect(target).toBe(0);
      expect(history[1]).toMatchObject({ success: false, status_code: 302 });
      expect(history[1].error).toContain("redirect");
      expect(history[0]).toMatchObject({ success: true, status_code: 200 });
      expect(history[0].response_body.length).toBe(4096);
    } finally {
      rx.stop();
      other.stop(true);
    }
  });

  test("a disabled endpoint gets nothing; only subscribed events are sent", async () => {
    const s = await seedAccount(t);
    const off = startReceiver();
    const on = startReceiver();
    try {
      const disabled = await endpointFor(s.agent.id, off.url);
      await t.api("PATCH", `/v1/webhooks/${disabled.webhook.id}`, { body: { enabled: false } });
      await endpointFor(s.agent.id, on.url, ["message.processed"]);
      const id = await inbound(s.agent.email_address);
      await waitForMessage(t, id);
      await on.waitFor((rs) => rs.length >= 1);
      await sleep(300);
      expect(off.requests).toHaveLength(0);
      expect(on.requests.map((r) => r.headers["x-service-event"])).toEqual(["message.processed"]);
    } finally {
      off.stop();
      on.stop();
    }
  });

  test("an event no enabled endpoint subscribes to is done when written; one that an endpoint wants wakes the relay and is fanned out", async () => {
    const s = await seedAccount(t);
    const rx = startReceiver();
    let relayWakes = 0;
    const unsubscribe = t.service.internals.events.onRelayWork(() => relayWakes++);
    try {
      const disabled = await endpointFor(s.agent.id, rx.url, ["message.processed"]);
      await t.api("PATCH", `/v1/webhooks/${disabled.webhook.id}`, { body: { enabled: false } });
      await endpointFor(s.agent.id, rx.url, ["message.received"]);
      const id = await inbound(s.agent.email_address);
      await waitForMessage(t, id);
      await rx.waitFor((rs) => rs.length >= 1);
      expect(relayWakes).toBeGreaterThanOrEqual(1);
      const db = t.service.internals.database.db;
      // Done in the transaction that wrote it (done_at is that transaction's now(), as created_at
      // is), or by the relay's later one.
      const rows = rowsOf<{ topic: string; done_on_write: boolean; deliveries: number }>(
        await db.execute(sql`
          select o.topic, o.done_at = o.created_at as done_on_write, (select count(*)::int from webhook_deliveries d where d.event_id = o.id) as deliveries
          from outbox o where o.kind = 'event' and o.mailbox_id = ${s.agent.id} order by o.mailbox_seq`),
      );
      expect(rows).toEqual([
        { topic: "message.received", done_on_write: false, deliveries: 1 },
        { topic: "message.processed", done_on_write: true, deliveries: 0 },
      ]);
      expect(rx.requests.map((r) => r.headers["x-service-event"])).toEqual(["message.received"]);
    } finally {
      unsubscribe();
      rx.stop();
    }
  });

  test("each mailbox's endpoints get only that mailbox's events", async () => {
    const s = await seedAccount(t);
    const a = startReceiver();
    const b = startReceiver();
    try {
      await endpointFor(s.agent.id, a.url, ["message.received"]);
      await endpointFor(s.primary.id, b.url, ["message.received"]);
      await inbound(s.agent.email_address);
      await a.waitFor((rs) => rs.length >= 1);
      await sleep(200);
      expect(b.requests).toHaveLength(0);
    } finally {
      a.stop();
      b.stop();
    }
  });
});

describe("SSRF guard", () => {
  let strict: TestService;
  beforeAll(async () => {
    strict = await startTestService({ ...FAST, ALLOW_PRIVATE_WEBHOOK_TARGETS: "false" });
  });
  afterAll(async () => {
    await strict.stop();
  });

  test("private, loopback, link-local and metadata targets are refused at registration", async () => {
    const s = await seedAccount(strict);
    for (const url of [
      "http://127.0.0.1:8080/",
      "http://localhost/",
      "http://2130706433/",
      "http://0177.0.0.1/",
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://10.1.2.3/",
      "http://192.168.0.1/",
      "http://172.16.0.1/",
      "http://100.64.0.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[fe80::1]/",
      "http://0.0.0.0/",
      "http://224.0.0.1/",
    ]) {
      const res = await strict.api("POST", `/v1/mailboxes/${s.agent.id}/webhooks`, { body: { url, events: ["message.received"] } });
      expectError(res, 400, "validation_error");
      expect(fieldPaths(res)).toEqual(["body.url"]);
    }
  });

  test("a name that does not resolve is taken, and refused again at delivery time", async () => {
    const s = await seedAccount(strict);
    const res = await strict.api("POST", `/v1/mailboxes/${s.agent.id}/webhooks`, { body: { url: "https://hooks.invalid/in", events: ["message.received"] } });
    expect(res.status).toBe(201);
    // Moving an endpoint to a private address later is refused too.
    expectError(await strict.api("PATCH", `/v1/webhooks/${res.body.webhook.id}`, { body: { url: "http://127.0.0.1/" } }), 400, "validation_error");
    const post = await postInbound(strict, rfc822({ From: "ann@example.com", To: s.agent.email_address, Subject: "x" }));
    expect(post.status).toBe(202);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const h = await strict.api("GET", `/v1/webhooks/${res.body.webhook.id}/deliveries`);
      if (h.body.items.length > 0) {
        expect(h.body.items[0]).toMatchObject({ success: false, status_code: null });
        expect(h.body.items[0].error).toContain("refused");
        break;
      }
      if (Date.now() > deadline) throw new Error("no attempt recorded");
      await sleep(50);
    }
  });
});

async function waitForHistory(endpointId: string, n: number, timeoutMs = 20_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.api("GET", `/v1/webhooks/${endpointId}/deliveries`);
    if (res.status === 200 && res.body.items.length >= n) return res.body.items;
    if (Date.now() > deadline) throw new Error(`history of ${endpointId}: ${res.status} ${res.text.slice(0, 300)}`);
    await sleep(25);
  }
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(25);
  }
}

describe("PostgreSQL is the record, NATS the transport", () => {
  test("a delivery the transport lost (overdue, published long ago) is found by the sweeper and delivered", async () => {
    const s = await seedAccount(t);
    const rx = startReceiver();
    try {
      const { webhook } = await endpointFor(s.agent.id, rx.url, ["message.received"]);
      const db = t.service.internals.database.db;
      const id = crypto.randomUUID();
      // As if published and then dropped by a NATS crash: nobody will ever hand it over again.
      await db.execute(sql`
        insert into webhook_deliveries (id, endpoint_id, mailbox_id, event_id, event, body, next_attempt_at, published_at, locked_until, created_at)
        values (${id}, ${webhook.id}, ${s.agent.id}, ${crypto.randomUUID()}, 'message.received', '{"id":"lost"}', now() - interval '1 hour', now() - interval '1 hour', now() + interval '1 hour', now() - interval '1 hour')`);
      if (usingNats) {
        expect((await t.service.internals.webhooks.sweep()).republished).toBeGreaterThanOrEqual(1);
      } else {
        // In-process the queue reads the table itself; only a live claim (the lease) holds a delivery back.
        await db.execute(sql`update webhook_deliveries set locked_until = null where id = ${id}`);
      }
      await rx.waitFor((rs) => rs.some((r) => r.headers["webhook-id"] === id));
      expect(rx.requests.find((r) => r.headers["webhook-id"] === id)!.body).toBe('{"id":"lost"}');
    } finally {
      rx.stop();
    }
  });

  test("events get a per-mailbox sequence in commit order, and fan-out marks them done", async () => {
    const s = await seedAccount(t);
    const id = await inbound(s.agent.email_address);
    await waitForMessage(t, id);
    const db = t.service.internals.database.db;
    const rows = rowsOf<{ mailbox_seq: number; topic: string; done: boolean }>(
      await db.execute(sql`select mailbox_seq::int as mailbox_seq, topic, done_at is not null as done from outbox where kind = 'event' and mailbox_id = ${s.agent.id} order by mailbox_seq`),
    );
    expect(rows.map((r) => [r.mailbox_seq, r.topic])).toEqual([
      [1, "message.received"],
      [2, "message.processed"],
    ]);
    await waitFor(async () => rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from outbox where kind = 'event' and mailbox_id = ${s.agent.id} and done_at is null`))[0]!.n === 0);
  });
});
