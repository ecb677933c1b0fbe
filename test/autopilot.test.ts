import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, fieldPaths, ISO, seedAccount, startTestService, UUID, type TestService } from "./harness.ts";
import { rfc822, waitForMessage } from "./mail-support.ts";
import { startReceiver } from "./webhook-support.ts";

/**
 * Autopilot over real HTTP: the policy endpoints (defaults, normalisation, validation, auth),
 * and what rules do to processed inbound messages in observe and enforce mode, read back
 * through the decisions log, the messages, labels and drafts, the routing log and a local
 * agent runtime. The rule language itself is unit-tested in autopilot-rules.test.ts.
 */
let t: TestService;
const runtime = startReceiver();

beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  runtime.stop();
  await t.stop();
});

type Seed = Awaited<ReturnType<typeof seedAccount>>;

const policyPath = (mailboxId: string) => `/v1/mailboxes/${mailboxId}/autopilot`;
const putPolicy = (mailboxId: string, body: unknown, token?: string) => t.api("PUT", policyPath(mailboxId), { body, token });

/** Sets the policy or fails the test: the behaviour tests depend on it. */
async function setPolicy(mailboxId: string, body: { mode?: string; rules?: unknown[] }) {
  const res = await putPolicy(mailboxId, body);
  if (res.status !== 200) throw new Error(`set autopilot failed: ${res.status} ${res.text}`);
  return res.body.autopilot;
}

/** An email delivered to `to` over the HTTP ingress; answers the message id. */
async function deliver(to: string, subject: string, from: string): Promise<string> {
  const raw = rfc822({ From: from, To: to, Subject: subject, "Message-ID": `<${crypto.randomUUID()}@example.com>`, Date: new Date().toUTCString() }, "Hello, autopilot.\r\n");
  const res = await t.api("POST", `/v1/inbound/email?to=${encodeURIComponent(to)}`, { rawBody: raw, headers: { "content-type": "message/rfc822" } });
  if (res.status !== 202) throw new Error(`inbound failed: ${res.status} ${res.text}`);
  return res.body.message_ids[0];
}

/** A protocol message from the account's primary mailbox to its agent mailbox. */
async function sendProtocol(s: Seed, body: Record<string, unknown>): Promise<string> {
  const res = await t.api("POST", "/.agent/inbox", { token: s.primaryKey.token, body, headers: { host: `${s.agent.protocol_host}:${new URL(t.url).port}` } });
  if (res.status !== 201) throw new Error(`protocol send failed: ${res.status} ${res.text}`);
  return res.body.id;
}

interface Decision {
  id: string;
  message_id: string;
  mode: string;
  matched_rules: string[];
  actions: { rule_id: string; action: Record<string, unknown>; outcome: string; detail?: string }[];
  blocked: boolean;
  created_at: string;
}

/**
 * The one decision about a message. The decision is written in the transaction that marks the
 * message processed, so once processing is over it is there (or never will be).
 */
async function decisionFor(mailboxId: string, messageId: string): Promise<Decision> {
  const res = await t.api("GET", `${policyPath(mailboxId)}/decisions?message_id=${messageId}`);
  expect(res.status).toBe(200);
  expect(res.body.items).toHaveLength(1);
  return res.body.items[0];
}

/** The message once processing is over (enforced rules may have archived it). */
const processed = (id: string) => waitForMessage(t, id, ["processed", "archived"]);

async function labelsOf(mailboxId: string): Promise<{ id: string; name: string }[]> {
  return (await t.api("GET", `/v1/mailboxes/${mailboxId}/labels`)).body.items;
}
async function draftsOf(mailboxId: string): Promise<{ id: string; to: string[]; subject: string | null; text_body: string | null }[]> {
  return (await t.api("GET", `/v1/mailboxes/${mailboxId}/drafts?limit=100`)).body.items;
}
async function archivedIds(mailboxId: string): Promise<string[]> {
  return (await t.api("GET", `/v1/mailboxes/${mailboxId}/messages?status=archived&limit=100`)).body.items.map((m: { id: string }) => m.id);
}
async function routingLog(mailboxId: string): Promise<{ message_id: string | null; kind: string }[]> {
  return (await t.api("GET", `/v1/admin/agent-runtime-events?mailboxId=${mailboxId}&limit=500`)).body.items;
}
const routedTo = (id: string) => runtime.requests.filter((r) => JSON.parse(r.body).message?.id === id);

describe("the policy endpoints", () => {
  test("until set: observe, no rules, updated_at null", async () => {
    const s = await seedAccount(t);
    const res = await t.api("GET", policyPath(s.agent.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ autopilot: { mode: "observe", rules: [], updated_at: null } });
  });

  test("PUT stores the rules with their defaults filled in; fields left out keep their value", async () => {
    const s = await seedAccount(t);
    const res = await putPolicy(s.agent.id, {
      rules: [
        { match: { from: ["@clients.example"] }, actions: [{ type: "label", label: "Clients" }] },
        { id: "vip", name: "VIP senders", enabled: false, stop: true, match: { from: ["boss@example.com"], subject_contains: ["urgent"] }, actions: [{ type: "archive" }] },
      ],
    });
    expect(res.status).toBe(200);
    const autopilot = res.body.autopilot;
    expect(autopilot.mode).toBe("observe");
    expect(autopilot.updated_at).toMatch(ISO);
    expect(autopilot.rules).toEqual([
      { id: "rule-1", name: "rule-1", enabled: true, stop: false, match: { from: ["@clients.example"] }, actions: [{ type: "label", label: "Clients" }] },
      { id: "vip", name: "VIP senders", enabled: false, stop: true, match: { from: ["boss@example.com"], subject_contains: ["urgent"] }, actions: [{ type: "archive" }] },
    ]);
    expect((await t.api("GET", policyPath(s.agent.id))).body).toEqual({ autopilot });

    // Only the mode: the rules stay.
    const enforced = await setPolicy(s.agent.id, { mode: "enforce" });
    expect(enforced.mode).toBe("enforce");
    expect(enforced.rules).toEqual(autopilot.rules);
    // Nothing given: nothing changes.
    const same = await putPolicy(s.agent.id, {});
    expect(same.status).toBe(200);
    expect(same.body.autopilot).toEqual(enforced);
    // `rules` replaces the whole list.
    const emptied = await setPolicy(s.agent.id, { rules: [] });
    expect(emptied).toMatchObject({ mode: "enforce", rules: [] });
  });

  test("a forward_to_runtime action gets its default priority", async () => {
    const s = await seedAccount(t);
    const autopilot = await setPolicy(s.agent.id, { rules: [{ match: { from: ["*"] }, actions: [{ type: "forward_to_runtime" }] }] });
    expect(autopilot.rules[0].actions).toEqual([{ type: "forward_to_runtime", priority: "normal" }]);
  });

  test("unknown fields and a bad mode are 400 validation_error", async () => {
    const s = await seedAccount(t);
    expectError(await putPolicy(s.agent.id, { mode: "observe", surprise: 1 }), 400, "validation_error");
    expectError(await putPolicy(s.agent.id, { mode: "autopilot" }), 400, "validation_error");
    expectError(await putPolicy(s.agent.id, { rules: "all of them" }), 400, "validation_error");
    expect((await t.api("GET", policyPath(s.agent.id))).body.autopilot.updated_at).toBeNull();
  });

  test("invalid rules are 400 validation_error naming every problem by its body path; nothing is stored", async () => {
    const s = await seedAccount(t);
    await setPolicy(s.agent.id, { mode: "enforce", rules: [{ match: { from: ["*"] }, actions: [{ type: "archive" }] }] });
    const before = (await t.api("GET", policyPath(s.agent.id))).body.autopilot;

    const one = await putPolicy(s.agent.id, { rules: [{ match: { risk_level: ["severe"] }, actions: [{ type: "archive" }] }] });
    expectError(one, 400, "validation_error");
    expect(fieldPaths(one)).toEqual(["body.rules[0].match.risk_level[0]"]);

    const many = await putPolicy(s.agent.id, {
      rules: [
        { id: "a", match: { from: ["*@example.com"], triage_label: ["important"] }, actions: [{ type: "block" }, { type: "draft_reply", text: "hi" }] },
        { id: "a", match: {}, actions: [{ type: "teleport" }], colour: "red" },
        { match: { transport: ["smtp"] } },
        { match: { subject_contains: ["x"] }, actions: [{ type: "label" }, { type: "forward_to_runtime", priority: "urgent" }] },
      ],
    });
    expectError(many, 400, "validation_error");
    expect(fieldPaths(many).sort()).toEqual(
      [
        "body.rules[0].match.from[0]",
        "body.rules[0].match.triage_label[0]",
        "body.rules[0].actions[1]",
        "body.rules[1].colour",
        "body.rules[1].match",
        "body.rules[1].actions[0].type",
        "body.rules[1].id",
        "body.rules[2].actions",
        "body.rules[3].actions[0].label",
        "body.rules[3].actions[1].priority",
      ].sort(),
    );
    expect((await t.api("GET", policyPath(s.agent.id))).body.autopilot).toEqual(before);
  });

  test("the mailbox's own key may read and set it; another mailbox's key is 403", async () => {
    const s = await seedAccount(t);
    const stranger = await seedAccount(t);
    const own = await putPolicy(s.agent.id, { mode: "enforce" }, s.agentKey.token);
    expect(own.status).toBe(200);
    expect((await t.api("GET", policyPath(s.agent.id), { token: s.agentKey.token })).body.autopilot.mode).toBe("enforce");
    expect((await t.api("GET", `${policyPath(s.agent.id)}/decisions`, { token: s.agentKey.token })).status).toBe(200);

    expectError(await putPolicy(s.agent.id, { mode: "observe" }, stranger.agentKey.token), 403, "forbidden");
    expectError(await t.api("GET", policyPath(s.agent.id), { token: stranger.agentKey.token }), 403, "forbidden");
    expectError(await t.api("GET", `${policyPath(s.agent.id)}/decisions`, { token: stranger.agentKey.token }), 403, "forbidden");
    // The primary mailbox of the same account is another mailbox, too.
    expectError(await putPolicy(s.agent.id, { mode: "observe" }, s.primaryKey.token), 403, "forbidden");
    expect((await t.api("GET", policyPath(s.agent.id))).body.autopilot.mode).toBe("enforce");
  });
});

describe("observe mode", () => {
  test("a matching message gets a decision of would_apply, and is neither labelled nor archived", async () => {
    const s = await seedAccount(t);
    await setPolicy(s.agent.id, { mode: "observe", rules: [{ match: { from: ["@observe.example"] }, actions: [{ type: "label", label: "Observed" }, { type: "archive" }] }] });
    const id = await deliver(s.agent.email_address, "Watch me", "ann@observe.example");
    const message = await processed(id);

    const decision = await decisionFor(s.agent.id, id);
    expect(Object.keys(decision).sort()).toEqual(["actions", "blocked", "created_at", "id", "matched_rules", "message_id", "mode"]);
    expect(decision).toMatchObject({ message_id: id, mode: "observe", matched_rules: ["rule-1"], blocked: false });
    expect(decision.id).toMatch(UUID);
    expect(decision.created_at).toMatch(ISO);
    expect(decision.actions).toEqual([
      { rule_id: "rule-1", action: { type: "label", label: "Observed" }, outcome: "would_apply" },
      { rule_id: "rule-1", action: { type: "archive" }, outcome: "would_apply" },
    ]);

    expect(message.status).toBe("processed");
    expect(message.labels).toEqual([]);
    expect(await archivedIds(s.agent.id)).not.toContain(id);
    expect((await labelsOf(s.agent.id)).map((l) => l.name)).not.toContain("Observed");
  });
});

describe("enforce mode", () => {
  test("label and archive: the label is created and applied, the message archived", async () => {
    const s = await seedAccount(t);
    await setPolicy(s.agent.id, { mode: "enforce", rules: [{ id: "clients", match: { from: ["@clients.example"] }, actions: [{ type: "label", label: "Clients" }, { type: "archive" }] }] });
    const id = await deliver(s.agent.email_address, "Order 42", "Bob@Clients.example");
    const message = await waitForMessage(t, id, ["archived"]);

    const label = (await labelsOf(s.agent.id)).find((l) => l.name === "Clients");
    expect(label).toBeDefined();
    expect(message.labels).toEqual([label!.id]);
    expect(await archivedIds(s.agent.id)).toContain(id);
    const labelled = await t.api("GET", `/v1/mailboxes/${s.agent.id}/messages?label=${label!.id}`);
    expect(labelled.body.items.map((m: { id: string }) => m.id)).toEqual([id]);

    const decision = await decisionFor(s.agent.id, id);
    expect(decision).toMatchObject({ mode: "enforce", matched_rules: ["clients"], blocked: false });
    expect(decision.actions.map((a) => [a.action.type, a.outcome])).toEqual([
      ["label", "applied"],
      ["archive", "applied"],
    ]);
  });

  test("label: an existing label of that name (any case) is reused, not duplicated", async () => {
    const s = await seedAccount(t);
    const existing = (await t.api("POST", `/v1/mailboxes/${s.agent.id}/labels`, { body: { name: "Invoices" } })).body.label;
    await setPolicy(s.agent.id, { mode: "enforce", rules: [{ match: { subject_contains: ["invoice"] }, actions: [{ type: "label", label: "invoices" }] }] });
    const id = await deliver(s.agent.email_address, "Your INVOICE for May", "billing@vendor.example");
    const message = await processed(id);
    expect(message.labels).toEqual([existing.id]);
    expect((await labelsOf(s.agent.id)).filter((l) => l.name.toLowerCase() === "invoices")).toHaveLength(1);
  });

  test("draft_reply: a draft to the sender with the text, the message stays processed", async () => {
    const s = await seedAccount(t);
    await setPolicy(s.agent.id, { mode: "enforce", rules: [{ match: { subject_contains: ["pricing"] }, actions: [{ type: "draft_reply", text: "Our pricing sheet is attached." }] }] });
    const id = await deliver(s.agent.email_address, "Pricing question", "dave@prospect.example");
    const message = await processed(id);
    expect(message.status).toBe("processed");

    const drafts = await draftsOf(s.agent.id);
    expect(drafts).toHaveLength(1);
    expect(drafts[0]).toMatchObject({ to: ["dave@prospect.example"], subject: "Re: Pricing question", text_body: "Our pricing sheet is attached." });
    const decision = await decisionFor(s.agent.id, id);
    expect(decision.actions).toMatchObject([{ rule_id: "rule-1", action: { type: "draft_reply" }, outcome: "applied" }]);
  });

  test("non-matching mail gets a decision with no matched rules when the mailbox has rules", async () => {
    const s = await seedAccount(t);
    await setPolicy(s.agent.id, { mode: "enforce", rules: [{ match: { from: ["@nowhere.example"] }, actions: [{ type: "archive" }] }] });
    const id = await deliver(s.agent.email_address, "Unrelated", "erin@elsewhere.example");
    const message = await processed(id);
    expect(message.status).toBe("processed");
    expect(await decisionFor(s.agent.id, id)).toMatchObject({ mode: "enforce", matched_rules: [], actions: [], blocked: false });
  });

  test("forward_to_runtime without a binding is skipped, saying why", async () => {
    const s = await seedAccount(t);
    await setPolicy(s.agent.id, { mode: "enforce", rules: [{ match: { from: ["*"] }, actions: [{ type: "forward_to_runtime", priority: "high" }] }] });
    const id = await deliver(s.agent.email_address, "To the runtime?", "frank@example.com");
    await processed(id);
    const [action] = (await decisionFor(s.agent.id, id)).actions;
    expect(action).toMatchObject({ rule_id: "rule-1", action: { type: "forward_to_runtime", priority: "high" }, outcome: "skipped" });
    expect(action!.detail).toBeString();
    expect(action!.detail!.length).toBeGreaterThan(0);
  });

  test("the message.processed webhook describes the outcome", async () => {
    const hooks = startReceiver();
    try {
      const s = await seedAccount(t);
      const hook = await t.api("POST", `/v1/mailboxes/${s.agent.id}/webhooks`, { body: { url: hooks.url, events: ["message.processed"] } });
      expect(hook.status).toBe(201);
      await setPolicy(s.agent.id, { mode: "enforce", rules: [{ match: { from: ["*"] }, actions: [{ type: "archive" }] }] });
      const id = await deliver(s.agent.email_address, "Archive on arrival", "gina@example.com");
      await hooks.waitFor(() => hooks.of("message.processed").some((r) => JSON.parse(r.body).id === id));
      const payload = JSON.parse(hooks.of("message.processed").find((r) => JSON.parse(r.body).id === id)!.body);
      expect(payload).toMatchObject({ id, status: "archived" });
    } finally {
      hooks.stop();
    }
  });
});

describe("enforce mode with an agent runtime", () => {
  let s: Seed;
  beforeAll(async () => {
    s = await seedAccount(t);
    const bound = await t.api("POST", `/v1/mailboxes/${s.agent.id}/agent-runtime-binding`, { body: { agentId: "autopilot-agent", runtimeBaseUrl: runtime.url } });
    if (bound.status !== 201) throw new Error(`bind failed: ${bound.status} ${bound.text}`);
    await setPolicy(s.agent.id, {
      mode: "enforce",
      rules: [
        { id: "blocklist", match: { from: ["spammer@bad.example"] }, actions: [{ type: "block" }] },
        { id: "vip", match: { from: ["@vip.example"] }, actions: [{ type: "forward_to_runtime", priority: "high", note: "VIP customer" }] },
      ],
    });
  });

  test("forward_to_runtime: the runtime gets the message with the rule's priority and note", async () => {
    const id = await deliver(s.agent.email_address, "Need help now", "hana@vip.example");
    await runtime.waitFor(() => routedTo(id).length > 0);
    const body = JSON.parse(routedTo(id)[0]!.body);
    expect(body.routing).toEqual({ priority: "high", notes: ["VIP customer"] });
    expect(body.message).toMatchObject({ id, from_address: "hana@vip.example" });
    expect((await decisionFor(s.agent.id, id)).actions).toMatchObject([{ rule_id: "vip", action: { type: "forward_to_runtime" }, outcome: "applied" }]);
  });

  test("a message no rule forwards is routed with the default hint", async () => {
    const id = await deliver(s.agent.email_address, "Ordinary", "ivan@example.com");
    await runtime.waitFor(() => routedTo(id).length > 0);
    expect(JSON.parse(routedTo(id)[0]!.body).routing).toEqual({ priority: "normal", notes: [] });
  });

  test("block: triaged spam, signalled, not routed (skipped in the routing log), and the runtime never gets it", async () => {
    const blockedId = await deliver(s.agent.email_address, "Cheap pills", "spammer@bad.example");
    const message = await processed(blockedId);
    expect(message.triage_label).toBe("spam");
    expect(message.suspicious_signals).toContain("autopilot_blocked");

    const decision = await decisionFor(s.agent.id, blockedId);
    expect(decision).toMatchObject({ matched_rules: ["blocklist"], blocked: true });
    expect(decision.actions).toMatchObject([{ rule_id: "blocklist", action: { type: "block" }, outcome: "applied" }]);
    // Routing is decided in the processing transaction: the log is already final for this message.
    expect((await routingLog(s.agent.id)).filter((e) => e.message_id === blockedId).map((e) => e.kind)).toEqual(["skipped"]);

    // A later message that is routed arrives; the blocked one never did.
    const laterId = await deliver(s.agent.email_address, "After the spam", "jane@vip.example");
    await runtime.waitFor(() => routedTo(laterId).length > 0);
    expect(routedTo(blockedId)).toEqual([]);
  });
});

describe("protocol messages and action conditions", () => {
  let s: Seed;
  beforeAll(async () => {
    s = await seedAccount(t);
    const action = await t.api("POST", `/v1/mailboxes/${s.agent.id}/actions`, {
      body: { name: "lookup_order", description: "Look up an order", parameterSchema: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] } },
    });
    if (action.status !== 201) throw new Error(`create action failed: ${action.status} ${action.text}`);
    await setPolicy(s.agent.id, {
      mode: "enforce",
      rules: [
        { id: "orders", match: { action: ["lookup_order"] }, actions: [{ type: "label", label: "Orders" }] },
        { id: "agents", match: { transport: ["agent-json"] }, actions: [{ type: "label", label: "From agents" }] },
      ],
    });
  });

  test("a protocol message with that action matches the action rule", async () => {
    const id = await sendProtocol(s, { subject: "Where is my order?", action: "lookup_order", parameters: { order_id: "ORD-1" } });
    const message = await processed(id);
    expect(message.transport).toBe("agent-json");
    const decision = await decisionFor(s.agent.id, id);
    expect(decision.matched_rules).toEqual(["orders", "agents"]);
    const names = new Map((await labelsOf(s.agent.id)).map((l) => [l.id, l.name]));
    expect(message.labels.map((l: string) => names.get(l)).sort()).toEqual(["From agents", "Orders"]);
  });

  test("a free-form protocol message has no action: only the transport rule matches", async () => {
    const id = await sendProtocol(s, { subject: "lookup_order please", body: "just chatting" });
    await processed(id);
    expect((await decisionFor(s.agent.id, id)).matched_rules).toEqual(["agents"]);
  });

  test("a plain email never matches a rule that lists actions", async () => {
    const id = await deliver(s.agent.email_address, "lookup_order", "kim@example.com");
    const message = await processed(id);
    expect(await decisionFor(s.agent.id, id)).toMatchObject({ matched_rules: [], actions: [] });
    expect(message.labels).toEqual([]);
  });
});

describe("the decisions endpoint", () => {
  test("newest first, limited, filtered by message_id; bad queries are 400", async () => {
    const s = await seedAccount(t);
    await setPolicy(s.agent.id, { mode: "observe", rules: [{ match: { from: ["*"] }, actions: [{ type: "archive" }] }] });
    const first = await deliver(s.agent.email_address, "One", "a@example.com");
    await processed(first);
    const second = await deliver(s.agent.email_address, "Two", "b@example.com");
    await processed(second);

    const all = await t.api("GET", `${policyPath(s.agent.id)}/decisions`);
    expect(all.status).toBe(200);
    expect(all.body.items.map((d: Decision) => d.message_id)).toEqual([second, first]);
    const one = await t.api("GET", `${policyPath(s.agent.id)}/decisions?limit=1`);
    expect(one.body.items).toEqual([all.body.items[0]]);
    const filtered = await t.api("GET", `${policyPath(s.agent.id)}/decisions?message_id=${first}`);
    expect(filtered.body.items).toEqual([all.body.items[1]]);
    // Another mailbox's decisions are not listed here.
    const other = await seedAccount(t);
    expect((await t.api("GET", `${policyPath(other.agent.id)}/decisions`)).body.items).toEqual([]);

    for (const query of ["limit=0", "limit=abc", "message_id=nope"]) {
      expectError(await t.api("GET", `${policyPath(s.agent.id)}/decisions?${query}`), 400, "validation_error");
    }
  });

  test("a mailbox without rules records no decisions", async () => {
    const s = await seedAccount(t);
    const id = await deliver(s.agent.email_address, "No rules here", "c@example.com");
    await processed(id);
    expect((await t.api("GET", `${policyPath(s.agent.id)}/decisions`)).body.items).toEqual([]);
  });
});
