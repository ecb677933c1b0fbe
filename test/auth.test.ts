import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { digest } from "../src/auth/tokens.ts";
import { ROUTE_AUTH } from "../src/http/route-auth.ts";
import { expectError, issueKey, seedAccount, sleep, startTestService, usingNats, usingPostgres, type ApiResponse, type TestService } from "./harness.ts";

/**
 * The shared auth suite: every non-public route of the route table gets the same battery of
 * checks (spec section 5), so a route added to the table is covered without writing anything.
 */

let t: TestService;
let seed: Awaited<ReturnType<typeof seedAccount>>;
/** A key of the agent mailbox used only as the `:keyId` of paths, never to authenticate. */
let pathKey: { id: string; token: string };

beforeAll(async () => {
  t = await startTestService();
  seed = await seedAccount(t);
  pathKey = await issueKey(t, seed.agent.id, "path key");
});
afterAll(() => t.stop());

const randomSecret = () => randomBytes(32).toString("base64url"); // 43 base64url characters

const routes = Object.entries(ROUTE_AUTH)
  .filter(([, rule]) => rule.level !== "public")
  .map(([key, rule]) => {
    const [method, pattern] = key.split(" ") as [string, string];
    return { key, method, pattern, level: rule.level as "admin" | "mailbox" | "key" };
  });

/**
 * The route's path with the seeded account's ids; the agent mailbox is the one a path names.
 * Drafts, labels and sender profiles are made fresh for each call, so a DELETE accepted in one
 * case does not leave the next case pointing at nothing.
 */
let pathMessage: Promise<{ id: string; threadId: string; attachmentId: string }> | undefined;

/** One message with an attachment, delivered to the agent mailbox through the HTTP ingress and processed. */
async function deliverPathMessage(): Promise<{ id: string; threadId: string; attachmentId: string }> {
  const to = seed.agent.email_address;
  const raw = [
    `From: sender@example.com`,
    `To: ${to}`,
    `Subject: auth suite`,
    `Message-ID: <auth.${crypto.randomUUID()}@example.com>`,
    `MIME-Version: 1.0`,
    `Content-Type: multipart/mixed; boundary="auth-b"`,
    ``,
    `--auth-b`,
    `Content-Type: text/plain`,
    ``,
    `Hello.`,
    `--auth-b`,
    `Content-Type: text/plain`,
    `Content-Disposition: attachment; filename="a.txt"`,
    ``,
    `attached`,
    `--auth-b--`,
    ``,
  ].join("\r\n");
  const res = await t.api("POST", `/v1/inbound/email?to=${encodeURIComponent(to)}`, { rawBody: raw, headers: { "content-type": "message/rfc822" } });
  if (res.status !== 202) throw new Error(`auth suite: inbound failed: ${res.status} ${res.text}`);
  const id = res.body.message_ids[0];
  for (let i = 0; i < 500; i++) {
    const got = await t.api("GET", `/v1/messages/${id}`);
    const m = got.body?.message;
    if (m?.thread_id && m.attachments.length > 0) return { id, threadId: m.thread_id, attachmentId: m.attachments[0].id };
    await sleep(20);
  }
  throw new Error(`auth suite: message ${id} was not processed`);
}

async function pathOf(pattern: string): Promise<string> {
  let path = pattern
    .replace(":accountId", seed.account.id)
    .replace(":mailboxId", seed.agent.id)
    .replace(":keyId", pathKey.id)
    .replace(":actionName", "send_message");
  if (path.includes(":draftId")) {
    const draft = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/drafts`, { body: { subject: "auth suite" } });
    path = path.replace(":draftId", draft.body.draft.id);
  }
  if (path.includes(":labelId")) {
    const label = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/labels`, { body: { name: `auth-${crypto.randomUUID()}` } });
    path = path.replace(":labelId", label.body.label.id);
  }
  if (path.includes(":profileId")) {
    const profile = await t.api("POST", `/v1/accounts/${seed.account.id}/sender-profiles`, { body: { address: `auth-${crypto.randomUUID()}@example.com` } });
    if (profile.status !== 201) throw new Error(`auth suite: sender profile failed: ${profile.status} ${profile.text}`);
    path = path.replace(":profileId", profile.body.sender_profile.id);
  }
  if (path.includes(":messageId") || path.includes(":threadId") || path.includes(":attachmentId")) {
    const m = await (pathMessage ??= deliverPathMessage());
    path = path.replace(":messageId", m.id).replace(":threadId", m.threadId).replace(":attachmentId", m.attachmentId);
  }
  if (path.includes(":endpointId")) {
    // A mailbox has a bounded number of endpoints (WEBHOOK_MAX_ENDPOINTS_PER_MAILBOX): the earlier cases' go first.
    for (const e of (await t.api("GET", `/v1/mailboxes/${seed.agent.id}/webhooks`)).body.items) await t.api("DELETE", `/v1/webhooks/${e.id}`);
    const hook = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/webhooks`, { body: { url: "https://hooks.example.com/auth", events: ["message.sent"] } });
    if (hook.status !== 201) throw new Error(`auth suite: webhook endpoint failed: ${hook.status} ${hook.text}`);
    path = path.replace(":endpointId", hook.body.webhook.id);
  }
  // A delivery id that does not exist: the auth check comes first, the handler answers 404.
  path = path.replace(":deliveryId", crypto.randomUUID());
  if (path.includes(":")) throw new Error(`auth suite: no test value for a parameter of ${pattern}; add one to pathOf()`);
  return path;
}

test("the route table has admin and mailbox routes to check", () => {
  expect(routes.filter((r) => r.level === "admin").length).toBeGreaterThan(0);
  expect(routes.filter((r) => r.level === "mailbox").length).toBeGreaterThan(0);
  for (const r of routes) expect(["GET", "POST", "PUT", "PATCH", "DELETE"]).toContain(r.method);
});

describe.each(routes)("$key ($level)", ({ key: route, method, pattern, level }) => {
  // The agent protocol is served on the mailbox's protocol host.
  const host = (): Record<string, string> => (pattern.startsWith("/.agent") ? { host: seed.agent.protocol_host } : {});
  const call = async (opts: Parameters<TestService["api"]>[2] = {}) => t.api(method, await pathOf(pattern), { ...opts, headers: { ...host(), ...(opts.headers ?? {}) } });

  test("no Authorization header → 401 missing_authorization", async () => {
    expectError(await call({ token: null }), 401, "missing_authorization");
  });

  test("a blank Authorization header → 401 missing_authorization", async () => {
    expectError(await call({ token: null, headers: { authorization: "   " } }), 401, "missing_authorization");
  });

  test("a non-Bearer scheme → 401 invalid_authorization", async () => {
    expectError(await call({ token: null, headers: { authorization: "Basic abc" } }), 401, "invalid_authorization");
    expectError(await call({ token: null, headers: { authorization: "Bearer" } }), 401, "invalid_authorization");
    expectError(await call({ token: null, headers: { authorization: `Token ${t.admin}` } }), 401, "invalid_authorization");
  });

  test("a malformed svc_ token → 401 invalid_authorization", async () => {
    expectError(await call({ token: "svc_garbage" }), 401, "invalid_authorization");
    expectError(await call({ token: `svc_not-a-uuid.${randomSecret()}` }), 401, "invalid_authorization");
    expectError(await call({ token: `svc_${crypto.randomUUID()}.short` }), 401, "invalid_authorization");
    expectError(await call({ token: `svc_${crypto.randomUUID()}` }), 401, "invalid_authorization");
  });

  test("a well-formed but unknown API key → 401 invalid_token", async () => {
    expectError(await call({ token: `svc_${crypto.randomUUID()}.${randomSecret()}` }), 401, "invalid_token");
  });

  test("a real key id with the wrong secret → 401 invalid_token", async () => {
    expectError(await call({ token: `svc_${seed.agentKey.id}.${randomSecret()}` }), 401, "invalid_token");
  });

  test("a wrong admin token, of the same or odd lengths → 401 invalid_token, never 500", async () => {
    const sameLength = `${t.admin.slice(0, -1)}${t.admin.endsWith("0") ? "1" : "0"}`;
    for (const token of [sameLength, "x", "y".repeat(1000), `${t.admin}x`, t.admin.slice(1)]) {
      expectError(await call({ token }), 401, "invalid_token");
    }
  });

  test("the admin token is accepted (not 401/403)", async () => {
    const res = await call({});
    // Protocol messages are sent by a mailbox, and the MCP tools act on the key's mailbox: the
    // admin token authenticates, then the handler refuses it.
    if (route === "POST /.agent/inbox" || route === "POST /mcp") expect(res.status).not.toBe(401);
    else expect([401, 403]).not.toContain(res.status);
    expect(res.status).toBeLessThan(500);
  });

  if (level === "key") {
    test("any mailbox's key authenticates (the handler decides sender and recipient)", async () => {
      for (const token of [seed.agentKey.token, seed.primaryKey.token, (await seedAccount(t)).agentKey.token]) {
        const res = await call({ token });
        expect(res.status).not.toBe(401);
        expect(res.status).toBeLessThan(500);
      }
    });
  } else if (level === "admin") {
    test("a valid mailbox key, even of the mailbox in the path → 403 forbidden", async () => {
      expectError(await call({ token: seed.agentKey.token }), 403, "forbidden");
      expectError(await call({ token: seed.primaryKey.token }), 403, "forbidden");
    });
  } else {
    test("the key of another mailbox → 403 forbidden", async () => {
      expectError(await call({ token: seed.primaryKey.token }), 403, "forbidden");
    });

    test("the key of a mailbox in another account → 403 forbidden", async () => {
      const other = await seedAccount(t);
      expectError(await call({ token: other.agentKey.token }), 403, "forbidden");
    });

    test("the mailbox's own key is accepted (not 401/403)", async () => {
      const res = await call({ token: seed.agentKey.token });
      expect([401, 403]).not.toContain(res.status);
      expect(res.status).toBeLessThan(500);
    });
  }
});

describe("Bearer parsing", () => {
  test("the scheme is case-insensitive", async () => {
    const res = await t.api("GET", `/v1/mailboxes/${seed.agent.id}`, { token: null, headers: { authorization: `bearer ${seed.agentKey.token}` } });
    expect(res.status).toBe(200);
    const admin = await t.api("GET", `/v1/accounts/${seed.account.id}`, { token: null, headers: { authorization: `BEARER ${t.admin}` } });
    expect(admin.status).toBe(200);
  });

  test("a public route needs no token, and a bad token there is ignored", async () => {
    expect((await t.api("GET", "/health", { token: null })).status).toBe(200);
    expect((await t.api("GET", "/health", { token: "x" })).status).toBe(200);
  });
});

describe("mailbox ids in paths", () => {
  test("an upper-case mailbox id names the same mailbox: a change made through it is seen through the lower-case id", async () => {
    const s = await seedAccount(t);
    const lower = s.agent.id as string;
    const upper = lower.toUpperCase();
    // Load the mailbox through the canonical id first, then write through the other spelling.
    expect((await t.api("GET", `/v1/mailboxes/${lower}`, { token: s.agentKey.token })).body.mailbox.status).toBe("active");
    const disabled = await t.api("POST", `/v1/mailboxes/${upper}/disable`, { token: s.agentKey.token });
    expect(disabled.status).toBe(200);
    expect(disabled.body.mailbox.status).toBe("disabled");
    const after = await t.api("GET", `/v1/mailboxes/${lower}`, { token: s.agentKey.token });
    expect(after.status).toBe(200);
    expect(after.body.mailbox.status).toBe("disabled");
  });
});

describe("revocation", () => {
  test("a revoked key is refused at once on the same node (401 invalid_token), also on admin routes", async () => {
    const key = await issueKey(t, seed.agent.id, "to revoke");
    expect((await t.api("GET", `/v1/mailboxes/${seed.agent.id}`, { token: key.token })).status).toBe(200);
    const revoked = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/api-keys/${key.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.api_key).toEqual({ id: key.id, name: "to revoke", scope: "mailbox", status: "revoked" });

    expectError(await t.api("GET", `/v1/mailboxes/${seed.agent.id}`, { token: key.token }), 401, "invalid_token");
    expectError(await t.api("POST", `/v1/mailboxes/${seed.agent.id}/disable`, { token: key.token }), 401, "invalid_token");
    expectError(await t.api("GET", `/v1/accounts/${seed.account.id}`, { token: key.token }), 401, "invalid_token");
    // Revoking again returns it unchanged; the other keys of the mailbox keep working.
    const again = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/api-keys/${key.id}/revoke`);
    expect(again.status).toBe(200);
    expect(again.body.api_key.status).toBe("revoked");
    expect((await t.api("GET", `/v1/mailboxes/${seed.agent.id}`, { token: seed.agentKey.token })).status).toBe(200);
  });

  test("a revoked key stays refused after the cache TTL has passed", async () => {
    const key = await issueKey(t, seed.agent.id, "revoke and wait");
    expect((await t.api("GET", `/v1/mailboxes/${seed.agent.id}`, { token: key.token })).status).toBe(200);
    expect((await t.api("POST", `/v1/mailboxes/${seed.agent.id}/api-keys/${key.id}/revoke`)).status).toBe(200);
    await sleep(1100);
    expectError(await t.api("GET", `/v1/mailboxes/${seed.agent.id}`, { token: key.token }), 401, "invalid_token");
  });

  test("revoking a key through another mailbox's path is 404 and leaves the key working", async () => {
    const key = await issueKey(t, seed.agent.id, "wrong path");
    const res = await t.api("POST", `/v1/mailboxes/${seed.primary.id}/api-keys/${key.id}/revoke`);
    expectError(res, 404, "not_found");
    expect((await t.api("GET", `/v1/mailboxes/${seed.agent.id}`, { token: key.token })).status).toBe(200);
  });
});

describe("peekKey, the hot read's check (src/http/fast-read.ts)", () => {
  test("an answer kept for a header holds only while the key's record does: a wrong secret, a revoke or a forgotten key is never answered from it", async () => {
    const { Authenticator } = await import("../src/auth/authenticate.ts");
    const keys = t.service.internals.keys;
    const auth = new Authenticator(`admin-${crypto.randomUUID()}`, keys);
    const key = await issueKey(t, seed.agent.id, "peeked");
    const header = `Bearer ${key.token}`;
    // Not in the cache yet: no answer (the app reads the key).
    keys.invalidate(key.id);
    expect(auth.peekKey(header)).toBeUndefined();
    const record = await keys.get(key.id);
    expect(record?.status).toBe("active");
    const first = auth.peekKey(header);
    expect(first).toEqual({ kind: "key", keyId: key.id, mailboxId: seed.agent.id, runtime: false });
    expect(auth.peekKey(header)).toEqual(first!);
    // Another secret for the same key, and the same token spelled with other blanks.
    expect(auth.peekKey(`Bearer svc_${key.id}.${randomSecret()}`)).toBeUndefined();
    expect(auth.peekKey(`Bearer  ${key.token} `)).toEqual(first!);
    // Revoked on this node: the record is replaced, the kept answer does not hold.
    keys.invalidate(key.id, { ...record!, status: "revoked" });
    expect(auth.peekKey(header)).toBeUndefined();
    // Forgotten (a broadcast): no answer until the key is read again.
    keys.invalidate(key.id);
    expect(auth.peekKey(header)).toBeUndefined();
    // Tidy up: the database agrees with what the cache was told.
    expect((await t.api("POST", `/v1/mailboxes/${seed.agent.id}/api-keys/${key.id}/revoke`)).status).toBe(200);
    expect((await keys.get(key.id))?.status).toBe("revoked");
    expect(auth.peekKey(header)).toBeUndefined();
  });
});

describe("KeyStore on the real database", () => {
  test("a revoke during an in-flight fill is not overwritten by the stale 'active' fill", async () => {
    const keys = t.service.internals.keys;
    const key = await issueKey(t, seed.agent.id, "race");
    const secret = key.token.slice(key.token.indexOf(".") + 1);
    const revokedRecord = { id: key.id, mailboxId: seed.agent.id, status: "revoked" as const, digest: digest(secret) };

    // The fill reads the row as 'active' (it is, in the database) ...
    const inFlight = keys.get(key.id);
    // ... while the revoke lands before that read returns.
    keys.invalidate(key.id, revokedRecord);

    const seenByFill = await inFlight;
    expect(seenByFill?.status).toBe("revoked");
    const later = await keys.get(key.id);
    expect(later?.status).toBe("revoked");
    expect(later?.mailboxId).toBe(seed.agent.id);
    expectError(await t.api("GET", `/v1/mailboxes/${seed.agent.id}`, { token: key.token }), 401, "invalid_token");

    // Tidy up: make the database agree with the cache.
    expect((await t.api("POST", `/v1/mailboxes/${seed.agent.id}/api-keys/${key.id}/revoke`)).status).toBe(200);
  });

  test("an invalidation without a record (a broadcast) discards the in-flight fill; the next read sees the database", async () => {
    const keys = t.service.internals.keys;
    const key = await issueKey(t, seed.agent.id, "race 2");
    expect((await keys.get(key.id))?.status).toBe("active");
    keys.invalidate(key.id);
    const inFlight = keys.get(key.id);
    // Revoke in the database directly, as another node would, then broadcast.
    const { apiKeys } = await import("../db/schema/index.ts");
    const { eq } = await import("drizzle-orm");
    await t.service.internals.database.db.update(apiKeys).set({ status: "revoked", revokedAt: new Date() }).where(eq(apiKeys.id, key.id));
    keys.invalidate(key.id);
    await inFlight;
    expect((await keys.get(key.id))?.status).toBe("revoked");
  });

  test("a kept key whose revocation watch fell behind waits for one shared read of the revocations, which sees a revoke", async () => {
    const { KeyStore } = await import("../src/auth/key-store.ts");
    const { apiKeys } = await import("../db/schema/index.ts");
    const { eq } = await import("drizzle-orm");
    const db = t.service.internals.database.db;
    let now = 1_000_000;
    const store = new KeyStore(db, 1000, () => now);
    const stop = store.watchRevocations(3_600_000);
    try {
      const kept = await issueKey(t, seed.agent.id, "kept");
      const revoked = await issueKey(t, seed.agent.id, "revoked behind the watch");
      await sleep(50); // the watch's first read
      expect((await store.get(kept.id))?.status).toBe("active");
      expect((await store.get(revoked.id))?.status).toBe("active");
      // Seconds later, with no read of the watch since (a loaded machine): the key is revoked
      // in the database, as another node would, and no broadcast arrives.
      now += 3000;
      await db.update(apiKeys).set({ status: "revoked", revokedAt: new Date() }).where(eq(apiKeys.id, revoked.id));
      expect(store.peek(kept.id)).toBeUndefined();
      const [a, b] = await Promise.all([store.get(kept.id), store.get(revoked.id)]);
      expect(a?.status).toBe("active");
      expect(b?.status).toBe("revoked");
      // Vouched for again by that one read: answered from memory.
      expect(store.peek(kept.id)?.status).toBe("active");
    } finally {
      stop();
    }
  });

  test("unknown keys are cached as absent and stay absent", async () => {
    const keys = t.service.internals.keys;
    const id = crypto.randomUUID();
    expect(await keys.get(id)).toBeNull();
    expect(await keys.get(id)).toBeNull();
  });
});

describe("two nodes on one database (PostgreSQL only)", () => {
  let a: TestService;
  let b: TestService;
  beforeAll(async () => {
    if (!usingPostgres) return;
    a = await startTestService();
    b = await startTestService();
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  /** Polls node B until the key is refused; returns how long that took (ms), or -1. */
  async function untilRefused(node: TestService, mailboxId: string, token: string, limitMs: number): Promise<number> {
    const started = performance.now();
    while (performance.now() - started < limitMs) {
      const res = await node.api("GET", `/v1/mailboxes/${mailboxId}`, { token });
      if (res.status === 401) {
        expectError(res, 401, "invalid_token");
        return performance.now() - started;
      }
      expect(res.status).toBe(200);
      await sleep(20);
    }
    return -1;
  }

  test.skipIf(!usingPostgres)("a key revoked on node A is refused by node B within a second, even though B had it cached", async () => {
    const s = await seedAccount(a);
    const key = await issueKey(a, s.agent.id, "cross-node");
    // B authenticates it (and caches it), twice to be sure the second one is a cache hit.
    expect((await b.api("GET", `/v1/mailboxes/${s.agent.id}`, { token: key.token })).status).toBe(200);
    expect((await b.api("GET", `/v1/mailboxes/${s.agent.id}`, { token: key.token })).status).toBe(200);

    expect((await a.api("POST", `/v1/mailboxes/${s.agent.id}/api-keys/${key.id}/revoke`)).status).toBe(200);
    // A refuses it at once.
    expectError(await a.api("GET", `/v1/mailboxes/${s.agent.id}`, { token: key.token }), 401, "invalid_token");
    // The promise is "no cache outlives a revoke by more than CACHE_TTL_MS (1 s)": once that
    // much time has passed, B must refuse it, however loaded the machine.
    await sleep(1_000);
    expectError(await b.api("GET", `/v1/mailboxes/${s.agent.id}`, { token: key.token }), 401, "invalid_token");
  });

  test.skipIf(!usingPostgres || !usingNats)("with NATS the revoke reaches node B by broadcast", async () => {
    const s = await seedAccount(a);
    const key = await issueKey(a, s.agent.id, "cross-node nats");
    expect((await b.api("GET", `/v1/mailboxes/${s.agent.id}`, { token: key.token })).status).toBe(200);
    expect((await a.api("POST", `/v1/mailboxes/${s.agent.id}/api-keys/${key.id}/revoke`)).status).toBe(200);
    const took = await untilRefused(b, s.agent.id, key.token, 3000);
    expect(took).toBeGreaterThanOrEqual(0);
  });
});
