import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { idempotencyKeys } from "../db/schema/index.ts";
import { fingerprint, keyDigest } from "../src/http/idempotency.ts";
import { ROUTE_AUTH } from "../src/http/route-auth.ts";
import { expectError, issueKey, request, seedAccount, sleep, startTestService, uniqueSlug, usingPostgres, type ApiResponse, type TestService } from "./harness.ts";
import { rfc822, waitForMessage } from "./mail-support.ts";

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

const newKey = (label = "k") => `${label}-${randomBytes(8).toString("hex")}`;
const idem = (key: string) => ({ "idempotency-key": key });

async function keyCount(node: TestService, mailboxId: string): Promise<number> {
  const res = await node.api("GET", `/v1/mailboxes/${mailboxId}/api-keys`);
  expect(res.status).toBe(200);
  return res.body.items.length;
}

describe("replay", () => {
  test("the same request with the same key replays status and body with x-idempotent-replay: true", async () => {
    const key = newKey();
    const body = { slug: uniqueSlug(), displayName: "Replay Inc" };
    const first = await t.api("POST", "/v1/accounts", { body, headers: idem(key) });
    expect(first.status).toBe(201);
    expect(first.headers.get("x-idempotent-replay")).toBeNull();

    const second = await t.api("POST", "/v1/accounts", { body, headers: idem(key) });
    expect(second.status).toBe(201);
    expect(second.headers.get("x-idempotent-replay")).toBe("true");
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("content-type")).toContain("application/json");
    expect(second.headers.get("x-request-id")).toBeTruthy();
    expect(second.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));

    // It ran once: the account exists once, under the first response's id.
    const got = await t.api("GET", `/v1/accounts/${first.body.account.id}`);
    expect(got.status).toBe(200);
    expect(got.body.account.slug).toBe(body.slug);
  });

  test("a replayed 200 keeps its status (disable through a mailbox route)", async () => {
    const s = await seedAccount(t);
    const key = newKey();
    const first = await t.api("POST", `/v1/mailboxes/${s.agent.id}/disable`, { token: s.agentKey.token, headers: idem(key) });
    expect(first.status).toBe(200);
    expect((await t.api("POST", `/v1/mailboxes/${s.agent.id}/enable`, { token: s.agentKey.token })).status).toBe(200);
    const replay = await t.api("POST", `/v1/mailboxes/${s.agent.id}/disable`, { token: s.agentKey.token, headers: idem(key) });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("x-idempotent-replay")).toBe("true");
    expect(replay.body).toEqual({ mailbox: { id: s.agent.id, status: "disabled" } });
    // The replay did not run the handler again: the mailbox is still enabled.
    expect((await t.api("GET", `/v1/mailboxes/${s.agent.id}`)).body.mailbox.status).toBe("active");
  });

  test("a different key order and white space in the JSON body is the same request", async () => {
    const key = newKey();
    const slug = uniqueSlug();
    const first = await t.api("POST", "/v1/accounts", { rawBody: `{"slug":"${slug}","displayName":"Order"}`, headers: idem(key) });
    expect(first.status).toBe(201);
    const second = await t.api("POST", "/v1/accounts", { rawBody: `{\n  "displayName" : "Order",\n\t"slug":   "${slug}"\n}\n`, headers: idem(key) });
    expect(second.status).toBe(201);
    expect(second.headers.get("x-idempotent-replay")).toBe("true");
    expect(second.body).toEqual(first.body);
  });

  test("GET requests ignore the header", async () => {
    const s = await seedAccount(t);
    const key = newKey();
    const a = await t.api("GET", `/v1/mailboxes/${s.agent.id}`, { headers: idem(key) });
    const b = await t.api("GET", `/v1/mailboxes/${s.agent.id}`, { headers: idem(key) });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get("x-idempotent-replay")).toBeNull();
  });
});

describe("reuse with another request", () => {
  test("the same key with a different body → 409 idempotency_key_reused", async () => {
    const key = newKey();
    expect((await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug(), displayName: "One" }, headers: idem(key) })).status).toBe(201);
    const res = await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug(), displayName: "Two" }, headers: idem(key) });
    expectError(res, 409, "idempotency_key_reused");
    expect(res.body.error.details.idempotency_key).toBe(key);
    expect(res.headers.get("x-idempotent-replay")).toBeNull();
  });

  test("the same key on another path → 409 idempotency_key_reused", async () => {
    const s = await seedAccount(t);
    const key = newKey();
    expect((await t.api("POST", `/v1/mailboxes/${s.agent.id}/disable`, { headers: idem(key) })).status).toBe(200);
    expectError(await t.api("POST", `/v1/mailboxes/${s.agent.id}/enable`, { headers: idem(key) }), 409, "idempotency_key_reused");
    expectError(await t.api("POST", `/v1/mailboxes/${s.primary.id}/disable`, { headers: idem(key) }), 409, "idempotency_key_reused");
  });
});

describe("scope", () => {
  test("keys are scoped per token: admin and a mailbox key with the same key string run independently", async () => {
    const s = await seedAccount(t);
    const key = newKey("shared");
    const asAdmin = await t.api("POST", `/v1/mailboxes/${s.agent.id}/disable`, { headers: idem(key) });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body.mailbox.status).toBe("disabled");

    // Another request under the same key string, by the mailbox key: it runs, no 409, no replay.
    const asKey = await t.api("POST", `/v1/mailboxes/${s.agent.id}/enable`, { token: s.agentKey.token, headers: idem(key) });
    expect(asKey.status).toBe(200);
    expect(asKey.headers.get("x-idempotent-replay")).toBeNull();
    expect(asKey.body.mailbox.status).toBe("active");

    // A second key of the same mailbox is a scope of its own too.
    const other = await issueKey(t, s.agent.id, "second");
    const asOther = await t.api("POST", `/v1/mailboxes/${s.agent.id}/disable`, { token: other.token, headers: idem(key) });
    expect(asOther.status).toBe(200);
    expect(asOther.headers.get("x-idempotent-replay")).toBeNull();

    // And each scope replays its own record.
    const replayAdmin = await t.api("POST", `/v1/mailboxes/${s.agent.id}/disable`, { headers: idem(key) });
    expect(replayAdmin.headers.get("x-idempotent-replay")).toBe("true");
    const replayKey = await t.api("POST", `/v1/mailboxes/${s.agent.id}/enable`, { token: s.agentKey.token, headers: idem(key) });
    expect(replayKey.headers.get("x-idempotent-replay")).toBe("true");
    expect(replayKey.body).toEqual(asKey.body);
  });
});

describe("invalid keys", () => {
  test.each([
    ["empty", ""],
    ["256 characters", "k".repeat(256)],
    ["a tab (control character)", "a\tb"],
    ["DEL (control character)", "a\x7fb"],
  ])("%s → 400 validation_error naming the header", async (_label, key) => {
    const res = await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug(), displayName: "Bad Key" }, headers: idem(key) });
    expectError(res, 400, "validation_error");
    expect(JSON.stringify(res.body.error.details)).toContain("idempotency-key");
  });

  test("255 printable characters (with spaces and punctuation) is a valid key", async () => {
    const key = `${newKey()} !~`.padEnd(255, "x");
    expect(key.length).toBe(255);
    const body = { slug: uniqueSlug(), displayName: "Long Key" };
    expect((await t.api("POST", "/v1/accounts", { body, headers: idem(key) })).status).toBe(201);
    const replay = await t.api("POST", "/v1/accounts", { body, headers: idem(key) });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("x-idempotent-replay")).toBe("true");
  });

  test("an invalid key on a request that is otherwise fine does not run it", async () => {
    const slug = uniqueSlug();
    expect((await t.api("POST", "/v1/accounts", { body: { slug, displayName: "Nope" }, headers: idem("") })).status).toBe(400);
    // The slug is still free.
    expect((await t.api("POST", "/v1/accounts", { body: { slug, displayName: "Yes" } })).status).toBe(201);
  });
});

describe("what is stored", () => {
  test("a request that fails schema validation stores nothing: a corrected retry with the same key runs (201)", async () => {
    const key = newKey();
    const bad = await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug() }, headers: idem(key) });
    expectError(bad, 400, "validation_error");
    const good = await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug(), displayName: "Fixed" }, headers: idem(key) });
    expect(good.status).toBe(201);
    expect(good.headers.get("x-idempotent-replay")).toBeNull();
  });

  test("malformed JSON stores nothing either", async () => {
    const key = newKey();
    expectError(await t.api("POST", "/v1/accounts", { rawBody: "{bad", headers: idem(key) }), 400, "invalid_json");
    const good = await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug(), displayName: "Fixed" }, headers: idem(key) });
    expect(good.status).toBe(201);
  });

  test.each([
    ["an account slug with bad characters", "/v1/accounts", { slug: "Bad_Slug", displayName: "X" }, { slug: "good-slug", displayName: "X" }],
    ["a reserved account slug", "/v1/accounts", { slug: "postmaster", displayName: "X" }, { slug: "good-slug", displayName: "X" }],
    ["a blank displayName", "/v1/accounts", { slug: "good-slug", displayName: "   " }, { slug: "good-slug", displayName: "X" }],
  ])("a request refused by the slug/field rules (%s) stores nothing: the corrected retry runs", async (_label, path, badBody, goodBody) => {
    const key = newKey();
    // Unique slugs for this run.
    const suffix = randomBytes(4).toString("hex");
    const fix = (b: { slug: string; displayName: string }) => (b.slug === "good-slug" ? { ...b, slug: `good-${suffix}` } : b);
    const bad = await t.api("POST", path, { body: fix(badBody), headers: idem(key) });
    expectError(bad, 400, "validation_error");
    const good = await t.api("POST", path, { body: fix(goodBody), headers: idem(key) });
    expect(good.status).toBe(201);
  });

  test("a reserved mailbox slug stores nothing: the corrected retry runs", async () => {
    const s = await seedAccount(t);
    const key = newKey();
    expectError(await t.api("POST", `/v1/accounts/${s.account.id}/mailboxes`, { body: { slug: "main" }, headers: idem(key) }), 400, "validation_error");
    const good = await t.api("POST", `/v1/accounts/${s.account.id}/mailboxes`, { body: { slug: "ops" }, headers: idem(key) });
    expect(good.status).toBe(201);
  });

  test("an auth failure stores nothing", async () => {
    const key = newKey();
    const body = { slug: uniqueSlug(), displayName: "Auth First" };
    expectError(await t.api("POST", "/v1/accounts", { token: null, body, headers: idem(key) }), 401, "missing_authorization");
    const ok = await t.api("POST", "/v1/accounts", { body, headers: idem(key) });
    expect(ok.status).toBe(201);
    expect(ok.headers.get("x-idempotent-replay")).toBeNull();
  });

  test("an error from the handler is stored and replayed (409 slug_taken)", async () => {
    const slug = uniqueSlug();
    expect((await t.api("POST", "/v1/accounts", { body: { slug, displayName: "Taken" } })).status).toBe(201);
    const key = newKey();
    const body = { slug, displayName: "Second" };
    const first = await t.api("POST", "/v1/accounts", { body, headers: idem(key) });
    expectError(first, 409, "slug_taken");
    expect(first.headers.get("x-idempotent-replay")).toBeNull();
    const replay = await t.api("POST", "/v1/accounts", { body, headers: idem(key) });
    expect(replay.status).toBe(409);
    expect(replay.headers.get("x-idempotent-replay")).toBe("true");
    expect(replay.body).toEqual(first.body);
  });

  test("a 404 from the handler is stored and replayed", async () => {
    const key = newKey();
    const path = `/v1/accounts/${crypto.randomUUID()}/mailboxes`;
    const first = await t.api("POST", path, { body: { slug: "ops" }, headers: idem(key) });
    expectError(first, 404, "not_found");
    const replay = await t.api("POST", path, { body: { slug: "ops" }, headers: idem(key) });
    expect(replay.status).toBe(404);
    expect(replay.headers.get("x-idempotent-replay")).toBe("true");
    expect(replay.body).toEqual(first.body);
  });
});

describe("a large answer", () => {
  test("a send with megabyte bodies replays byte for byte and runs once", async () => {
    const s = await seedAccount(t);
    const key = newKey("big");
    // Past the size at which bodies travel as bytes and the answer is spliced; not ASCII.
    const body = { to: ["big@example.com"], subject: "big, once", textBody: "žluťoučký kůň ".repeat(60_000), htmlBody: `<p>${"€".repeat(300_000)}</p>` };
    const first = await t.api("POST", `/v1/mailboxes/${s.agent.id}/send`, { body, headers: idem(key) });
    expect(first.status).toBe(201);
    const replay = await t.api("POST", `/v1/mailboxes/${s.agent.id}/send`, { body, headers: idem(key) });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("x-idempotent-replay")).toBe("true");
    expect(replay.text).toBe(first.text);
    expect(replay.body.message.text_body).toBe(body.textBody);
    const outbound = await t.api("GET", `/v1/mailboxes/${s.agent.id}/messages?direction=outbound`);
    expect(outbound.body.total).toBe(1);
  });
});

/** Fires the same API-key creation `n` times at once, spread over `nodes`, and checks the outcome. */
async function concurrentIssue(nodes: TestService[], n: number) {
  const s = await seedAccount(nodes[0]!);
  const before = await keyCount(nodes[0]!, s.agent.id);
  const key = newKey("race");
  const body = { name: "raced", scope: "mailbox" };
  const responses = await Promise.all(
    Array.from({ length: n }, (_, i) => {
      const node = nodes[i % nodes.length]!;
      return request(node.url, node.admin, "POST", `/v1/mailboxes/${s.agent.id}/api-keys`, { body, headers: idem(key) });
    }),
  );
  const created = responses.filter((r) => r.status === 201);
  const inUse = responses.filter((r) => r.status === 409);
  expect(created.length + inUse.length).toBe(n);
  expect(created.length).toBeGreaterThanOrEqual(1);
  for (const r of inUse) {
    expectError(r, 409, "idempotency_key_in_use");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  }
  // Exactly one original; the other 201s are replays of it, byte for byte.
  expect(created.filter((r) => r.headers.get("x-idempotent-replay") === null).length).toBe(1);
  for (const r of created) expect(r.body).toEqual(created[0]!.body);

  // Exactly one key was created, whichever node is asked.
  for (const node of nodes) expect(await keyCount(node, s.agent.id)).toBe(before + 1);
  // And a retry now replays it.
  const late = await request(nodes[0]!.url, nodes[0]!.admin, "POST", `/v1/mailboxes/${s.agent.id}/api-keys`, { body, headers: idem(key) });
  expect(late.status).toBe(201);
  expect(late.headers.get("x-idempotent-replay")).toBe("true");
  expect(late.body).toEqual(created[0]!.body);
}

describe("concurrency", () => {
  test("10 concurrent requests with one key create exactly one API key; the rest replay or get 409 in_use", async () => {
    await concurrentIssue([t], 10);
  });

  test("two concurrent requests with one key (repeated) never both run", async () => {
    for (let i = 0; i < 5; i++) await concurrentIssue([t], 2);
  });
});

describe("two nodes on one database (PostgreSQL only)", () => {
  let b: TestService;
  beforeAll(async () => {
    if (!usingPostgres) return;
    // Both nodes share one admin token, so both requests fall in the one "admin" scope.
    const started = await startTestService({ ADMIN_TOKEN: t.admin });
    b = { ...started, admin: t.admin, api: (method, path, opts) => request(started.url, t.admin, method, path, opts) };
  });
  afterAll(async () => {
    await b?.stop();
  });

  test.skipIf(!usingPostgres)("requests with one key split between two nodes create exactly one API key", async () => {
    await concurrentIssue([t, b], 10);
    await concurrentIssue([b, t], 2);
  });

  test.skipIf(!usingPostgres)("a record made on one node replays on the other", async () => {
    const key = newKey();
    const body = { slug: uniqueSlug(), displayName: "Cross Node" };
    const first = await t.api("POST", "/v1/accounts", { body, headers: idem(key) });
    expect(first.status).toBe(201);
    const second = await b.api("POST", "/v1/accounts", { body, headers: idem(key) });
    expect(second.status).toBe(201);
    expect(second.headers.get("x-idempotent-replay")).toBe("true");
    expect(second.body).toEqual(first.body);
  });
});

describe("lease takeover", () => {
  let leased: TestService;
  beforeAll(async () => {
    leased = await startTestService({ IDEMPOTENCY_LEASE_SECONDS: "1" });
  });
  afterAll(() => leased.stop());

  test("a 'running' claim left by a dead node blocks with 409 in_use until its lease ends, then the request runs", async () => {
    const s = await seedAccount(leased);
    const key = newKey("orphan");
    const path = `/v1/mailboxes/${s.agent.id}/api-keys`;
    const body = { name: "after takeover", scope: "mailbox" };
    const now = new Date();
    await leased.service.internals.database.db.insert(idempotencyKeys).values({
      scope: "admin",
      keyDigest: keyDigest("admin", key),
      fingerprint: fingerprint("POST", path, body),
      state: "running",
      claimedAt: now,
      createdAt: now,
      expiresAt: new Date(now.getTime() + 86_400_000),
    });
    const before = await keyCount(leased, s.agent.id);

    const blocked = await leased.api("POST", path, { body, headers: idem(key) });
    expectError(blocked, 409, "idempotency_key_in_use");
    expect(blocked.headers.get("retry-after")).toBe("1");
    expect(await keyCount(leased, s.agent.id)).toBe(before);

    await sleep(1100);
    const ran = await leased.api("POST", path, { body, headers: idem(key) });
    expect(ran.status).toBe(201);
    expect(ran.headers.get("x-idempotent-replay")).toBeNull();
    expect(ran.body.api_key.name).toBe("after takeover");
    expect(await keyCount(leased, s.agent.id)).toBe(before + 1);

    // The new owner's outcome is what is replayed from now on.
    const replay = await leased.api("POST", path, { body, headers: idem(key) });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("x-idempotent-replay")).toBe("true");
    expect(replay.body).toEqual(ran.body);
  });

  test("a stale claim with another fingerprint is taken over too once its lease ends", async () => {
    const s = await seedAccount(leased);
    const key = newKey("orphan2");
    const now = new Date();
    await leased.service.internals.database.db.insert(idempotencyKeys).values({
      scope: "admin",
      keyDigest: keyDigest("admin", key),
      fingerprint: fingerprint("POST", "/somewhere/else", { x: 1 }),
      state: "running",
      claimedAt: new Date(now.getTime() - 5_000),
      createdAt: new Date(now.getTime() - 5_000),
      expiresAt: new Date(now.getTime() + 86_400_000),
    });
    const res = await leased.api("POST", `/v1/mailboxes/${s.agent.id}/api-keys`, { body: { name: "x", scope: "mailbox" }, headers: idem(key) });
    expect(res.status).toBe(201);
  });
});

describe("what is stored", () => {
  let t2: TestService;
  beforeAll(async () => {
    t2 = await startTestService();
  });
  afterAll(() => t2.stop());

  test("neither the Idempotency-Key nor a token shown once is readable in the database", async () => {
    const s = await seedAccount(t2);
    const key = newKey("secret-keeper");
    const res = await t2.api("POST", `/v1/mailboxes/${s.agent.id}/api-keys`, { body: { name: "once", scope: "mailbox" }, headers: idem(key) });
    expect(res.status).toBe(201);
    const secret = (res.body.token as string).split(".")[1]!;
    const rows = await t2.service.internals.database.db.select().from(idempotencyKeys);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(key);
    expect(rows.some((r) => r.keyDigest === keyDigest("admin", key))).toBe(true);
    // The caller who holds the key still gets the token back on a retry.
    const replay = await t2.api("POST", `/v1/mailboxes/${s.agent.id}/api-keys`, { body: { name: "once", scope: "mailbox" }, headers: idem(key) });
    expect(replay.headers.get("x-idempotent-replay")).toBe("true");
    expect(replay.body.token).toBe(res.body.token);
  });
});

describe("every route that changes something honours Idempotency-Key", () => {
  let t3: TestService;
  beforeAll(async () => {
    t3 = await startTestService();
  });
  afterAll(() => t3.stop());

  type Seed = Awaited<ReturnType<typeof seedAccount>>;
  /** `status`, when given, is what the first request must answer (the sample really succeeds or fails that way). */
  type Sample = { path: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; token?: string; status?: number };

  /** A sender profile of the seeded account (made here, so the request acts on a real one). */
  async function profileOf(s: Seed): Promise<string> {
    const res = await t3.api("POST", `/v1/accounts/${s.account.id}/sender-profiles`, { body: { address: "someone@example.com" } });
    if (res.status !== 201) throw new Error(`sender profile failed: ${res.status} ${res.text}`);
    return res.body.sender_profile.id;
  }

  /** A processed inbound message of the agent mailbox, with its thread. */
  async function messageOf(s: Seed): Promise<{ id: string; threadId: string }> {
    const to = s.agent.email_address;
    const raw = rfc822({ From: "Ann <ann@example.com>", To: to, Subject: "Invoice 4711", "Message-ID": `<${crypto.randomUUID()}@example.com>`, Date: new Date().toUTCString() }, "Please pay EUR 120 by 2030-01-15. Can you confirm?\r\n");
    const res = await t3.api("POST", `/v1/inbound/email?to=${encodeURIComponent(to)}`, { rawBody: raw, headers: { "content-type": "message/rfc822" } });
    if (res.status !== 202) throw new Error(`inbound failed: ${res.status} ${res.text}`);
    const message = await waitForMessage(t3, res.body.message_ids[0]);
    return { id: message.id, threadId: message.thread_id };
  }

  // A request per mutating route that passes schema validation. A new mutating route without an
  // entry here fails the test, so none can ship without idempotency.
  const samples: Record<string, (s: Seed) => Sample | Promise<Sample>> = {
    "POST /v1/accounts": () => ({ path: "/v1/accounts", body: { slug: uniqueSlug("idem"), displayName: "Idem" } }),
    "POST /v1/accounts/:accountId/mailboxes": (s) => ({ path: `/v1/accounts/${s.account.id}/mailboxes`, body: { slug: uniqueSlug("mb") } }),
    "POST /v1/mailboxes/:mailboxId/disable": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/disable` }),
    "POST /v1/mailboxes/:mailboxId/enable": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/enable` }),
    "POST /v1/mailboxes/:mailboxId/api-keys": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/api-keys`, body: { name: "idem", scope: "mailbox" } }),
    "POST /v1/mailboxes/:mailboxId/api-keys/:keyId/revoke": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/api-keys/${s.agentKey.id}/revoke` }),
    "POST /v1/mailboxes/:mailboxId/drafts": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/drafts`, body: { subject: "idem" } }),
    "PUT /v1/drafts/:draftId": (s) => ({ path: `/v1/drafts/00000000-0000-4000-8000-000000000000`, body: { subject: "none" } }),
    "DELETE /v1/drafts/:draftId": (s) => ({ path: `/v1/drafts/00000000-0000-4000-8000-000000000000` }),
    "POST /v1/mailboxes/:mailboxId/labels": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/labels`, body: { name: "Idem" } }),
    "DELETE /v1/labels/:labelId": (s) => ({ path: `/v1/labels/00000000-0000-4000-8000-000000000000` }),
    // Messages and threads of a fresh account do not exist yet: these replay their 404.
    "POST /v1/messages/:messageId/archive": () => ({ path: `/v1/messages/00000000-0000-4000-8000-000000000000/archive` }),
    "POST /v1/messages/:messageId/review": () => ({ path: `/v1/messages/00000000-0000-4000-8000-000000000000/review` }),
    "POST /v1/messages/:messageId/labels/:labelId": () => ({ path: `/v1/messages/00000000-0000-4000-8000-000000000000/labels/00000000-0000-4000-8000-000000000001` }),
    "DELETE /v1/messages/:messageId/labels/:labelId": () => ({ path: `/v1/messages/00000000-0000-4000-8000-000000000000/labels/00000000-0000-4000-8000-000000000001` }),
    "POST /v1/threads/:threadId/archive": () => ({ path: `/v1/threads/00000000-0000-4000-8000-000000000000/archive` }),
    "POST /v1/threads/:threadId/reopen": () => ({ path: `/v1/threads/00000000-0000-4000-8000-000000000000/reopen` }),
    "POST /v1/threads/:threadId/labels/:labelId": () => ({ path: `/v1/threads/00000000-0000-4000-8000-000000000000/labels/00000000-0000-4000-8000-000000000001` }),
    "DELETE /v1/threads/:threadId/labels/:labelId": () => ({ path: `/v1/threads/00000000-0000-4000-8000-000000000000/labels/00000000-0000-4000-8000-000000000001` }),
    "POST /v1/inbound/email": (s) => ({
      path: `/v1/inbound/email?to=${encodeURIComponent(s.agent.email_address)}`,
      rawBody: "From: idem@example.com\r\nSubject: idem\r\n\r\nonce\r\n",
      headers: { "content-type": "message/rfc822" },
    }),
    "POST /v1/mailboxes/:mailboxId/send": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/send`, body: { to: ["idem@example.com"], subject: "idem", textBody: "once" } }),
    "POST /v1/messages/:messageId/reply": () => ({ path: `/v1/messages/00000000-0000-4000-8000-000000000000/reply`, body: { textBody: "none" } }),
    "POST /v1/drafts/:draftId/send": () => ({ path: `/v1/drafts/00000000-0000-4000-8000-000000000000/send` }),
    "POST /v1/mailboxes/:mailboxId/webhooks": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/webhooks`, body: { url: "https://idem.example.com/hook", events: ["message.sent"] } }),
    // Endpoints of a fresh account do not exist yet: these replay their 404.
    "PATCH /v1/webhooks/:endpointId": () => ({ path: `/v1/webhooks/00000000-0000-4000-8000-000000000000`, body: { enabled: false } }),
    "DELETE /v1/webhooks/:endpointId": () => ({ path: `/v1/webhooks/00000000-0000-4000-8000-000000000000` }),
    "POST /v1/webhooks/:endpointId/rotate-secret": () => ({ path: `/v1/webhooks/00000000-0000-4000-8000-000000000000/rotate-secret` }),
    "POST /v1/webhooks/:endpointId/deliveries/:deliveryId/replay": () => ({ path: `/v1/webhooks/00000000-0000-4000-8000-000000000000/deliveries/00000000-0000-4000-8000-000000000001/replay` }),
    "POST /v1/webhooks/:endpointId/replay-failed": () => ({ path: `/v1/webhooks/00000000-0000-4000-8000-000000000000/replay-failed`, body: {} }),
    "PUT /v1/mailboxes/:mailboxId/policy": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/policy`, body: { allow_auto_reply: false } }),
    "POST /v1/accounts/:accountId/suppressions": (s) => ({ path: `/v1/accounts/${s.account.id}/suppressions`, body: { address: "someone@example.com" } }),
    "DELETE /v1/accounts/:accountId/suppressions": (s) => ({ path: `/v1/accounts/${s.account.id}/suppressions?address=nobody@example.com` }),
    // A new profile is 201 (a second run would answer 200): the replay keeps the 201.
    "POST /v1/accounts/:accountId/sender-profiles": (s) => ({ path: `/v1/accounts/${s.account.id}/sender-profiles`, body: { address: "someone@example.com", disposition: "trusted" }, status: 201 }),
    // Changes to a real profile: the replay returns the first answer (same updated_at).
    "PUT /v1/sender-profiles/:profileId": async (s) => ({ path: `/v1/sender-profiles/${await profileOf(s)}`, body: { disposition: "blocked", notes: "changed once" }, status: 200 }),
    "PATCH /v1/sender-profiles/:profileId": async (s) => ({ path: `/v1/sender-profiles/${await profileOf(s)}`, body: { display_name: "Some One" }, status: 200 }),
    // A second run would be 404: the replay is the 200 of the delete.
    "DELETE /v1/sender-profiles/:profileId": async (s) => ({ path: `/v1/sender-profiles/${await profileOf(s)}`, status: 200 }),
    // Generated once (force makes a new result each run, so only a replay answers the same body).
    "POST /v1/sender-profiles/:profileId/intelligence": async (s) => ({ path: `/v1/sender-profiles/${await profileOf(s)}/intelligence`, body: { force: true }, status: 200 }),
    // POSTs that only read, replayed all the same.
    "POST /v1/mailboxes/:mailboxId/search": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/search`, body: { query: "invoice", limit: 5 }, status: 200 }),
    "POST /v1/messages/:messageId/summary": async (s) => ({ path: `/v1/messages/${(await messageOf(s)).id}/summary`, body: { force: true }, status: 200 }),
    "POST /v1/messages/:messageId/extractions": async (s) => ({ path: `/v1/messages/${(await messageOf(s)).id}/extractions`, body: {}, status: 200 }),
    // The body is optional.
    "POST /v1/threads/:threadId/digest": async (s) => ({ path: `/v1/threads/${(await messageOf(s)).threadId}/digest`, status: 200 }),
    "POST /v1/mailboxes/:mailboxId/actions": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/actions`, body: { name: "idem_action" } }),
    "PUT /v1/mailboxes/:mailboxId/actions/:actionName": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/actions/send_message`, body: { description: "changed once" } }),
    "DELETE /v1/mailboxes/:mailboxId/actions/:actionName": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/actions/send_message` }),
    "PUT /v1/mailboxes/:mailboxId/autopilot": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/autopilot`, body: { mode: "enforce" } }),
    // A protocol message is sent once: the replay returns the same message id.
    "POST /.agent/inbox": (s) => ({ path: "/.agent/inbox", body: { subject: "idem", body: "once" }, headers: { host: s.agent.protocol_host }, token: s.primaryKey.token }),
    "POST /.agent/inbox/:messageId/respond": (s) => ({ path: `/.agent/inbox/00000000-0000-4000-8000-000000000000/respond`, body: { body: "none" }, headers: { host: s.agent.protocol_host }, token: s.agentKey.token }),
    "POST /v1/mailboxes/:mailboxId/callback-secret": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/callback-secret`, body: { rotate: true } }),
    "POST /v1/mailboxes/:mailboxId/agent-runtime-binding": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/agent-runtime-binding`, body: { agentId: "idem", runtimeBaseUrl: "https://runtime.example.com" } }),
    "DELETE /v1/mailboxes/:mailboxId/agent-runtime-binding": (s) => ({ path: `/v1/mailboxes/${s.agent.id}/agent-runtime-binding` }),
    // The MCP server: a JSON-RPC message is replayed like any POST; DELETE is its 405.
    "POST /mcp": (s) => ({ path: "/mcp", body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "create_draft", arguments: { subject: "idem" } } }, token: s.agentKey.token, status: 200 }),
    "DELETE /mcp": (s) => ({ path: "/mcp", token: s.agentKey.token, status: 405 }),
  };
  const mutating = Object.keys(ROUTE_AUTH).filter((r) => /^(POST|PUT|PATCH|DELETE) /.test(r));

  test.each(mutating)("%s", async (route) => {
    const sample = samples[route];
    if (!sample) throw new Error(`no idempotency sample for ${route}: add one`);
    const s = await seedAccount(t3);
    const { path, body, rawBody, headers, token, status } = await sample(s);
    const method = route.split(" ")[0]!;
    const key = newKey("every");
    const first = await t3.api(method, path, { body, rawBody, token, headers: { ...headers, ...idem(key) } });
    expect(first.status).toBeLessThan(500);
    if (status !== undefined) expect({ route, status: first.status }).toEqual({ route, status });
    const second = await t3.api(method, path, { body, rawBody, token, headers: { ...headers, ...idem(key) } });
    expect(second.headers.get("x-idempotent-replay")).toBe("true");
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
  });
});
