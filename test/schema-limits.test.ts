/**
 * Tenants' schemas and the values validated against them are bounded (src/protocol:
 * schema-bounds.ts, regex-safety.ts, validation.ts): the checks as units, then through the
 * API with a tight validation budget.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkSchema } from "../src/protocol/json-schema.ts";
import { catastrophicBacktracking } from "../src/protocol/regex-safety.ts";
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_KEYWORDS } from "../src/protocol/schema-bounds.ts";
import { MAX_INSTANCE_BYTES, SchemaValidators } from "../src/protocol/validation.ts";
import { expectError, seedAccount, startTestService, type TestService } from "./harness.ts";

const CATASTROPHIC = ["^(a+)+$", "^(a|a)*$", "^(a|ab)*c$", "^(\\w+\\s?)*$", "(x+x+)+y", "^(a*)*$", "^((ab)*)+$", "^(?=(a+)+b)", "^([a-z]+\\.?)+$", "(a+x?a+x)+", "^(\\d|[0-9a-f])+$", "^(.*?,){11}P"];
const ACCEPTED = [
  "^ORD-[0-9]+$",
  "^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$",
  "^\\d{4}-\\d{2}-\\d{2}$",
  "^([a-z0-9]+\\.)+[a-z]+$",
  "^(?:[a-z]+-)*[a-z]+$",
  "^(\\d{1,3}\\.){3}\\d{1,3}$",
  "^(foo|bar)+$",
  "^(?:[a-z]|-)+$",
  "((a+b)+c)+",
  "^\\p{L}+$",
  "^https?://\\S+$",
];

/**
 * A pattern the backtracking check lets through (no nested quantifier) that is still polynomial:
 * on 200 KB of `a.` ending in a space it retries every dot as the split (some 10¹⁰ steps; 40 KB
 * already takes a second), so it runs past any budget here however fast the machine is.
 */
const POLYNOMIAL = "^\\S+@\\S+\\.\\S+$";
const slowAddress = () => `a@${"a.".repeat(100_000)} `;

/** `{"properties":{"a":{"properties":{"a":…}}}}`, `levels` objects deep. */
function deepSchema(levels: number): object {
  let schema: object = { type: "string" };
  for (let i = 1; i < levels; i += 2) schema = { properties: { a: schema } };
  return schema;
}

describe("regular expressions that backtrack catastrophically", () => {
  for (const p of CATASTROPHIC) test(`refused: ${p}`, () => expect(catastrophicBacktracking(p)).toBeString());
  for (const p of ACCEPTED) test(`accepted: ${p}`, () => expect(catastrophicBacktracking(p)).toBeNull());
});

describe("schema bounds at registration", () => {
  test("a catastrophic pattern is refused wherever it is a pattern, and only there", () => {
    expect(checkSchema({ type: "string", pattern: "^(a+)+$" })).toMatchObject({ ok: false, reason: expect.stringContaining("backtrack") });
    expect(checkSchema({ type: "object", properties: { x: { type: "array", items: { pattern: "(x+x+)+y" } } } }).ok).toBe(false);
    expect(checkSchema({ type: "object", patternProperties: { "^(a|a)*$": { type: "string" } } }).ok).toBe(false);
    // A property named "pattern", and data that holds one, are no regular expressions.
    expect(checkSchema({ type: "object", properties: { pattern: { type: "string" } }, const: { pattern: "^(a+)+$" } })).toEqual({ ok: true });
    expect(checkSchema({ type: "string", pattern: "^ORD-[0-9]+$" })).toEqual({ ok: true });
  });

  test("depth and keyword count are bounded", () => {
    expect(checkSchema(deepSchema(MAX_SCHEMA_DEPTH - 2))).toEqual({ ok: true });
    expect(checkSchema(deepSchema(MAX_SCHEMA_DEPTH + 2))).toMatchObject({ ok: false, reason: expect.stringContaining("levels deep") });
    const wide = { type: "object", properties: Object.fromEntries(Array.from({ length: MAX_SCHEMA_KEYWORDS }, (_, i) => [`p${i}`, {}])) };
    expect(checkSchema(wide)).toMatchObject({ ok: false, reason: expect.stringContaining("keywords") });
  });

  test("a schema 20,000 levels deep is refused, not walked", () => {
    expect(checkSchema(deepSchema(20_000)).ok).toBe(false);
  });
});

describe("validation with a budget", () => {
  // Generous, so that compiling in a fresh worker on a loaded machine fits; the polynomial pattern needs far more.
  const validators = new SchemaValidators({ timeoutMs: 2000 });
  afterAll(() => validators.close());
  const unique = { type: "array", uniqueItems: true };
  const polynomial = { type: "string", pattern: POLYNOMIAL };

  test("an instance over the size bound is refused before validation", async () => {
    const big = { text: "x".repeat(MAX_INSTANCE_BYTES) };
    expect(await validators.validate("a", 1, "parameters", { type: "object" }, big)).toMatchObject({ ok: false, reason: "instance_too_large" });
  });

  test("a validation over its budget is refused, and the pool answers the next one", async () => {
    expect(await validators.validate("p", 1, "parameters", polynomial, slowAddress())).toMatchObject({ ok: false, reason: "validation_budget_exceeded" });
    expect(await validators.validate("u", 1, "parameters", unique, [1, 2, 2])).toMatchObject({ ok: true, issues: [{ keyword: "uniqueItems" }] });
    expect(await validators.validate("u", 1, "parameters", unique, [1, 2, 3])).toEqual({ ok: true, issues: [] });
  });

  test("inline and worker validation report the same issues", async () => {
    const plain = { type: "object", properties: { n: { type: "integer" } }, required: ["m"] };
    const patterned = { ...plain, properties: { n: { type: "integer" }, s: { type: "string", pattern: "^[a-z]+$" } } };
    const value = { n: "x", s: "ok" };
    const inline = await validators.validate("p", 1, "parameters", plain, value);
    const worker = await validators.validate("q", 1, "parameters", patterned, value);
    expect(inline).toEqual(worker);
    expect(inline).toMatchObject({ ok: true, issues: [{ keyword: "required" }, { keyword: "type" }] });
  });
});

describe("through the API", () => {
  let t: TestService;
  let s: Awaited<ReturnType<typeof seedAccount>>;
  const actions = () => `/v1/mailboxes/${s.agent.id}/actions`;
  const send = (action: string, parameters: unknown) =>
    t.api("POST", "/.agent/inbox", { token: s.primaryKey.token, headers: { host: s.agent.protocol_host }, body: { subject: "limits", action, parameters } });

  beforeAll(async () => {
    t = await startTestService({ SCHEMA_VALIDATION_TIMEOUT_MS: "2000" });
    s = await seedAccount(t);
  });
  afterAll(() => t.stop());

  test("registration refuses a catastrophic pattern and an oversized schema with 400", async () => {
    const bad = await t.api("POST", actions(), { body: { name: "redos", parameterSchema: { type: "object", properties: { q: { type: "string", pattern: "^(a+)+$" } } } } });
    expectError(bad, 400, "validation_error");
    expect(bad.body.error.details.fields[0].path).toBe("body.parameterSchema");
    expectError(await t.api("PUT", `${actions()}/deep`, { body: { responseSchema: deepSchema(MAX_SCHEMA_DEPTH + 2) } }), 400, "validation_error");
  });

  test("an oversized instance and a validation over budget are 400 schema_validation_failed; the node still answers", async () => {
    const created = await t.api("POST", actions(), { body: { name: "uniq", parameterSchema: { type: "object", properties: { ids: { type: "array", uniqueItems: true } } } } });
    expect(created.status).toBe(201);
    const tooBig = await send("uniq", { ids: ["x".repeat(MAX_INSTANCE_BYTES)] });
    expectError(tooBig, 400, "schema_validation_failed");
    expect(tooBig.body.error.details.reason).toBe("instance_too_large");
    expect((await t.api("POST", actions(), { body: { name: "address", parameterSchema: { type: "object", properties: { to: { type: "string", pattern: POLYNOMIAL } } } } })).status).toBe(201);
    const slow = await send("address", { to: slowAddress() });
    expectError(slow, 400, "schema_validation_failed");
    expect(slow.body.error.details.reason).toBe("validation_budget_exceeded");
    const health = await t.api("GET", "/health", { token: null });
    expect(health.status).toBe(200);
    expect((await send("uniq", { ids: [1, 2, 3] })).status).toBe(201);
    const dup = await send("uniq", { ids: [1, 1] });
    expectError(dup, 400, "schema_validation_failed");
    expect(dup.body.error.details.reason).toBe("mismatch");
  });
});
