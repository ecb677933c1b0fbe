import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { expectError, fieldPaths, ISO, seedAccount, sleep, startTestService, uniqueSlug, UUID, waitFor, type ApiResponse, type RequestOpts, type TestService } from "./harness.ts";
import { rfc822, waitForMessage } from "./mail-support.ts";
import { startReceiver } from "./webhook-support.ts";

/**
 * The agent-runtime binding over real HTTP: the admin binds a mailbox to a runtime, processed
 * inbound messages are POSTed to it (signed, logged in the routing log), and the runtime's own
 * key is held to its permission tier and policy mode. Runtimes are local receivers.
 */
let t: TestService;
// Answers every routed message with 200.
const runtime = startReceiver();
// Always fails, to exhaust the (shortened) retry schedule.
const broken = startReceiver(() => new Response("down", { status: 500 }));

beforeAll(async () => {
  // Quick retries so a failing runtime reaches `failed` within a test.
  t = await startTestService({ WEBHOOK_RETRY_DELAYS: "0.05,0.05" });
});
afterAll(async () => {
  runtime.stop();
  broken.stop();
  await t.stop();
});

type Seed = Awaited<ReturnType<typeof seedAccount>>;
const GHOST_MAILBOX = "00000000-0000-4000-8000-000000000000";
const BINDING_FIELDS = ["agentId", "createdAt", "deliveryUrl", "enabled", "mailboxId", "permissionTier", "personaLabel", "policyMode", "runtimeBaseUrl", "runtimeKeyId", "updatedAt"];

const bindingPath = (mailboxId: string) => `/v1/mailboxes/${mailboxId}/agent-runtime-binding`;
const bind = (mailboxId: string, body: Record<string, unknown>, token?: string | null) => t.api("POST", bindingPath(mailboxId), { body, token });

/** Creates a binding (201) and answers it with its runtime token and signing secret. */
async function createBinding(mailboxId: string, body: Record<string, unknown>) {
  const res = await bind(mailboxId, { agentId: "agent-007", runtimeBaseUrl: runtime.url, ...body });
  if (res.status !== 201) throw new Error(`create binding failed: ${res.status} ${res.text}`);
  return res.body as { binding: Record<string, unknown>; runtime_token: string; signing_secret: string };
}

/** An email delivered to `to` over the HTTP ingress; answers the message id. */
async function deliver(to: string, subject: string, from = "ann@example.com"): Promise<string> {
  const raw = rfc822({ From: from, To: to, Subject: subject, "Message-ID": `<${crypto.randomUUID()}@example.com>`, Date: new Date().toUTCString() }, "Hello from the outside.\r\n");
  const res = await t.api("POST", `/v1/inbound/email?to=${encodeURIComponent(to)}`, { rawBody: raw, headers: { "content-type": "message/rfc822" } });
  if (res.status !== 202) throw new Error(`inbound failed: ${res.status} ${res.text}`);
  return res.body.message_ids[0];
}

interface RuntimeEvent {
  id: string;
  mailbox_id: string;
  message_id: string | null;
  kind: string;
  detail: string;
  data: Record<string, unknown>;
  delivery_id: string | null;
  created_at: string;
}

/** The routing log of one mailbox, newest first. */
async function eventsOf(mailboxId: string): Promise<RuntimeEvent[]> {
  const res = await t.api("GET", `/v1/admin/agent-runtime-events?mailboxId=${mailboxId}&limit=500`);
  if (res.status !== 200) throw new Error(`events failed: ${res.status} ${res.text}`);
  return res.body.items;
}


/** The routing-log kinds of one message, newest first, once `done` holds for them. */
const kindsOnceDone = (mailboxId: string, messageId: string, done: (kinds: string[]) => boolean) =>
  waitFor(async () => {
    const kinds = (await eventsOf(mailboxId)).filter((e) => e.message_id === messageId).map((e) => e.kind);
    return done(kinds) ? kinds : undefined;
  }, `routing log of ${messageId}`);

/** The runtime requests that carry message `id`. */
const requestsFor = (rx: ReturnType<typeof startReceiver>, id: string) => rx.requests.filter((r) => JSON.parse(r.body).message?.id === id);

describe("binding: create, read, update, delete", () => {
  let s: Seed;
  beforeAll(async () => {
    s = await seedAccount(t);
  });

  test("create: 201 with the defaults, the runtime token and the signing secret (shown once)", async () => {
    const res = await bind(s.agent.id, { agentId: "support-bot", runtimeBaseUrl: "http://127.0.0.1:9/base/" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["binding", "runtime_token", "signing_secret"]);
    const b = res.body.binding;
    expect(Object.keys(b).sort()).toEqual(BINDING_FIELDS);
    expect(b).toMatchObject({ mailboxId: s.agent.id, agentId: "support-bot", permissionTier: "draft", policyMode: "draft-first", personaLabel: "default", enabled: true });
    // The delivery URL drops the base URL's trailing slash.
    expect(b.deliveryUrl).toBe("http://127.0.0.1:9/base/mailroom/messages");
    expect(b.runtimeKeyId).toMatch(UUID);
    expect(b.createdAt).toMatch(ISO);
    expect(b.updatedAt).toMatch(ISO);
    expect(res.body.runtime_token).toStartWith("svc_");
    expect(res.body.signing_secret).toBeString();
    expect(res.body.signing_secret.length).toBeGreaterThan(0);

    const got = await t.api("GET", bindingPath(s.agent.id));
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ binding: b });
  });

  test("update: 200 with only the binding, changing only the fields given", async () => {
    const before = (await t.api("GET", bindingPath(s.agent.id))).body.binding;
    const res = await bind(s.agent.id, { permissionTier: "admin-lite", personaLabel: "night shift" });
    expect(res.status).toBe(200);
    // No new secrets on update.
    expect(Object.keys(res.body)).toEqual(["binding"]);
    expect(res.body.binding).toEqual({ ...before, permissionTier: "admin-lite", personaLabel: "night shift", updatedAt: res.body.binding.updatedAt });
    const again = await bind(s.agent.id, { policyMode: "observe", enabled: false, runtimeBaseUrl: "https://runtime.example.com/v2" });
    expect(again.status).toBe(200);
    expect(again.body.binding).toMatchObject({
      agentId: "support-bot",
      permissionTier: "admin-lite",
      personaLabel: "night shift",
      policyMode: "observe",
      enabled: false,
      runtimeBaseUrl: "https://runtime.example.com/v2",
      deliveryUrl: "https://runtime.example.com/v2/mailroom/messages",
      runtimeKeyId: before.runtimeKeyId,
      createdAt: before.createdAt,
    });
  });

  test("the admin list holds the binding", async () => {
    const res = await t.api("GET", "/v1/admin/agent-runtime-bindings");
    expect(res.status).toBe(200);
    const mine = res.body.items.find((b: { mailboxId: string }) => b.mailboxId === s.agent.id);
    expect(mine).toEqual((await t.api("GET", bindingPath(s.agent.id))).body.binding);
    expect(Object.keys(mine).sort()).toEqual(BINDING_FIELDS);
  });

  test("invalid values are 400 validation_error and change nothing", async () => {
    const before = (await t.api("GET", bindingPath(s.agent.id))).body.binding;
    for (const body of [
      { permissionTier: "root" },
      { policyMode: "yolo" },
      { surprise: true },
      { runtimeBaseUrl: "ftp://runtime.example.com/" },
      { runtimeBaseUrl: "not a url" },
      { enabled: "yes" },
      { agentId: "" },
    ]) {
      expectError(await bind(s.agent.id, body), 400, "validation_error");
    }
    expect((await t.api("GET", bindingPath(s.agent.id))).body.binding).toEqual(before);
  });

  test("creating needs agentId and runtimeBaseUrl; a mailbox without a binding is 404 to GET", async () => {
    const other = await seedAccount(t);
    expectError(await t.api("GET", bindingPath(other.agent.id)), 404, "not_found");
    const noAgent = await bind(other.agent.id, { runtimeBaseUrl: runtime.url });
    expectError(noAgent, 400, "validation_error");
    expect(fieldPaths(noAgent).join(" ")).toContain("agentId");
    expectError(await bind(other.agent.id, { agentId: "a" }), 400, "validation_error");
    expectError(await bind(other.agent.id, { agentId: "a", runtimeBaseUrl: "javascript:alert(1)" }), 400, "validation_error");
    // Nothing was created by the refusals.
    expectError(await t.api("GET", bindingPath(other.agent.id)), 404, "not_found");
  });

  test("an unknown mailbox is 404", async () => {
    expectError(await bind(GHOST_MAILBOX, { agentId: "a", runtimeBaseUrl: runtime.url }), 404, "not_found");
    expectError(await t.api("GET", bindingPath(GHOST_MAILBOX)), 404, "not_found");
    expectError(await t.api("DELETE", bindingPath(GHOST_MAILBOX)), 404, "not_found");
  });

  test("delete: 200 with the binding, revokes the runtime token at once, then 404", async () => {
    const other = await seedAccount(t);
    const created = await createBinding(other.agent.id, { permissionTier: "admin" });
    const ok = await t.api("GET", `/v1/mailboxes/${other.agent.id}/messages`, { token: created.runtime_token });
    expect(ok.status).toBe(200);

    const res = await t.api("DELETE", bindingPath(other.agent.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ binding: created.binding });

    expectError(await t.api("GET", `/v1/mailboxes/${other.agent.id}/messages`, { token: created.runtime_token }), 401, "invalid_token");
    expectError(await t.api("GET", bindingPath(other.agent.id)), 404, "not_found");
    expectError(await t.api("DELETE", bindingPath(other.agent.id)), 404, "not_found");
    const list = await t.api("GET", "/v1/admin/agent-runtime-bindings");
    expect(list.body.items.map((b: { mailboxId: string }) => b.mailboxId)).not.toContain(other.agent.id);
    // The mailbox's own key is untouched.
    expect((await t.api("GET", `/v1/mailboxes/${other.agent.id}/messages`, { token: other.agentKey.token })).status).toBe(200);
  });

  test("every binding endpoint is admin-only: a mailbox key or runtime token is 403, no token 401", async () => {
    const other = await seedAccount(t);
    const created = await createBinding(other.agent.id, { permissionTier: "admin" });
    const calls: [string, string, RequestOpts["body"]][] = [
      ["POST", bindingPath(other.agent.id), { enabled: false }],
      ["GET", bindingPath(other.agent.id), undefined],
      ["DELETE", bindingPath(other.agent.id), undefined],
      ["GET", "/v1/admin/agent-runtime-bindings", undefined],
      ["GET", "/v1/admin/agent-runtime-events", undefined],
    ];
    for (const [method, path, body] of calls) {
      expectError(await t.api(method, path, { token: other.agentKey.token, body }), 403, "forbidden");
      expectError(await t.api(method, path, { token: created.runtime_token, body }), 403, "forbidden");
      expectError(await t.api(method, path, { token: null, body }), 401, "missing_authorization");
    }
    // None of the refused calls changed the binding.
    expect((await t.api("GET", bindingPath(other.agent.id))).body).toEqual({ binding: created.binding });
  });
});

describe("routing processed inbound messages to the runtime", () => {
  let s: Seed;
  let secret: string;
  beforeAll(async () => {
    s = await seedAccount(t);
    const created = await createBinding(s.agent.id, { agentId: "router-1", personaLabel: "support", permissionTier: "send", policyMode: "auto-send" });
    secret = created.signing_secret;
  });

  test("an email is POSTed to {runtimeBaseUrl}/mailroom/messages, signed, with the binding and the message", async () => {
    const id = await deliver(s.agent.email_address, "Routing check", "ann@example.com");
    await runtime.waitFor(() => requestsFor(runtime, id).length > 0);
    const [req] = requestsFor(runtime, id);
    expect(req!.path).toBe("/hook/mailroom/messages");
    expect(req!.headers["x-service-event"]).toBe("message.routed");
    expect(req!.headers["x-service-signature"]).toBe(createHmac("sha256", secret).update(req!.body).digest("hex"));
    expect(req!.headers["webhook-id"]).toBeTruthy();

    const body = JSON.parse(req!.body);
    expect(body).toMatchObject({
      event: "message.routed",
      agent_id: "router-1",
      persona_label: "support",
      permission_tier: "send",
      policy_mode: "auto-send",
      mailbox: { id: s.agent.id, email_address: s.agent.email_address, protocol_host: s.agent.protocol_host },
      message: { id, transport: "smtp", subject: "Routing check", from_address: "ann@example.com" },
      routing: { priority: "normal", notes: [] },
    });

    // The log: routed (naming the delivery the runtime saw), then delivered; newest first.
    const kinds = await kindsOnceDone(s.agent.id, id, (k) => k.includes("delivered"));
    expect(kinds).toEqual(["delivered", "routed"]);
    const events = (await eventsOf(s.agent.id)).filter((e) => e.message_id === id);
    const routed = events.find((e) => e.kind === "routed")!;
    expect(routed.delivery_id).toBe(req!.headers["webhook-id"]!);
    expect(routed.mailbox_id).toBe(s.agent.id);
    expect(routed.created_at).toMatch(ISO);
    expect(events.find((e) => e.kind === "delivered")!.delivery_id).toBe(routed.delivery_id);
  });

  test("a protocol message is routed too", async () => {
    const sent = await t.api("POST", "/.agent/inbox", {
      token: s.primaryKey.token,
      body: { subject: "Protocol ping", body: "are you there?" },
      headers: { host: `${s.agent.protocol_host}:${new URL(t.url).port}` },
    });
    expect(sent.status).toBe(201);
    await runtime.waitFor(() => requestsFor(runtime, sent.body.id).length > 0);
    const body = JSON.parse(requestsFor(runtime, sent.body.id)[0]!.body);
    expect(body.message).toMatchObject({ id: sent.body.id, transport: "agent-json", subject: "Protocol ping", from_address: s.primary.email_address });
    expect(body.mailbox.id).toBe(s.agent.id);
    await kindsOnceDone(s.agent.id, sent.body.id, (k) => k.includes("delivered"));
  });

  test("a runtime answering 500 gets retries (retrying) and finally failed", async () => {
    const other = await seedAccount(t);
    await createBinding(other.agent.id, { runtimeBaseUrl: broken.url });
    const id = await deliver(other.agent.email_address, "Nobody home");
    const kinds = await kindsOnceDone(other.agent.id, id, (k) => k.includes("failed"));
    // Newest first: failed, the retries, and the routing at the bottom.
    expect(kinds[0]).toBe("failed");
    expect(kinds.at(-1)).toBe("routed");
    expect(kinds.filter((k) => k === "retrying").length).toBeGreaterThanOrEqual(1);
    expect(kinds.filter((k) => k === "failed")).toHaveLength(1);
    expect(kinds).not.toContain("delivered");
    // Every attempt reached the runtime as the same delivery.
    const attempts = requestsFor(broken, id);
    expect(attempts.length).toBe(kinds.length - 1);
    expect(new Set(attempts.map((r) => r.headers["webhook-id"])).size).toBe(1);
  });

  test("a disabled binding routes nothing; enabled again, it routes", async () => {
    const other = await seedAccount(t);
    await createBinding(other.agent.id, { enabled: false });
    const quiet = await deliver(other.agent.email_address, "While disabled");
    // Routing is decided in the transaction that marks the message processed: once it is, the log is final.
    await waitForMessage(t, quiet);
    expect((await eventsOf(other.agent.id)).filter((e) => e.message_id === quiet)).toEqual([]);

    expect((await bind(other.agent.id, { enabled: true })).status).toBe(200);
    const loud = await deliver(other.agent.email_address, "While enabled");
    await runtime.waitFor(() => requestsFor(runtime, loud).length > 0);
    // The later message arrived; the earlier one never did.
    expect(requestsFor(runtime, quiet)).toEqual([]);
  });
});

describe("the routing log endpoint", () => {
  test("newest first, limited by limit, filtered by mailboxId", async () => {
    const s = await seedAccount(t);
    await createBinding(s.agent.id, {});
    const first = await deliver(s.agent.email_address, "Log one");
    await kindsOnceDone(s.agent.id, first, (k) => k.includes("delivered"));
    const second = await deliver(s.agent.email_address, "Log two");
    await kindsOnceDone(s.agent.id, second, (k) => k.includes("delivered"));

    const all = await eventsOf(s.agent.id);
    expect(all.every((e) => e.mailbox_id === s.agent.id)).toBe(true);
    expect(all.map((e) => [e.message_id, e.kind])).toEqual([
      [second, "delivered"],
      [second, "routed"],
      [first, "delivered"],
      [first, "routed"],
    ]);
    for (const e of all) {
      expect(Object.keys(e).sort()).toEqual(["created_at", "data", "delivery_id", "detail", "id", "kind", "mailbox_id", "message_id"]);
      expect(e.id).toMatch(UUID);
      expect(e.data).toBeObject();
      expect(typeof e.detail).toBe("string");
    }
    const one = await t.api("GET", `/v1/admin/agent-runtime-events?mailboxId=${s.agent.id}&limit=1`);
    expect(one.status).toBe(200);
    expect(one.body.items).toEqual([all[0]]);
    // Without a filter: every mailbox's events, at most the default 50.
    const unfiltered = await t.api("GET", "/v1/admin/agent-runtime-events");
    expect(unfiltered.status).toBe(200);
    expect(unfiltered.body.items.length).toBeGreaterThan(0);
    expect(unfiltered.body.items.length).toBeLessThanOrEqual(50);
    expect((await t.api("GET", "/v1/admin/agent-runtime-events?limit=500")).status).toBe(200);
  });

  test("limit outside 1–500 and a mailboxId that is not a UUID are 400 validation_error", async () => {
    for (const query of ["limit=0", "limit=501", "limit=-1", "limit=abc", "mailboxId=not-a-uuid"]) {
      expectError(await t.api("GET", `/v1/admin/agent-runtime-events?${query}`), 400, "validation_error");
    }
  });
});

describe("the runtime token and permission tiers", () => {
  let s: Seed;
  let token: string;
  let inboundId: string;
  let inboundThreadId: string;
  let profileId: string;

  beforeAll(async () => {
    s = await seedAccount(t);
    // auto-send: here a permitted send is an ordinary 201, so only the tier is under test.
    const created = await createBinding(s.agent.id, { permissionTier: "read-only", policyMode: "auto-send" });
    token = created.runtime_token;
    inboundId = await deliver(s.agent.email_address, "For the tier checks");
    inboundThreadId = (await waitForMessage(t, inboundId)).thread_id;
    const profile = await t.api("POST", `/v1/accounts/${s.account.id}/sender-profiles`, { body: { address: "someone@example.com" } });
    expect(profile.status).toBe(201);
    profileId = profile.body.sender_profile.id;
  });

  const setTier = async (permissionTier: string) => {
    const res = await bind(s.agent.id, { permissionTier });
    expect(res.status).toBe(200);
    expect(res.body.binding.permissionTier).toBe(permissionTier);
  };
  const asRuntime = (method: string, path: string, body?: unknown) => t.api(method, path, { token, body });

  /** One call per capability; each answers a fresh request (names are unique so repeats succeed). */
  const calls = {
    read: () => asRuntime("GET", `/v1/mailboxes/${s.agent.id}/messages`),
    draft: () => asRuntime("POST", `/v1/mailboxes/${s.agent.id}/drafts`, { to: ["x@example.com"], subject: "draft by runtime" }),
    send: () => asRuntime("POST", `/v1/mailboxes/${s.agent.id}/send`, { to: ["x@example.com"], subject: "sent by runtime", textBody: "hi" }),
    label: () => asRuntime("POST", `/v1/mailboxes/${s.agent.id}/labels`, { name: uniqueSlug("label") }),
    action: () => asRuntime("POST", `/v1/mailboxes/${s.agent.id}/actions`, { name: uniqueSlug("act").replace("-", "_") }),
    policy: () => asRuntime("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { allow_auto_reply: true }),
    autopilot: () => asRuntime("PUT", `/v1/mailboxes/${s.agent.id}/autopilot`, { mode: "observe" }),
    archive: () => asRuntime("POST", `/v1/messages/${inboundId}/archive`),
    // Disabling is followed by enabling (with the admin token) so later calls still find the mailbox enabled.
    disable: async () => {
      const res = await asRuntime("POST", `/v1/mailboxes/${s.agent.id}/disable`);
      if (res.status === 200) await t.api("POST", `/v1/mailboxes/${s.agent.id}/enable`);
      return res;
    },
  };
  type Call = keyof typeof calls;
  const SUCCESS: Record<Call, number> = { read: 200, draft: 201, send: 201, label: 201, action: 201, policy: 200, autopilot: 200, archive: 200, disable: 200 };

  /** Runs every call: the allowed ones succeed, the others are 403 forbidden naming the tier. */
  async function expectTier(tier: string, allowed: Call[]) {
    await setTier(tier);
    for (const name of Object.keys(calls) as Call[]) {
      const res: ApiResponse = await calls[name]();
      if (allowed.includes(name)) {
        expect({ call: name, status: res.status }).toEqual({ call: name, status: SUCCESS[name] });
      } else {
        expect({ call: name, status: res.status }).toEqual({ call: name, status: 403 });
        expectError(res, 403, "forbidden");
        expect(res.body.error.details.permission_tier).toBe(tier);
      }
    }
    // POSTs that only read (a search, results made from the mail) need `read`, which every tier has.
    for (const [path, body] of [
      [`/v1/mailboxes/${s.agent.id}/search`, { query: "tier" }],
      [`/v1/messages/${inboundId}/summary`, {}],
      [`/v1/messages/${inboundId}/extractions`, { force: true }],
      [`/v1/threads/${inboundThreadId}/digest`, undefined],
    ] as const) {
      const res = await asRuntime("POST", path, body);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
    // Admin-token routes are never a runtime's, whatever its tier.
    expectError(await asRuntime("POST", `/v1/mailboxes/${s.agent.id}/webhooks`, { url: "https://hooks.example.com/x", events: ["message.received"] }), 403, "forbidden");
    expectError(await asRuntime("POST", `/v1/mailboxes/${s.agent.id}/api-keys`, { name: "escalate", scope: "mailbox" }), 403, "forbidden");
    expectError(await asRuntime("POST", `/v1/accounts/${s.account.id}/sender-profiles`, { address: "other@example.com" }), 403, "forbidden");
    expectError(await asRuntime("GET", `/v1/sender-profiles/${profileId}`), 403, "forbidden");
    expectError(await asRuntime("PATCH", `/v1/sender-profiles/${profileId}`, { disposition: "trusted" }), 403, "forbidden");
    expectError(await asRuntime("POST", `/v1/sender-profiles/${profileId}/intelligence`, {}), 403, "forbidden");
    expectError(await asRuntime("GET", "/metrics"), 403, "forbidden");
  }

  test("read-only: reads only", () => expectTier("read-only", ["read"]));
  test("draft: reads and drafts", () => expectTier("draft", ["read", "draft"]));
  test("send: adds send", () => expectTier("send", ["read", "draft", "send"]));
  test("admin-lite: adds labels, actions, policy and autopilot, but not disable or archive", () =>
    expectTier("admin-lite", ["read", "draft", "send", "label", "action", "policy", "autopilot"]));
  test("admin: every mailbox operation", () => expectTier("admin", Object.keys(calls) as Call[]));

  test("send tier: reply, draft send and protocol respond are allowed, labelling a message is not", async () => {
    // A protocol message to the bound mailbox: the runtime answers it for the recipient.
    const question = await t.api("POST", "/.agent/inbox", { token: s.primaryKey.token, body: { subject: "Ping", body: "hello?" }, headers: { host: s.agent.protocol_host } });
    expect(question.status).toBe(201);
    await setTier("draft");
    const respond = () => t.api("POST", `/.agent/inbox/${question.body.id}/respond`, { token, body: { body: "pong" }, headers: { host: s.agent.protocol_host } });
    const refused = await respond();
    expectError(refused, 403, "forbidden");
    expect(refused.body.error.details.permission_tier).toBe("draft");

    await setTier("send");
    const answered = await respond();
    expect(answered.status).toBe(201);
    expect(answered.body.response).toMatchObject({ protocol_message_id: question.body.id, body: "pong" });
    const draft = await t.api("POST", `/v1/mailboxes/${s.agent.id}/drafts`, { token: s.agentKey.token, body: { to: ["y@example.com"], subject: "to send", textBody: "x" } });
    const sent = await asRuntime("POST", `/v1/drafts/${draft.body.draft.id}/send`);
    expect(sent.status).toBe(201);
    const reply = await asRuntime("POST", `/v1/messages/${inboundId}/reply`, { textBody: "thanks" });
    expect(reply.status).toBe(201);
    const label = await t.api("POST", `/v1/mailboxes/${s.agent.id}/labels`, { body: { name: uniqueSlug("l") } });
    const res = await asRuntime("POST", `/v1/messages/${inboundId}/labels/${label.body.label.id}`);
    expectError(res, 403, "forbidden");
    expect(res.body.error.details.permission_tier).toBe("send");
  });

  test("a tier change takes effect on the very next call", async () => {
    await setTier("read-only");
    expectError(await calls.draft(), 403, "forbidden");
    await setTier("draft");
    expect((await calls.draft()).status).toBe(201);
    await setTier("read-only");
    expectError(await calls.draft(), 403, "forbidden");
  });

  test("the token is for the bound mailbox only, even at tier admin", async () => {
    await setTier("admin");
    expectError(await asRuntime("GET", `/v1/mailboxes/${s.primary.id}/messages`), 403, "forbidden");
    expectError(await asRuntime("GET", `/v1/mailboxes/${s.primary.id}`), 403, "forbidden");
    // Routes named by a resource: a message of the primary mailbox is not the runtime's either.
    const foreign = await deliver(s.primary.email_address, "For the primary mailbox");
    await waitForMessage(t, foreign);
    expectError(await asRuntime("GET", `/v1/messages/${foreign}`), 403, "forbidden");
    expectError(await asRuntime("POST", `/v1/messages/${foreign}/archive`), 403, "forbidden");
    expect((await t.api("GET", `/v1/messages/${foreign}`)).body.message.status).toBe("processed");
    const stranger = await seedAccount(t);
    expectError(await asRuntime("GET", `/v1/mailboxes/${stranger.agent.id}/messages`), 403, "forbidden");
    expectError(await asRuntime("POST", `/v1/mailboxes/${stranger.agent.id}/disable`), 403, "forbidden");
    expect((await t.api("GET", `/v1/mailboxes/${stranger.agent.id}`)).body.mailbox.status).toBe("active");
  });

  test("a disabled binding's token is 403 forbidden everywhere; enabled again, it works", async () => {
    await setTier("admin");
    expect((await bind(s.agent.id, { enabled: false })).status).toBe(200);
    expectError(await asRuntime("GET", `/v1/mailboxes/${s.agent.id}/messages`), 403, "forbidden");
    expectError(await asRuntime("GET", `/v1/mailboxes/${s.agent.id}`), 403, "forbidden");
    expectError(await calls.draft(), 403, "forbidden");
    expectError(await calls.send(), 403, "forbidden");
    expect((await bind(s.agent.id, { enabled: true })).status).toBe(200);
    expect((await calls.read()).status).toBe(200);
  });

  test("the mailbox's own key and the admin token are not affected by the tier", async () => {
    await setTier("read-only");
    for (const tok of [s.agentKey.token, t.admin]) {
      expect((await t.api("POST", `/v1/mailboxes/${s.agent.id}/send`, { token: tok, body: { to: ["z@example.com"], subject: "by a person", textBody: "x" } })).status).toBe(201);
      expect((await t.api("POST", `/v1/mailboxes/${s.agent.id}/labels`, { token: tok, body: { name: uniqueSlug("own") } })).status).toBe(201);
    }
  });
});

describe("policy modes of a runtime's sends", () => {
  let s: Seed;
  let token: string;
  beforeAll(async () => {
    s = await seedAccount(t);
    token = (await createBinding(s.agent.id, { permissionTier: "send", policyMode: "draft-first" })).runtime_token;
  });

  const setMode = async (policyMode: string) => expect((await bind(s.agent.id, { policyMode })).status).toBe(200);
  const runtimeSend = (subject: string) => t.api("POST", `/v1/mailboxes/${s.agent.id}/send`, { token, body: { to: ["x@example.com"], subject, textBody: "from the runtime" } });
  const outboundSubjects = async () =>
    (await t.api("GET", `/v1/mailboxes/${s.agent.id}/messages?direction=outbound&limit=100`)).body.items.map((m: { subject: string }) => m.subject);
  const draftsList = async () => (await t.api("GET", `/v1/mailboxes/${s.agent.id}/drafts?limit=100`)).body.items as { id: string; subject: string }[];

  test("auto-send: 201, sent like a normal send", async () => {
    await setMode("auto-send");
    const res = await runtimeSend("auto sent");
    expect(res.status).toBe(201);
    expect(res.body.message).toMatchObject({ direction: "outbound", subject: "auto sent", status: "sent" });
    expect(await outboundSubjects()).toContain("auto sent");
  });

  test("draft-first: 202 with a draft, nothing sent; the runtime cannot approve it, a person can", async () => {
    await setMode("draft-first");
    const res = await runtimeSend("held for approval");
    expect(res.status).toBe(202);
    expect(res.body.disposition).toBe("draft");
    expect(res.body.draft).toMatchObject({ to: ["x@example.com"], subject: "held for approval", text_body: "from the runtime" });
    expect(res.body.draft.id).toMatch(UUID);
    const draftId = res.body.draft.id;
    expect((await draftsList()).map((d) => d.id)).toContain(draftId);
    expect(await outboundSubjects()).not.toContain("held for approval");

    const logged = (await eventsOf(s.agent.id)).filter((e) => e.kind === "send_drafted");
    expect(logged.map((e) => e.data.draft_id)).toContain(draftId);

    expectError(await t.api("POST", `/v1/drafts/${draftId}/send`, { token }), 403, "approval_required");
    // Still a draft, still unsent.
    expect((await draftsList()).map((d) => d.id)).toContain(draftId);
    const approved = await t.api("POST", `/v1/drafts/${draftId}/send`, { token: s.agentKey.token });
    expect(approved.status).toBe(201);
    expect(approved.body.message).toMatchObject({ subject: "held for approval", status: "sent" });
    expect((await draftsList()).map((d) => d.id)).not.toContain(draftId);
  });

  test("draft-first: a reply becomes a draft to the sender that, approved, threads with the original", async () => {
    await setMode("draft-first");
    const inboundId = await deliver(s.agent.email_address, "Question about billing", "carol@example.com");
    const original = await waitForMessage(t, inboundId);
    const res = await t.api("POST", `/v1/messages/${inboundId}/reply`, { token, body: { textBody: "Here is the answer." } });
    expect(res.status).toBe(202);
    expect(res.body.disposition).toBe("draft");
    expect(res.body.draft).toMatchObject({ to: ["carol@example.com"], subject: "Re: Question about billing", text_body: "Here is the answer." });
    expect(await outboundSubjects()).not.toContain("Re: Question about billing");

    const sent = await t.api("POST", `/v1/drafts/${res.body.draft.id}/send`, { token: s.agentKey.token });
    expect(sent.status).toBe(201);
    expect(sent.body.message.thread_id).toBe(original.thread_id);
    expect(sent.body.message.subject).toBe("Re: Question about billing");
  });

  test("observe: 202 observed, nothing created, logged as send_observed", async () => {
    await setMode("observe");
    const draftsBefore = (await draftsList()).length;
    const res = await runtimeSend("only observed");
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ disposition: "observed" });
    expect((await draftsList()).length).toBe(draftsBefore);
    expect(await outboundSubjects()).not.toContain("only observed");
    const logged = (await eventsOf(s.agent.id)).filter((e) => e.kind === "send_observed");
    expect(logged.length).toBeGreaterThanOrEqual(1);
    expect(logged[0]!.mailbox_id).toBe(s.agent.id);
  });

  test("observe: a reply is only logged too, against the message it answers", async () => {
    await setMode("observe");
    const inboundId = await deliver(s.agent.email_address, "Observed question", "dan@example.com");
    await waitForMessage(t, inboundId);
    const draftsBefore = (await draftsList()).length;
    const res = await t.api("POST", `/v1/messages/${inboundId}/reply`, { token, body: { textBody: "not sent" } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ disposition: "observed" });
    expect((await draftsList()).length).toBe(draftsBefore);
    expect(await outboundSubjects()).not.toContain("Re: Observed question");
    const logged = (await eventsOf(s.agent.id)).filter((e) => e.message_id === inboundId).map((e) => e.kind);
    expect(logged).toContain("send_observed");
  });

  test("observe: protocol messages and responses the runtime asks for are only logged", async () => {
    await setMode("observe");
    const other = await seedAccount(t);
    const res = await t.api("POST", "/.agent/inbox", { token, body: { subject: "observed ask", body: "hi" }, headers: { host: other.agent.protocol_host } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ disposition: "observed" });
    expect((await t.api("GET", `/v1/mailboxes/${other.agent.id}/messages?transport=agent-json`)).body.total).toBe(0);
    // A message to this mailbox: the runtime's answer is held back too.
    const incoming = await t.api("POST", "/.agent/inbox", { token: other.agentKey.token, body: { subject: "question", body: "?" }, headers: { host: s.agent.protocol_host } });
    const answer = await t.api("POST", `/.agent/inbox/${incoming.body.id}/respond`, { token, body: { body: "not sent" }, headers: { host: s.agent.protocol_host } });
    expect(answer.status).toBe(202);
    const responses = await t.api("GET", `/.agent/inbox/${incoming.body.id}/responses`, { token: other.agentKey.token, headers: { host: s.agent.protocol_host } });
    expect(responses.body.items).toEqual([]);
    const kinds = (await eventsOf(s.agent.id)).map((e) => e.kind);
    expect(kinds).toContain("protocol_send_observed");
    expect(kinds).toContain("respond_observed");
  });

  test("the mailbox's own key and the admin token send at once in every mode", async () => {
    for (const mode of ["draft-first", "observe"]) {
      await setMode(mode);
      for (const tok of [s.agentKey.token, t.admin]) {
        const res = await t.api("POST", `/v1/mailboxes/${s.agent.id}/send`, { token: tok, body: { to: ["p@example.com"], subject: `person ${mode}`, textBody: "x" } });
        expect(res.status).toBe(201);
        expect(res.body.message.status).toBe("sent");
      }
    }
  });
});
