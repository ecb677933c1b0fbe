import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { expectError, issueKey, seedAccount, startTestService, UUID, waitFor, type TestService } from "./harness.ts";
import { startReceiver } from "./webhook-support.ts";

/**
 * The agent protocol over real HTTP: requests carry the recipient's protocol host in the Host
 * header; a second mailbox (the account's primary) is the sender; a local receiver takes
 * callbacks and checks their signatures.
 */
let t: TestService;
let s: Awaited<ReturnType<typeof seedAccount>>;
let stranger: { id: string; token: string };
const receiver = startReceiver();

const ORDER_ACTION = {
  name: "lookup_order",
  description: "Look up an order",
  parameterSchema: {
    type: "object",
    properties: { order_id: { type: "string", pattern: "^ORD-[0-9]+$" }, detail: { enum: ["short", "full"] } },
    required: ["order_id"],
    additionalProperties: false,
  },
  responseSchema: { type: "object", properties: { status: { type: "string" }, total: { type: "number" } }, required: ["status"] },
};

beforeAll(async () => {
  t = await startTestService();
  s = await seedAccount(t);
  const other = await seedAccount(t);
  stranger = other.agentKey;
  const created = await t.api("POST", `/v1/mailboxes/${s.agent.id}/actions`, { body: ORDER_ACTION });
  if (created.status !== 201) throw new Error(`seed action: ${created.status} ${created.text}`);
});
afterAll(async () => {
  receiver.stop();
  await t.stop();
});

/** A request to the agent mailbox's protocol host (the port is ignored by the service). */
const onHost = (method: string, path: string, opts: Parameters<TestService["api"]>[2] = {}) =>
  t.api(method, path, { ...opts, headers: { host: `${s.agent.protocol_host}:${new URL(t.url).port}`, ...(opts.headers ?? {}) } });
const send = (body: unknown, token: string | null = s.primaryKey.token) => onHost("POST", "/.agent/inbox", { token, body });
const orderMessage = (extra: Record<string, unknown> = {}) => ({ subject: "Where is my order?", action: "lookup_order", parameters: { order_id: "ORD-1" }, ...extra });


describe("discovery", () => {
  test("agent.json: public, the mailbox, its enabled actions with schemas, endpoints and auth", async () => {
    const res = await onHost("GET", "/.well-known/agent.json", { token: null });
    expect(res.status).toBe(200);
    expect(res.body.message_endpoint).toBe(`http://${s.agent.protocol_host}:${new URL(t.url).port}/.agent/inbox`);
    expect(res.body.mailbox).toEqual({ address: s.agent.email_address, protocol_host: s.agent.protocol_host });
    const names = res.body.actions.map((a: { name: string }) => a.name);
    expect(names).toEqual(["send_message", "lookup_order"]);
    expect(res.body.actions[1].parameters).toEqual(ORDER_ACTION.parameterSchema);
    expect(res.body.actions[1].response_schema).toEqual(ORDER_ACTION.responseSchema);
    expect(res.body.authentication.type).toBe("bearer");
    expect(res.body.protocolVersion).toBeUndefined();
  });

  test("the A2A agent card is a different document at its own path", async () => {
    const res = await onHost("GET", "/.well-known/agent-card.json", { token: null });
    expect(res.status).toBe(200);
    expect(res.body.supportedInterfaces[0].url).toEndWith("/.agent/inbox");
    expect(res.body.skills.map((k: { id: string }) => k.id)).toEqual(["send_message", "lookup_order"]);
    expect(res.body.actions).toBeUndefined();
    expect(res.body.message_endpoint).toBeUndefined();
  });

  test("a disabled action is not listed; an unknown host is 404", async () => {
    await t.api("POST", `/v1/mailboxes/${s.agent.id}/actions`, { body: { name: "hidden_one", enabled: false } });
    const res = await onHost("GET", "/.well-known/agent.json", { token: null });
    expect(res.body.actions.map((a: { name: string }) => a.name)).not.toContain("hidden_one");
    expectError(await t.api("GET", "/.well-known/agent.json", { token: null, headers: { host: "nobody.agents.localhost" } }), 404, "not_found");
    expectError(await t.api("GET", "/.well-known/agent.json", { token: null }), 404, "not_found");
  });
});

describe("POST /.agent/inbox", () => {
  test("a valid message is stored as an inbound agent-json message in a thread and processed", async () => {
    const res = await send(orderMessage({ from: { agent: "shop-bot", on_behalf_of: "ann@example.com" }, priority: "high", metadata: { trace: "abc" } }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "received", action: "lookup_order" });
    expect(res.body.id).toMatch(UUID);
    expect(res.body.thread_id).toMatch(UUID);
    expect(res.body.status_url).toEndWith(`/.agent/inbox/${res.body.id}`);

    const processed = await waitFor(async () => {
      const m = await t.api("GET", `/v1/messages/${res.body.id}`);
      return m.body.message.status === "processed" ? m.body.message : undefined;
    }, "processing");
    expect(processed).toMatchObject({ transport: "agent-json", direction: "inbound", from_address: s.primary.email_address, to_address: s.agent.email_address, subject: "Where is my order?", thread_id: res.body.thread_id });
    expect(processed.risk_level).toBeString();
    const listed = await t.api("GET", `/v1/mailboxes/${s.agent.id}/messages?transport=agent-json`);
    expect(listed.body.items.map((m: { id: string }) => m.id)).toContain(res.body.id);

    const status = await onHost("GET", `/.agent/inbox/${res.body.id}`, { token: s.primaryKey.token });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ id: res.body.id, action: "lookup_order", parameters: { order_id: "ORD-1" }, priority: "high", metadata: { trace: "abc" }, response: null, responses_count: 0 });
    expect(status.body.from).toEqual({ address: s.primary.email_address, agent: "shop-bot", on_behalf_of: "ann@example.com", callback_url: null });
  });

  test("the same thread_id from the same sender continues the thread", async () => {
    const a = await send(orderMessage({ thread_id: "conv-1" }));
    const b = await send(orderMessage({ thread_id: "conv-1", parameters: { order_id: "ORD-2" } }));
    const c = await send(orderMessage({ thread_id: "conv-2" }));
    expect(b.body.thread_id).toBe(a.body.thread_id);
    expect(c.body.thread_id).not.toBe(a.body.thread_id);
    // Our own thread id, sent back, also continues it.
    const d = await send(orderMessage({ thread_id: a.body.thread_id }));
    expect(d.body.thread_id).toBe(a.body.thread_id);
  });

  test("a free-form message needs a body and no parameters", async () => {
    const ok = await send({ subject: "Hello", body: "Are you there?" });
    expect(ok.status).toBe(201);
    expect(ok.body.action).toBeNull();
    expectError(await send({ subject: "Hello" }), 400, "validation_error");
    expectError(await send({ subject: "Hello", body: "  " }), 400, "validation_error");
    expectError(await send({ subject: "Hello", body: "x", parameters: { a: 1 } }), 400, "validation_error");
  });

  test("subject must be present and not blank", async () => {
    expectError(await send({ action: "lookup_order", parameters: { order_id: "ORD-1" } }), 400, "validation_error");
    expectError(await send(orderMessage({ subject: "   " })), 400, "validation_error");
  });

  test("an unknown or disabled action is 400 unknown_action, naming the enabled ones", async () => {
    const res = await send(orderMessage({ action: "no_such_action" }));
    expectError(res, 400, "unknown_action");
    expect(res.body.error.details.available).toContain("lookup_order");
    expectError(await send(orderMessage({ action: "hidden_one" })), 400, "unknown_action");
  });

  test("parameters that fail the action's schema are 400 schema_validation_failed with the validator's errors", async () => {
    const res = await send(orderMessage({ parameters: { order_id: "nope", detail: "medium", extra: 1 } }));
    expectError(res, 400, "schema_validation_failed");
    const errors = res.body.error.details.errors as { path: string; keyword: string }[];
    expect(errors.map((e) => e.keyword).sort()).toEqual(["additionalProperties", "enum", "pattern"]);
    expect(errors.find((e) => e.keyword === "pattern")!.path).toBe("order_id");
    expectError(await send(orderMessage({ parameters: {} })), 400, "schema_validation_failed");
    expectError(await send(orderMessage({ parameters: undefined })), 400, "schema_validation_failed");
  });

  test("unknown fields, bad priority and a bad callback URL are 400 validation_error", async () => {
    expectError(await send(orderMessage({ surprise: true })), 400, "validation_error");
    expectError(await send(orderMessage({ priority: "asap" })), 400, "validation_error");
    expectError(await send(orderMessage({ from: { callback_url: "ftp://example.com/x" } })), 400, "validation_error");
  });

  test("authentication: none is 401, the admin token is 403 (a mailbox sends), a bad key 401", async () => {
    expectError(await send(orderMessage(), null), 401, "missing_authorization");
    expectError(await send(orderMessage(), t.admin), 403, "forbidden");
    expectError(await send(orderMessage(), `svc_${crypto.randomUUID()}.${"a".repeat(43)}`), 401, "invalid_token");
  });

  test("a disabled recipient refuses with 403 mailbox_disabled", async () => {
    const other = await seedAccount(t);
    await t.api("POST", `/v1/mailboxes/${other.agent.id}/disable`);
    const res = await t.api("POST", "/.agent/inbox", { token: s.primaryKey.token, body: { subject: "x", body: "y" }, headers: { host: other.agent.protocol_host } });
    expectError(res, 403, "mailbox_disabled");
  });

  test("message.received fires with the protocol fields", async () => {
    const hookReceiver = startReceiver();
    try {
      const other = await seedAccount(t);
      await t.api("POST", `/v1/mailboxes/${other.agent.id}/webhooks`, { body: { url: hookReceiver.url, events: ["message.received", "message.processed"] } });
      const res = await t.api("POST", "/.agent/inbox", { token: s.primaryKey.token, body: { subject: "Ping", body: "hello" }, headers: { host: other.agent.protocol_host } });
      await hookReceiver.waitFor((rs) => rs.length >= 2);
      const received = JSON.parse(hookReceiver.of("message.received")[0]!.body);
      expect(received.data ?? received).toMatchObject({ id: res.body.id, transport: "agent-json", subject: "Ping" });
      const payload = received.data ?? received;
      expect(payload.protocol).toMatchObject({ action: null, status: "received" });
    } finally {
      hookReceiver.stop();
    }
  });
});

describe("status, respond, responses", () => {
  test("status is for the sender and the recipient only; others 404", async () => {
    const sent = await send(orderMessage());
    const path = `/.agent/inbox/${sent.body.id}`;
    expect((await onHost("GET", path, { token: s.primaryKey.token })).status).toBe(200);
    expect((await onHost("GET", path, { token: s.agentKey.token })).status).toBe(200);
    expect((await onHost("GET", path)).status).toBe(200); // admin
    expectError(await onHost("GET", path, { token: stranger.token }), 404, "not_found");
    expectError(await onHost("GET", `/.agent/inbox/${crypto.randomUUID()}`, { token: s.agentKey.token }), 404, "not_found");
    expectError(await onHost("GET", "/.agent/inbox/not-a-uuid", { token: s.agentKey.token }), 404, "not_found");
    expectError(await onHost("GET", `${path}/responses`, { token: stranger.token }), 404, "not_found");
  });

  test("the recipient responds (poll): validated, stored, listed; the message becomes responded", async () => {
    const sent = await send(orderMessage());
    const path = `/.agent/inbox/${sent.body.id}`;
    const res = await onHost("POST", `${path}/respond`, { token: s.agentKey.token, body: { body: "Shipped", structured_data: { status: "shipped", total: 12.5 } } });
    expect(res.status).toBe(201);
    expect(res.body.response).toMatchObject({ protocol_message_id: sent.body.id, body: "Shipped", structured_data: { status: "shipped", total: 12.5 }, delivery_mode: "poll", status: "delivered", responder: "agent" });
    const list = await onHost("GET", `${path}/responses`, { token: s.primaryKey.token });
    expect(list.body.items.map((r: { id: string }) => r.id)).toEqual([res.body.response.id]);
    const status = await onHost("GET", path, { token: s.primaryKey.token });
    expect(status.body.status).toBe("responded");
    expect(status.body.response.id).toBe(res.body.response.id);
  });

  test("respond: the sender is 403, a stranger 404, a bad structured_data 400, an empty answer 400", async () => {
    const sent = await send(orderMessage());
    const path = `/.agent/inbox/${sent.body.id}/respond`;
    expectError(await onHost("POST", path, { token: s.primaryKey.token, body: { body: "me" } }), 403, "forbidden");
    expectError(await onHost("POST", path, { token: stranger.token, body: { body: "me" } }), 404, "not_found");
    const bad = await onHost("POST", path, { token: s.agentKey.token, body: { structured_data: { total: "many" } } });
    expectError(bad, 400, "schema_validation_failed");
    expect(bad.body.error.details.errors.map((e: { keyword: string }) => e.keyword).sort()).toEqual(["required", "type"]);
    expectError(await onHost("POST", path, { token: s.agentKey.token, body: {} }), 400, "validation_error");
  });

  test("with a callback URL the response is POSTed there, signed with the sender's callback secret", async () => {
    const sent = await send(orderMessage({ from: { agent: "shop-bot", callback_url: receiver.url } }));
    expect(sent.status).toBe(201);
    const res = await onHost("POST", `/.agent/inbox/${sent.body.id}/respond`, { token: s.agentKey.token, body: { body: "On its way", structured_data: { status: "in_transit" } } });
    expect(res.body.response).toMatchObject({ delivery_mode: "callback", status: "pending" });
    await receiver.waitFor((rs) => rs.some((r) => JSON.parse(r.body).response?.id === res.body.response.id));
    const got = receiver.requests.find((r) => JSON.parse(r.body).response?.id === res.body.response.id)!;
    const secret = (await t.api("POST", `/v1/mailboxes/${s.primary.id}/callback-secret`)).body.callback_secret;
    expect(got.headers["x-service-callback-signature"]).toBe(createHmac("sha256", secret).update(got.body).digest("hex"));
    expect(got.headers["x-service-event"]).toBe("protocol.response.created");
    const body = JSON.parse(got.body);
    expect(body.response).toMatchObject({ body: "On its way", structured_data: { status: "in_transit" }, delivery_mode: "callback" });
    expect(body.message).toMatchObject({ id: sent.body.id, action: "lookup_order" });
    const delivered = await waitFor(async () => {
      const list = await onHost("GET", `/.agent/inbox/${sent.body.id}/responses`, { token: s.primaryKey.token });
      return list.body.items[0].status === "delivered" ? list.body.items[0] : undefined;
    }, "callback delivered");
    expect(delivered.delivered_at).toBeString();
  });

  test("protocol.response.created reaches the recipient's webhooks", async () => {
    const hookReceiver = startReceiver();
    try {
      const hook = await t.api("POST", `/v1/mailboxes/${s.agent.id}/webhooks`, { body: { url: hookReceiver.url, events: ["protocol.response.created"] } });
      const sent = await send(orderMessage());
      const res = await onHost("POST", `/.agent/inbox/${sent.body.id}/respond`, { token: s.agentKey.token, body: { structured_data: { status: "ok" } } });
      await hookReceiver.waitFor((rs) => rs.length >= 1);
      const payload = JSON.parse(hookReceiver.requests[0]!.body);
      const data = payload.data ?? payload;
      expect(data).toMatchObject({ id: res.body.response.id, protocol_message_id: sent.body.id, body: "", structured_data: { status: "ok" }, delivery_mode: "poll", status: "delivered" });
      await t.api("DELETE", `/v1/webhooks/${hook.body.webhook.id}`);
    } finally {
      hookReceiver.stop();
    }
  });
});

describe("send_message auto-reply", () => {
  test("invoking send_message sends the email through the send path and answers automatically", async () => {
    const sent = await send({ subject: "Please email Bob", action: "send_message", parameters: { to: ["bob@example.com"], subject: "Hello Bob", text: "Hi from the agent" } });
    expect(sent.status).toBe(201);
    const answered = await waitFor(async () => {
      const r = await onHost("GET", `/.agent/inbox/${sent.body.id}`, { token: s.primaryKey.token });
      return r.body.response ? r.body : undefined;
    }, "auto-reply");
    expect(answered.status).toBe("responded");
    expect(answered.response.responder).toBe("auto");
    const emailId = answered.response.structured_data.message_id;
    const email = await t.api("GET", `/v1/messages/${emailId}`);
    expect(email.body.message).toMatchObject({ direction: "outbound", to_address: "bob@example.com", subject: "Hello Bob" });
  });

  test("with allow_auto_reply false nothing is sent and the message says why", async () => {
    const other = await seedAccount(t);
    await t.api("PUT", `/v1/mailboxes/${other.agent.id}/policy`, { body: { allow_auto_reply: false } });
    const sent = await t.api("POST", "/.agent/inbox", {
      token: s.primaryKey.token,
      body: { subject: "Please email Bob", action: "send_message", parameters: { to: ["bob@example.com"], subject: "Hello", text: "Hi" } },
      headers: { host: other.agent.protocol_host },
    });
    const status = await waitFor(async () => {
      const r = await t.api("GET", `/.agent/inbox/${sent.body.id}`, { token: s.primaryKey.token, headers: { host: other.agent.protocol_host } });
      return r.body.error ? r.body : undefined;
    }, "auto-reply refusal");
    expect(status.error.code).toBe("auto_reply_disabled");
    expect(status.response).toBeNull();
    const outbound = await t.api("GET", `/v1/mailboxes/${other.agent.id}/messages?direction=outbound`);
    expect(outbound.body.total).toBe(0);
  });

  test("a suppressed recipient fails the protocol message with the send path's error", async () => {
    const other = await seedAccount(t);
    await t.api("POST", `/v1/accounts/${other.account.id}/suppressions`, { body: { address: "blocked@example.com" } });
    const sent = await t.api("POST", "/.agent/inbox", {
      token: s.primaryKey.token,
      body: { subject: "Email them", action: "send_message", parameters: { to: ["blocked@example.com"], subject: "Hi", text: "Hi" } },
      headers: { host: other.agent.protocol_host },
    });
    const status = await waitFor(async () => {
      const r = await t.api("GET", `/.agent/inbox/${sent.body.id}`, { token: s.primaryKey.token, headers: { host: other.agent.protocol_host } });
      return r.body.status === "failed" ? r.body : undefined;
    }, "failure");
    expect(status.error.code).toBe("address_suppressed");
  });
});

test("a key issued later for the sender works; keys of a third account never see the message", async () => {
  const fresh = await issueKey(t, s.primary.id, "later");
  const sent = await send(orderMessage(), fresh.token);
  expect(sent.status).toBe(201);
  expectError(await onHost("GET", `/.agent/inbox/${sent.body.id}/responses`, { token: stranger.token }), 404, "not_found");
});

test("the raw form of a protocol message is the JSON it was sent as", async () => {
  const sent = await send({ subject: "Raw", body: "kept" });
  const raw = await t.api("GET", `/v1/messages/${sent.body.id}/raw`);
  expect(raw.status).toBe(200);
  expect(raw.headers.get("content-type")).toContain("application/json");
  expect(raw.body).toEqual({ subject: "Raw", body: "kept" });
});
