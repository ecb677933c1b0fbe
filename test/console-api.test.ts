import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, seedAccount, sleep, startTestService, UUID, type TestService } from "./harness.ts";
import { postInbound, rfc822, waitForMessage } from "./mail-support.ts";
import { startReceiver } from "./webhook-support.ts";

/** What the console needs of the API beyond the spec: /v1/me, the account list, since=now, verdicts, history bodies, deep pages. */
let t: TestService;
let seed: Awaited<ReturnType<typeof seedAccount>>;
beforeAll(async () => {
  t = await startTestService({ WEBHOOK_RETRY_DELAYS: "0.1" });
  seed = await seedAccount(t);
}, 180_000);
afterAll(() => t.stop());

async function deliver(to: string, subject: string, headers: Record<string, string> = {}): Promise<string> {
  const raw = rfc822({ From: "Sender <sender@example.com>", To: to, Subject: subject, Date: new Date().toUTCString(), "Message-ID": `<${crypto.randomUUID()}@example.com>`, ...headers });
  const res = await postInbound(t, raw, [to]);
  expect(res.status).toBe(202);
  return res.body.message_ids[0];
}

describe("GET /v1/me, as the console uses it", () => {
  test("names the admin token", async () => {
    const res = await t.api("GET", "/v1/me");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ principal: "admin", key: null, mailbox: null, account_id: null });
  });

  test("names a key's mailbox and account", async () => {
    const res = await t.api("GET", "/v1/me", { token: seed.agentKey.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ principal: "key", key: { id: seed.agentKey.id, scope: "mailbox" }, account_id: seed.account.id });
    expect(res.body.mailbox).toMatchObject({ id: seed.agent.id, email_address: seed.agent.email_address, kind: "agent", status: "active" });
  });

  test("refuses no token and a revoked key", async () => {
    expectError(await t.api("GET", "/v1/me", { token: null }), 401, "missing_authorization");
    const key = await t.api("POST", `/v1/mailboxes/${seed.primary.id}/api-keys`, { body: { name: "gone", scope: "mailbox" } });
    await t.api("POST", `/v1/mailboxes/${seed.primary.id}/api-keys/${key.body.api_key.id}/revoke`);
    expectError(await t.api("GET", "/v1/me", { token: key.body.token }), 401, "invalid_token");
  });
});

describe("GET /v1/accounts", () => {
  test("lists accounts newest first, paginated, for the admin only", async () => {
    const second = await seedAccount(t);
    const res = await t.api("GET", "/v1/accounts?limit=1");
    expect(res.status).toBe(200);
    expect(res.body.limit).toBe(1);
    expect(res.body.total).toBeGreaterThanOrEqual(2);
    expect(res.body.items[0].id).toBe(second.account.id);
    const next = await t.api("GET", "/v1/accounts?limit=1&page=2");
    expect(next.body.items[0].id).not.toBe(second.account.id);
    expect(next.body.items[0]).toMatchObject({ id: expect.stringMatching(UUID), slug: expect.any(String), display_name: expect.any(String), status: "active" });
    expectError(await t.api("GET", "/v1/accounts", { token: seed.agentKey.token }), 403, "forbidden");
    expectError(await t.api("GET", "/v1/accounts?limit=101"), 400, "validation_error");
  });
});

describe("the event stream from now", () => {
  test("since=now sends only what happens after the stream opened", async () => {
    const old = await deliver(seed.agent.email_address, "before the stream");
    await waitForMessage(t, old, ["processed"], 40_000);
    const abort = new AbortController();
    const res = await fetch(`${t.url}/v1/mailboxes/${seed.agent.id}/events?since=now`, { headers: { authorization: `Bearer ${seed.agentKey.token}` }, signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    await sleep(200);
    const fresh = await deliver(seed.agent.email_address, "after the stream");
    const deadline = Date.now() + 20_000;
    while (!text.includes(fresh) && Date.now() < deadline) {
      const { value, done } = await Promise.race([reader.read(), sleep(Math.max(1, deadline - Date.now())).then(() => ({ value: "", done: false }))]);
      if (done) break;
      text += value ?? "";
    }
    abort.abort();
    expect(text).toContain(fresh);
    expect(text).not.toContain(old);
    expectError(await t.api("GET", `/v1/mailboxes/${seed.agent.id}/events?since=later`), 400, "validation_error");
  });
});

describe("what the console shows of a message", () => {
  test("inbound mail carries its SPF/DKIM/DMARC verdicts; outbound mail none", async () => {
    const id = await deliver(seed.agent.email_address, "verdicts");
    const m = await waitForMessage(t, id, ["processed"], 40_000);
    expect(m.authentication).toEqual({ spf: expect.any(String), dkim: expect.any(String), dmarc: expect.any(String) });
    expect(m.authentication.spf).toBe("none"); // HTTP ingress: no client IP
    const sent = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/send`, { body: { to: ["someone@example.com"], subject: "out", textBody: "hi" } });
    expect(sent.status).toBe(201);
    expect(sent.body.message.authentication).toBeNull();
  });

  test("deep pages hold the same messages, in the same order, as one long walk", async () => {
    const mailbox = seed.primary;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await deliver(mailbox.email_address, `page walk ${i}`));
    const all = await t.api("GET", `/v1/mailboxes/${mailbox.id}/messages?limit=100`);
    const walked: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const r = await t.api("GET", `/v1/mailboxes/${mailbox.id}/messages?limit=2&page=${page}`);
      expect(r.body.total).toBe(all.body.total);
      walked.push(...r.body.items.map((m: { id: string }) => m.id));
    }
    expect(walked).toEqual(all.body.items.map((m: { id: string }) => m.id));
    expect(new Set(walked)).toEqual(new Set(ids));
  });
});

describe("webhook history for the console", () => {
  test("each attempt names its event, the request body sent and the delivery's state", async () => {
    const receiver = startReceiver(() => new Response("nope", { status: 500 }));
    try {
      const hook = await t.api("POST", `/v1/mailboxes/${seed.primary.id}/webhooks`, { body: { url: receiver.url, events: ["message.received"] } });
      expect(hook.status).toBe(201);
      const id = await deliver(seed.primary.email_address, "history body");
      let items: any[] = [];
      for (let i = 0; i < 200 && !items.some((a) => a.delivery_status === "failed"); i++) {
        await sleep(50);
        items = (await t.api("GET", `/v1/webhooks/${hook.body.webhook.id}/deliveries`)).body.items;
      }
      const attempt = items.find((a) => a.delivery_status === "failed");
      expect(attempt).toBeDefined();
      expect(attempt.event).toBe("message.received");
      expect(JSON.parse(attempt.request_body).id).toBe(id);
      expect(attempt.status_code).toBe(500);
      // The replay answer is the attempt alone, as before.
      const replay = await t.api("POST", `/v1/webhooks/${hook.body.webhook.id}/deliveries/${attempt.delivery_id}/replay`);
      expect(replay.status).toBe(200);
      expect(replay.body.attempt.trigger).toBe("replay");
      expect(replay.body.attempt.request_body).toBeUndefined();
    } finally {
      receiver.stop();
    }
  });
});
