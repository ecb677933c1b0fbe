import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { UUID, expectError, seedAccount, startTestService, uniqueSlug, type ApiResponse, type TestService } from "./harness.ts";

let t: TestService;
let seed: Awaited<ReturnType<typeof seedAccount>>;
beforeAll(async () => {
  t = await startTestService();
  seed = await seedAccount(t);
});
afterAll(() => t.stop());


describe("unknown routes", () => {
  test.each([
    ["GET", "/nope"],
    ["GET", "/v1/nope"],
    ["POST", "/v1/mailboxes"],
    ["DELETE", "/v1/accounts"],
    ["GET", "/v1/accounts/00000000-0000-4000-8000-000000000000/nope"],
  ])("%s %s → 404 not_found envelope", async (method, path) => {
    expectError(await t.api(method, path), 404, "not_found");
    expectError(await t.api(method, path, { token: null }), 404, "not_found");
  });
});

describe("malformed JSON", () => {
  test.each(["{bad", "{\"slug\": ", "[1,2", "nul", "{'slug':'x'}"])("%p with valid auth → 400 invalid_json", async (raw) => {
    expectError(await t.api("POST", "/v1/accounts", { rawBody: raw }), 400, "invalid_json");
  });

  test("with a charset in the content type too", async () => {
    const res = await t.api("POST", "/v1/accounts", { rawBody: "{bad", headers: { "content-type": "application/json; charset=utf-8" } });
    expectError(res, 400, "invalid_json");
  });

  test("on a mailbox route with the mailbox's key", async () => {
    const res = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/disable`, { token: seed.agentKey.token, rawBody: "{bad" });
    expectError(res, 400, "invalid_json");
  });

  test("without auth → 401: auth is checked before the body", async () => {
    expectError(await t.api("POST", "/v1/accounts", { token: null, rawBody: "{bad" }), 401, "missing_authorization");
    expectError(await t.api("POST", "/v1/accounts", { token: "wrong-token-wrong-token", rawBody: "{bad" }), 401, "invalid_token");
  });

  test("with a key of another mailbox → 403, not invalid_json", async () => {
    const res = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/disable`, { token: seed.primaryKey.token, rawBody: "{bad" });
    expectError(res, 403, "forbidden");
  });
});

describe("schema validation", () => {
  test("wrong types → 400 validation_error with details.fields naming each field path", async () => {
    const res = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/api-keys`, { body: { name: 5, scope: "admin" } });
    expectError(res, 400, "validation_error");
    const fields = res.body.error.details.fields as { path: string; message: string }[];
    expect(Array.isArray(fields)).toBe(true);
    const paths = fields.map((f) => f.path);
    expect(paths).toContain("body.name");
    expect(paths).toContain("body.scope");
    for (const f of fields) expect(typeof f.message).toBe("string");
  });

  test("a missing required field is named", async () => {
    const res = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/api-keys`, { body: { scope: "mailbox" } });
    expectError(res, 400, "validation_error");
    expect(res.body.error.details.fields.map((f: { path: string }) => f.path)).toEqual(["body.name"]);
    expect(res.body.error.message).toContain("name");
  });

  test("a body that is JSON but not an object", async () => {
    for (const raw of ["[]", "42", "\"text\"", "null"]) {
      const res = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/api-keys`, { rawBody: raw });
      expectError(res, 400, "validation_error");
    }
  });

  test("an empty body where one is required", async () => {
    expectError(await t.api("POST", `/v1/mailboxes/${seed.agent.id}/api-keys`, { rawBody: "" }), 400, "validation_error");
    expectError(await t.api("POST", `/v1/mailboxes/${seed.agent.id}/api-keys`), 400, "validation_error");
  });

  test.each([
    ["GET", "/v1/mailboxes/not-a-uuid"],
    ["GET", "/v1/accounts/12345"],
    ["GET", "/v1/accounts/not-a-uuid/mailboxes"],
    ["POST", "/v1/mailboxes/not-a-uuid/disable"],
    ["GET", "/v1/mailboxes/00000000-0000-0000-0000-00000000000g/api-keys"],
  ])("non-uuid path params: %s %s → 400 validation_error naming params.*", async (method, path) => {
    const res = await t.api(method, path);
    expectError(res, 400, "validation_error");
    const fields = res.body.error.details.fields as { path: string }[];
    expect(fields.length).toBeGreaterThan(0);
    for (const f of fields) expect(f.path).toMatch(/^params\./);
  });

  test("a non-uuid key id in the revoke path → 400 naming params.keyId", async () => {
    const res = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/api-keys/nope/revoke`);
    expectError(res, 400, "validation_error");
    expect(res.body.error.details.fields.map((f: { path: string }) => f.path)).toEqual(["params.keyId"]);
  });
});

describe("x-request-id", () => {
  test("every response carries one: success, 4xx, unknown route", async () => {
    const responses = [
      await t.api("GET", `/v1/mailboxes/${seed.agent.id}`),
      await t.api("GET", "/health", { token: null }),
      await t.api("GET", "/openapi.json", { token: null }),
      await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug(), displayName: "Req Id" } }),
      await t.api("GET", `/v1/mailboxes/${seed.agent.id}`, { token: null }),
      await t.api("GET", `/v1/accounts/${seed.account.id}`, { token: seed.agentKey.token }),
      await t.api("GET", "/v1/accounts/00000000-0000-4000-8000-000000000000"),
      await t.api("POST", "/v1/accounts", { rawBody: "{bad" }),
      await t.api("GET", "/nope"),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 201, 401, 403, 404, 400, 404]);
    const ids = responses.map((r) => r.headers.get("x-request-id"));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test.each(["abc-123", "req.42:x_y", "A".repeat(128), "01HZX3Y4Z5"])("a sane incoming id %p is echoed back", async (id) => {
    const ok = await t.api("GET", `/v1/mailboxes/${seed.agent.id}`, { headers: { "x-request-id": id } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-request-id")).toBe(id);
    const err = await t.api("GET", "/nope", { headers: { "x-request-id": id } });
    expect(err.headers.get("x-request-id")).toBe(id);
    const unauth = await t.api("GET", `/v1/mailboxes/${seed.agent.id}`, { token: null, headers: { "x-request-id": id } });
    expect(unauth.headers.get("x-request-id")).toBe(id);
  });

  test.each(["has space", "A".repeat(129), "semi;colon", "<script>", "quote\"d"])("an unsafe incoming id %p is replaced", async (id) => {
    const res = await t.api("GET", `/v1/mailboxes/${seed.agent.id}`, { headers: { "x-request-id": id } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(UUID);
  });
});

describe("payload size", () => {
  test("a JSON body over the limit → 413 payload_too_large", async () => {
    const big = JSON.stringify({ slug: uniqueSlug(), displayName: "x".repeat(11 * 1024 * 1024) });
    const res = await t.api("POST", "/v1/accounts", { rawBody: big });
    expectError(res, 413, "payload_too_large");
  });

  test("a body just under the limit is parsed normally (and then validated)", async () => {
    const res = await t.api("POST", "/v1/accounts", { rawBody: JSON.stringify({ slug: uniqueSlug(), displayName: "x".repeat(1024 * 1024) }) });
    expectError(res, 400, "validation_error");
    expect(res.body.error.details.fields.map((f: { path: string }) => f.path)).toEqual(["body.displayName"]);
  });
});

describe("unexpected exceptions", () => {
  test("a dead database → 500 internal_error with the request id and no stack trace", async () => {
    const broken = await startTestService();
    try {
      // Warm up the admin path so the failure really comes from the database, not start-up.
      const before = await broken.api("POST", "/v1/accounts", { body: { slug: uniqueSlug(), displayName: "Before" } });
      expect(before.status).toBe(201);

      await broken.service.internals.database.close();

      const res = await broken.api("GET", `/v1/accounts/${crypto.randomUUID()}`, { headers: { "x-request-id": "req-500-check" } });
      expectError(res, 500, "internal_error");
      expect(res.body.error.message).toBe("internal server error");
      expect(res.body.error.details).toEqual({ request_id: "req-500-check" });
      expect(res.headers.get("x-request-id")).toBe("req-500-check");
      for (const leak of ["stack", "    at ", ".ts:", "node_modules", "Error:", "closed", "ended", "PGlite", "postgres"]) {
        expect(res.text).not.toContain(leak);
      }

      // Without an incoming id, a generated one is both in the header and the details.
      const res2 = await broken.api("GET", `/v1/accounts/${crypto.randomUUID()}`);
      expectError(res2, 500, "internal_error");
      expect(res2.body.error.details.request_id).toMatch(UUID);
      expect(res2.body.error.details.request_id).toBe(res2.headers.get("x-request-id"));

      // A mutating request fails the same way.
      const res3 = await broken.api("POST", "/v1/accounts", { body: { slug: uniqueSlug(), displayName: "After" } });
      expectError(res3, 500, "internal_error");
    } finally {
      let stopError: unknown = null;
      try {
        await broken.stop();
      } catch (err) {
        stopError = err;
      }
      expect(stopError).toBeNull();
    }
  });
});
