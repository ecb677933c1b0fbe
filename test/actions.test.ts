import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkSchema, issuesOf, ValidatorCache } from "../src/protocol/json-schema.ts";
import { expectError, fieldPaths, ISO, seedAccount, startTestService, UUID, type TestService } from "./harness.ts";

let t: TestService;
let s: Awaited<ReturnType<typeof seedAccount>>;
beforeAll(async () => {
  t = await startTestService();
  s = await seedAccount(t);
});
afterAll(() => t.stop());

const path = () => `/v1/mailboxes/${s.agent.id}/actions`;
const PARAMS = { type: "object", properties: { city: { type: "string", minLength: 1 } }, required: ["city"] };

describe("actions CRUD", () => {
  test("an agent mailbox starts with send_message; the primary mailbox with none", async () => {
    const agent = await t.api("GET", path());
    expect(agent.body.items.map((a: { name: string }) => a.name)).toEqual(["send_message"]);
    expect(agent.body.items[0].parameter_schema.required).toEqual(["to", "subject", "text"]);
    const primary = await t.api("GET", `/v1/mailboxes/${s.primary.id}/actions`);
    expect(primary.body.items).toEqual([]);
  });

  test("create: 201 with defaults; both spellings of the schema fields; 409 for a taken name", async () => {
    const res = await t.api("POST", path(), { body: { name: "get_weather", description: "Weather for a city", parameterSchema: PARAMS } });
    expect(res.status).toBe(201);
    expect(res.body.action).toMatchObject({ name: "get_weather", description: "Weather for a city", parameter_schema: PARAMS, enabled: true });
    expect(res.body.action.id).toMatch(UUID);
    expect(res.body.action.created_at).toMatch(ISO);
    expect(res.body.action.response_schema).toMatchObject({ type: "object" });
    const snake = await t.api("POST", path(), { body: { name: "get-time", parameter_schema: PARAMS, response_schema: { type: "object" }, enabled: false } });
    expect(snake.status).toBe(201);
    expect(snake.body.action.enabled).toBe(false);
    expectError(await t.api("POST", path(), { body: { name: "get_weather" } }), 409, "action_exists");
    expectError(await t.api("POST", path(), { body: { name: "x", parameterSchema: PARAMS, parameter_schema: PARAMS } }), 400, "validation_error");
  });

  test("names are slug-like identifiers", async () => {
    for (const name of ["Get", "1abc", "a b", "a.b", "a".repeat(65), ""]) {
      expectError(await t.api("POST", path(), { body: { name } }), 400, "validation_error");
    }
  });

  test("schemas are checked as JSON Schema on write, with the reason", async () => {
    const cases: [object, RegExp][] = [
      [{ type: "objec" }, /not a valid JSON Schema/],
      [{ type: "string", format: "no-such-format" }, /unknown format/],
      [{ $ref: "https://example.com/remote.json" }, /can't resolve reference/],
      [{ type: "string", pattern: "(" }, /cannot be compiled/],
      [{ $schema: "http://json-schema.org/draft-07/schema#", type: "object" }, /draft 2020-12/],
    ];
    for (const [schema, reason] of cases) {
      const res = await t.api("POST", path(), { body: { name: "bad_schema", parameterSchema: schema } });
      expectError(res, 400, "validation_error");
      expect(res.body.error.message).toMatch(reason);
      expect(fieldPaths(res)).toEqual(["body.parameterSchema"]);
    }
    const response = await t.api("POST", path(), { body: { name: "bad_schema", responseSchema: { properties: 3 } } });
    expect(fieldPaths(response)).toEqual(["body.responseSchema"]);
    expectError(await t.api("POST", path(), { body: { name: "bad_schema", parameterSchema: [] } }), 400, "validation_error");
  });

  test("get, update (partial), disable, delete", async () => {
    await t.api("POST", path(), { body: { name: "to_change", description: "one" } });
    expect((await t.api("GET", `${path()}/to_change`)).body.action.description).toBe("one");
    const before = (await t.api("GET", `${path()}/to_change`)).body.action;
    const updated = await t.api("PUT", `${path()}/to_change`, { body: { description: "two", parameterSchema: PARAMS } });
    expect(updated.status).toBe(200);
    expect(updated.body.action).toMatchObject({ name: "to_change", description: "two", parameter_schema: PARAMS, enabled: true });
    expect(updated.body.action.updated_at >= before.updated_at).toBe(true);
    const disabled = await t.api("PUT", `${path()}/to_change`, { body: { enabled: false, name: "to_change" } });
    expect(disabled.body.action).toMatchObject({ description: "two", enabled: false });
    expectError(await t.api("PUT", `${path()}/to_change`, { body: { name: "renamed" } }), 400, "validation_error");
    expectError(await t.api("PUT", `${path()}/to_change`, { body: { parameterSchema: { type: 7 } } }), 400, "validation_error");
    expectError(await t.api("PUT", `${path()}/to_change`, { body: { surprise: 1 } }), 400, "validation_error");
    const deleted = await t.api("DELETE", `${path()}/to_change`);
    expect(deleted.body.action.name).toBe("to_change");
    expectError(await t.api("GET", `${path()}/to_change`), 404, "not_found");
    expectError(await t.api("PUT", `${path()}/to_change`, { body: { enabled: true } }), 404, "not_found");
    expectError(await t.api("DELETE", `${path()}/to_change`), 404, "not_found");
  });

  test("a mailbox's own key manages its actions; another mailbox's key is 403; an unknown mailbox 404", async () => {
    expect((await t.api("POST", path(), { token: s.agentKey.token, body: { name: "by_key" } })).status).toBe(201);
    expectError(await t.api("GET", path(), { token: s.primaryKey.token }), 403, "forbidden");
    expectError(await t.api("GET", `/v1/mailboxes/${crypto.randomUUID()}/actions`), 404, "not_found");
  });

  test("a changed schema applies to the next protocol message (validators are per action version)", async () => {
    await t.api("POST", path(), { body: { name: "versioned", parameterSchema: PARAMS } });
    const host = { host: s.agent.protocol_host };
    const sendIt = (parameters: object) => t.api("POST", "/.agent/inbox", { token: s.primaryKey.token, headers: host, body: { subject: "v", action: "versioned", parameters } });
    expect((await sendIt({ city: "Oslo" })).status).toBe(201);
    await t.api("PUT", `${path()}/versioned`, { body: { parameterSchema: { type: "object", required: ["zip"] } } });
    expectError(await sendIt({ city: "Oslo" }), 400, "schema_validation_failed");
    expect((await sendIt({ zip: "0150" })).status).toBe(201);
  });
});

describe("json-schema module", () => {
  test("checkSchema accepts draft 2020-12 features and refuses non-objects", () => {
    expect(checkSchema({ type: "array", prefixItems: [{ type: "string" }], items: false })).toEqual({ ok: true });
    expect(checkSchema({ $defs: { n: { type: "number" } }, $ref: "#/$defs/n" })).toEqual({ ok: true });
    expect(checkSchema(true).ok).toBe(false);
    expect(checkSchema(null).ok).toBe(false);
    expect(checkSchema({ description: "x".repeat(70_000) }).ok).toBe(false);
  });

  test("the cache compiles once per version and reports every issue with its path", () => {
    const cache = new ValidatorCache(2);
    const schema = { type: "object", properties: { a: { type: "object", properties: { b: { type: "integer" } } } }, required: ["c"] };
    const v1 = cache.get("x", 1, "parameters", schema);
    expect(cache.get("x", 1, "parameters", schema)).toBe(v1);
    expect(cache.get("x", 2, "parameters", schema)).not.toBe(v1);
    const issues = issuesOf(v1, { a: { b: "no" } });
    expect(issues.map((i) => [i.path, i.keyword])).toEqual([
      ["c", "required"],
      ["a.b", "type"],
    ]);
    cache.get("y", 1, "response", schema);
    expect(cache.size).toBe(2);
  });
});
