import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { apiKeys } from "../db/schema/index.ts";
import { issueKey, seedAccount, startTestService, type TestService } from "./harness.ts";

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

describe("POST /v1/mailboxes/:id/api-keys", () => {
  test("issues svc_{keyId}.{secret} with a 256-bit base64url secret, shown once, stored as a digest", async () => {
    const { agent } = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/api-keys`, { body: { name: "ci agent", scope: "mailbox" } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["api_key", "token"]);
    expect(res.body.api_key).toEqual({ id: res.body.api_key.id, name: "ci agent", scope: "mailbox", status: "active" });
    const m = /^svc_([0-9a-f-]{36})\.([A-Za-z0-9_-]+)$/.exec(res.body.token);
    expect(m).not.toBeNull();
    expect(m![1]).toBe(res.body.api_key.id);
    expect(Buffer.from(m![2]!, "base64url").length).toBeGreaterThanOrEqual(32);

    const [row] = await t.service.internals.database.db.select().from(apiKeys).where(eq(apiKeys.id, res.body.api_key.id));
    expect(JSON.stringify(row)).not.toContain(m![2]!);
    expect(row!.secretDigest).toBe(createHash("sha256").update(m![2]!).digest("hex"));

    // The key works for its mailbox; the secret is never returned again.
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}`, { token: res.body.token })).status).toBe(200);
    const listed = await t.api("GET", `/v1/mailboxes/${agent.id}/api-keys`);
    expect(listed.text).not.toContain(m![2]!);
    expect(listed.body.items.map((k: { id: string }) => k.id)).toContain(res.body.api_key.id);
  });

  test("two keys of one mailbox are distinct and both work", async () => {
    const { agent } = await seedAccount(t);
    const a = await issueKey(t, agent.id, "a");
    const b = await issueKey(t, agent.id, "b");
    expect(a.token).not.toBe(b.token);
    for (const k of [a, b]) expect((await t.api("GET", `/v1/mailboxes/${agent.id}`, { token: k.token })).status).toBe(200);
  });

  test.each([
    [{ name: "x", scope: "account" }, "scope"],
    [{ name: "x" }, "scope"],
    [{ scope: "mailbox" }, "name"],
    [{ name: "", scope: "mailbox" }, "name"],
  ])("%p is a validation error on %s", async (body, field) => {
    const { agent } = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/api-keys`, { body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
    expect(JSON.stringify(res.body.error.details)).toContain(field);
  });

  test("404 for an unknown mailbox", async () => {
    const res = await t.api("POST", "/v1/mailboxes/00000000-0000-4000-8000-000000000000/api-keys", { body: { name: "x", scope: "mailbox" } });
    expect(res.status).toBe(404);
  });
});

describe("revoke", () => {
  test("returns the key as revoked and the token stops working at once", async () => {
    const { agent } = await seedAccount(t);
    const key = await issueKey(t, agent.id);
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}`, { token: key.token })).status).toBe(200);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/api-keys/${key.id}/revoke`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ api_key: { id: key.id, name: "test key", scope: "mailbox", status: "revoked" } });
    const after = await t.api("GET", `/v1/mailboxes/${agent.id}`, { token: key.token });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("invalid_token");
    // Revoking again is harmless and still says revoked.
    expect((await t.api("POST", `/v1/mailboxes/${agent.id}/api-keys/${key.id}/revoke`)).body.api_key.status).toBe("revoked");
    const listed = (await t.api("GET", `/v1/mailboxes/${agent.id}/api-keys`)).body.items.find((k: { id: string }) => k.id === key.id);
    expect(listed.status).toBe("revoked");
    expect(listed.revoked_at).toMatch(/Z$/);
  });

  test("other keys of the mailbox keep working", async () => {
    const { agent } = await seedAccount(t);
    const a = await issueKey(t, agent.id);
    const b = await issueKey(t, agent.id);
    await t.api("POST", `/v1/mailboxes/${agent.id}/api-keys/${a.id}/revoke`);
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}`, { token: b.token })).status).toBe(200);
  });

  test("a key is only found under its own mailbox: 404 elsewhere, and unknown keys are 404", async () => {
    const one = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${one.primary.id}/api-keys/${one.agentKey.id}/revoke`);
    expect(res.status).toBe(404);
    expect((await t.api("GET", `/v1/mailboxes/${one.agent.id}`, { token: one.agentKey.token })).status).toBe(200);
    const unknown = await t.api("POST", `/v1/mailboxes/${one.agent.id}/api-keys/00000000-0000-4000-8000-000000000000/revoke`);
    expect(unknown.status).toBe(404);
  });
});
