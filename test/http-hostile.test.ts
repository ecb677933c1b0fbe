import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { JSON_LIMITS, scanJson } from "../src/http/json-bounds.ts";
import { ROUTE_AUTH } from "../src/http/route-auth.ts";
import { UNDOCUMENTED } from "../src/http/openapi.ts";
import { parseHost } from "../src/protocol/hosts.ts";
import { expectError, fieldPaths, seedAccount, startTestService, uniqueSlug, type ApiResponse, type TestService } from "./harness.ts";

/**
 * Hostile and careless HTTP input at the request pipeline (issue 13): every case answers a 4xx
 * in the envelope and changes nothing, and every request schema bounds what it takes.
 */

let t: TestService;
let doc: any;
let s: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  t = await startTestService();
  doc = (await t.api("GET", "/openapi.json", { token: null })).body;
  s = await seedAccount(t);
});
afterAll(() => t.stop());

const DEFAULT_POLICY = { allow_outbound: true, allow_auto_reply: true, max_outbound_per_day: 1000, updated_at: null };

/** A request whose body is sent exactly as given: bytes carry no Content-Type unless one is named. */
async function send(method: string, path: string, body: string | Uint8Array, opts: { token?: string | null; contentType?: string; headers?: Record<string, string> } = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? t.admin : opts.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (opts.contentType !== undefined) headers["content-type"] = opts.contentType;
  const res = await fetch(t.url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
const bytes = (text: string) => new TextEncoder().encode(text);

const policyOf = async (mailboxId: string) => (await t.api("GET", `/v1/mailboxes/${mailboxId}/policy`)).body.policy;
const draftCount = async (mailboxId: string) => (await t.api("GET", `/v1/mailboxes/${mailboxId}/drafts`)).body.total as number;
const nestedObject = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
const nestedArray = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

describe("JSON pre-scan (unit)", () => {
  test("depth: 64 levels pass, 65 are refused", () => {
    expect(scanJson(nestedObject(64)).kind).toBe("none");
    expect(scanJson(nestedObject(65))).toEqual({ kind: "depth", limit: 64 });
    expect(scanJson(nestedArray(65))).toEqual({ kind: "depth", limit: 64 });
    expect(scanJson(nestedArray(100_000))).toEqual({ kind: "depth", limit: 64 });
  });

  test("values: members and elements are counted up to the limit", () => {
    const items = (n: number) => `[${Array.from({ length: n }, () => "1").join(",")}]`;
    expect(scanJson(items(JSON_LIMITS.maxValues - 1)).kind).toBe("none");
    expect(scanJson(items(JSON_LIMITS.maxValues + 1))).toEqual({ kind: "values", limit: JSON_LIMITS.maxValues });
  });

  test("members: object keys have a bound of their own, counted across nested objects, not array elements", () => {
    const keys = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])));
    expect(scanJson(keys(JSON_LIMITS.maxMembers)).kind).toBe("none");
    expect(scanJson(keys(JSON_LIMITS.maxMembers + 1))).toEqual({ kind: "members", limit: JSON_LIMITS.maxMembers });
    const objects = (n: number) => JSON.stringify({ list: Array.from({ length: n }, (_, i) => ({ a: i })) });
    expect(scanJson(objects(JSON_LIMITS.maxMembers - 1)).kind).toBe("none");
    expect(scanJson(objects(JSON_LIMITS.maxMembers))).toEqual({ kind: "members", limit: JSON_LIMITS.maxMembers });
    expect(scanJson(`{"a":[${"1,".repeat(50_000)}1]}`).kind).toBe("none");
  });

  test("a body past the member bound is 400 naming the bound, also when parsed in the JSON worker", async () => {
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: JSON_LIMITS.maxMembers + 1 }, (_, i) => [`key-${i}`, "x".repeat(8)])));
    expect(wide.length).toBeGreaterThan(64 * 1024);
    const res = await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { token: s.agentKey.token, rawBody: wide });
    expectError(res, 400, "validation_error");
    expect(res.body.error.details.max_members).toBe(JSON_LIMITS.maxMembers);
    const large = await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { token: s.agentKey.token, rawBody: JSON.stringify({ allow_outbound: false, pad: "x".repeat(200 * 1024) }) });
    expectError(large, 400, "validation_error");
    expect(fieldPaths(large)).toEqual(["body.pad"]);
  });

  test("brackets, commas and escaped quotes inside strings are text, not structure", () => {
    expect(scanJson(JSON.stringify({ a: "[".repeat(1000) + '\\"' + ",".repeat(200_000) }))).toEqual({ kind: "none", unstorable: false });
    expect(scanJson(JSON.stringify({ a: 'x\\"y', b: ["\\"] }))).toEqual({ kind: "none", unstorable: false });
  });

  test("NUL and lone surrogates are flagged, in keys and values; pairs are not", () => {
    expect(scanJson('{"a":"x\\u0000"}')).toEqual({ kind: "none", unstorable: true });
    expect(scanJson('{"a\\u0000":1}')).toEqual({ kind: "none", unstorable: true });
    expect(scanJson('{"a":"\\ud800"}')).toEqual({ kind: "none", unstorable: true });
    expect(scanJson('{"a":"\\udc00x"}')).toEqual({ kind: "none", unstorable: true });
    expect(scanJson('{"a":"\\ud83d\\ude00"}')).toEqual({ kind: "none", unstorable: false });
    expect(scanJson('{"a":"\\\\u0000"}')).toEqual({ kind: "none", unstorable: false }); // an escaped backslash, then text
  });
});

describe("Host parsing (unit)", () => {
  test.each([
    ["a.agents.localhost", { name: "a.agents.localhost", port: null }],
    ["A.Agents.Localhost.:8080", { name: "a.agents.localhost", port: 8080 }],
    ["a.agents.localhost:", { name: "a.agents.localhost", port: null }],
    ["[::1]:443", { name: "[::1]", port: 443 }],
    ["127.0.0.1:65535", { name: "127.0.0.1", port: 65535 }],
  ])("%p is %p", (header, parsed) => {
    expect(parseHost(header)).toEqual(parsed);
  });

  test.each(["a.agents.localhost:99999", "a.agents.localhost:0", "a.agents.localhost:123456", "a b", "a/b", "a@b", "", "a:b:c", "[::1", "x".repeat(300)])("%p is no host", (header) => {
    expect(parseHost(header)).toBeNull();
  });
});

describe("bodies: depth and size are bounded before parsing", () => {
  test.each([20_000, 30_000])("a %p-deep object is 400 before JSON.parse, and changes nothing", async (depth) => {
    const res = await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { token: s.agentKey.token, rawBody: nestedObject(depth) });
    expectError(res, 400, "validation_error");
    expect(res.body.error.details.max_depth).toBe(64);
    expect(fieldPaths(res)).toEqual(["body"]);
    expect(await policyOf(s.agent.id)).toEqual(DEFAULT_POLICY);
  });

  test("a 100,000-deep array inside a field is 400", async () => {
    const res = await t.api("POST", `/v1/mailboxes/${s.agent.id}/search`, { token: s.agentKey.token, rawBody: `{"query":${nestedArray(100_000)}}` });
    expectError(res, 400, "validation_error");
    expect(res.body.error.details.max_depth).toBe(64);
  });

  test("more values than the limit are 400", async () => {
    const res = await t.api("POST", `/v1/mailboxes/${s.agent.id}/drafts`, { token: s.agentKey.token, rawBody: JSON.stringify({ to: Array.from({ length: JSON_LIMITS.maxValues + 10 }, () => 0) }) });
    expectError(res, 400, "validation_error");
    expect(res.body.error.details.max_values).toBe(JSON_LIMITS.maxValues);
  });

  test("a caller without a token gets 401, not the body's problem", async () => {
    expectError(await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { token: null, rawBody: nestedObject(1000) }), 401, "missing_authorization");
  });

  test("a refused body's errors are few and never quote the value", async () => {
    const huge = "v".repeat(2 * 1024 * 1024);
    const wrongType = await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { rawBody: JSON.stringify({ allow_outbound: huge }) });
    expectError(wrongType, 400, "validation_error");
    expect(fieldPaths(wrongType)).toEqual(["body.allow_outbound"]);
    expect(wrongType.text.length).toBeLessThan(2000);

    const unknownKeys = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, huge.slice(0, 10)]));
    const many = await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { rawBody: JSON.stringify(unknownKeys) });
    expectError(many, 400, "validation_error");
    expect(fieldPaths(many).length).toBeGreaterThan(0);
    expect(fieldPaths(many).length).toBeLessThanOrEqual(20);

    const array = await t.api("POST", `/v1/mailboxes/${s.agent.id}/search`, { rawBody: JSON.stringify({ query: Array.from({ length: 90_000 }, (_, i) => i) }) });
    expectError(array, 400, "validation_error");
    expect(array.body.error.message).toBe("body.query: Expected string");
    expect(array.text.length).toBeLessThan(2000);
    expect(await policyOf(s.agent.id)).toEqual(DEFAULT_POLICY);
  });
});

describe("bodies by content type", () => {
  test.each(["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b", "application/octet-stream", "message/rfc822", "application/xml"])(
    "%p on a JSON route is 415, and the policy is unchanged",
    async (contentType) => {
      const res = await send("PUT", `/v1/mailboxes/${s.agent.id}/policy`, '{"allow_outbound":false}', { token: s.agentKey.token, contentType });
      expectError(res, 415, "unsupported_media_type");
      expect(await policyOf(s.agent.id)).toEqual(DEFAULT_POLICY);
    },
  );

  test.each([
    ["text/plain", '{"subject":"hi"}'],
    ["application/x-www-form-urlencoded", "subject=hi"],
    ["multipart/form-data; boundary=b", '--b\r\nContent-Disposition: form-data; name="subject"\r\n\r\nhi\r\n--b--\r\n'],
  ])("%p to POST drafts is 415 and makes no draft", async (contentType, body) => {
    const before = await draftCount(s.agent.id);
    expectError(await send("POST", `/v1/mailboxes/${s.agent.id}/drafts`, body, { token: s.agentKey.token, contentType }), 415, "unsupported_media_type");
    expect(await draftCount(s.agent.id)).toBe(before);
  });

  test("a large text/plain body is refused without being read or validated", async () => {
    const res = await send("POST", `/v1/mailboxes/${s.agent.id}/search`, "x".repeat(12 * 1024 * 1024), { token: s.agentKey.token, contentType: "text/plain" });
    expectError(res, 415, "unsupported_media_type");
  });

  test("a JSON body without a Content-Type is taken as JSON", async () => {
    const { agent, agentKey } = await seedAccount(t);
    const res = await send("PUT", `/v1/mailboxes/${agent.id}/policy`, bytes('{"allow_outbound":false}'), { token: agentKey.token });
    expect(res.status).toBe(200);
    expect(res.body.policy.allow_outbound).toBe(false);
    expect((await policyOf(agent.id)).allow_outbound).toBe(false);
  });

  test("a body without a Content-Type that is not JSON is 415, and nothing changes", async () => {
    const before = await draftCount(s.agent.id);
    expectError(await send("POST", `/v1/mailboxes/${s.agent.id}/drafts`, bytes("subject=hi"), { token: s.agentKey.token }), 415, "unsupported_media_type");
    expect(await draftCount(s.agent.id)).toBe(before);
  });

  test("application/json with parameters and +json types are JSON", async () => {
    const { agent } = await seedAccount(t);
    const one = await send("PUT", `/v1/mailboxes/${agent.id}/policy`, '{"allow_outbound":false}', { contentType: "Application/JSON; charset=utf-8" });
    expect(one.status).toBe(200);
    const two = await send("PUT", `/v1/mailboxes/${agent.id}/policy`, '{"allow_auto_reply":false}', { contentType: "application/merge-patch+json" });
    expect(two.status).toBe(200);
    expect(await policyOf(agent.id)).toMatchObject({ allow_outbound: false, allow_auto_reply: false });
  });

  test("an empty body of any type is no body", async () => {
    const before = await draftCount(s.agent.id);
    const res = await send("POST", `/v1/mailboxes/${s.agent.id}/drafts`, "", { token: s.agentKey.token, contentType: "text/plain" });
    expect(res.status).toBe(201);
    expect(await draftCount(s.agent.id)).toBe(before + 1);
  });

  test("invalid UTF-8 in a JSON body is invalid_json", async () => {
    expectError(await send("PUT", `/v1/mailboxes/${s.agent.id}/policy`, new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), { contentType: "application/json" }), 400, "invalid_json");
  });

  test("on a route that takes no body, a JSON body is ignored and any other is 415", async () => {
    const { agent } = await seedAccount(t);
    expectError(await send("POST", `/v1/mailboxes/${agent.id}/disable`, "please", { contentType: "text/plain" }), 415, "unsupported_media_type");
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}`)).body.mailbox.status).toBe("active");
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/disable`, { body: { ignored: true } });
    expect(res.status).toBe(200);
    expect(res.body.mailbox.status).toBe("disabled");
  });

  test("the inbound route takes message/rfc822 only", async () => {
    const raw = `From: a@example.com\r\nTo: ${s.agent.email_address}\r\nSubject: x\r\n\r\nhello\r\n`;
    expectError(await send("POST", "/v1/inbound/email", raw, { contentType: "text/plain" }), 415, "unsupported_media_type");
    expectError(await send("POST", "/v1/inbound/email", JSON.stringify({ raw }), { contentType: "application/json" }), 415, "unsupported_media_type");
    expectError(await send("POST", "/v1/inbound/email", bytes(raw)), 415, "unsupported_media_type");
    expect((await send("POST", "/v1/inbound/email", raw, { contentType: "message/rfc822" })).status).toBe(202);
  });

  test("without a token the media type is not looked at: 401", async () => {
    expectError(await send("PUT", `/v1/mailboxes/${s.agent.id}/policy`, "x", { token: null, contentType: "text/plain" }), 401, "missing_authorization");
  });

  test("OpenAPI documents JSON bodies as application/json only, the inbound body as message/rfc822, and 415", () => {
    const put = doc.paths["/v1/mailboxes/{mailboxId}/policy"].put;
    expect(Object.keys(put.requestBody.content)).toEqual(["application/json"]);
    expect(put.responses["415"]).toBeDefined();
    expect(doc.paths["/v1/mailboxes/{mailboxId}/drafts"].post.requestBody.required).toBe(false);
    expect(Object.keys(doc.paths["/v1/inbound/email"].post.requestBody.content)).toEqual(["message/rfc822"]);
  });
});

describe("every request schema is bounded", () => {
  const METHODS = ["get", "put", "post", "patch", "delete"];
  const deref = (node: any): any => {
    while (node && typeof node.$ref === "string") {
      node = node.$ref
        .slice(2)
        .split("/")
        .reduce((n: any, key: string) => n?.[key], doc);
    }
    return node;
  };

  /** Every place under `schema` that takes unbounded input, as "where: why". */
  function unbounded(schema: any, where: string, out: string[]): void {
    const s = deref(schema);
    if (!s || typeof s !== "object") return out.push(`${where}: no schema`), undefined;
    for (const key of ["anyOf", "oneOf", "allOf"]) for (const [i, sub] of (s[key] ?? []).entries()) unbounded(sub, `${where}|${i}`, out);
    if (s.anyOf || s.oneOf || s.allOf) return;
    if (s.const !== undefined || s.enum !== undefined) return;
    const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
    if (types.length === 0) return out.push(`${where}: any value`), undefined;
    for (const type of types) {
      switch (type) {
        case "string":
          // uuid and date-time fix the length themselves; integer and number strings are how
          // Elysia documents the coercion of a numeric field, bounded by its number branch.
          if (s.maxLength === undefined && !["uuid", "date-time", "integer", "number"].includes(s.format)) out.push(`${where}: string without maxLength`);
          break;
        case "integer":
        case "number":
          if (s.maximum === undefined && s.exclusiveMaximum === undefined) out.push(`${where}: ${type} without maximum`);
          if (s.minimum === undefined && s.exclusiveMinimum === undefined) out.push(`${where}: ${type} without minimum`);
          break;
        case "array":
          if (s.maxItems === undefined) out.push(`${where}: array without maxItems`);
          unbounded(s.items, `${where}[]`, out);
          break;
        case "object":
          for (const [name, sub] of Object.entries<any>(s.properties ?? {})) unbounded(sub, `${where}.${name}`, out);
          if (s.additionalProperties !== false && s.maxProperties === undefined) out.push(`${where}: open object without maxProperties`);
          break;
      }
    }
  }

  test("every string has a maxLength, every array maxItems, every number bounds, every open object maxProperties", () => {
    const problems: string[] = [];
    let operations = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        operations++;
        const route = `${method.toUpperCase()} ${path}`;
        for (const p of (op.parameters ?? []).map(deref)) unbounded(p.schema, `${route} ${p.in}.${p.name}`, problems);
        for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) {
          if (type === "message/rfc822") continue; // raw bytes, bounded by SMTP_MAX_MESSAGE_BYTES
          unbounded(media.schema, `${route} body(${type})`, problems);
        }
      }
    }
    expect(operations).toBe(Object.keys(ROUTE_AUTH).filter((r) => !UNDOCUMENTED.includes(r.split(" ")[1]!)).length); // all but /openapi.json, /docs and its files, the console, /mcp
    expect(problems).toEqual([]);
  });

  test("the walk does find an unbounded schema (so the check above means something)", () => {
    const problems: string[] = [];
    unbounded({ type: "object", additionalProperties: false, properties: { a: { type: "string" }, b: { type: "array", items: { type: "integer", minimum: 0 } }, c: { type: "object", additionalProperties: true } } }, "x", problems);
    expect(problems).toEqual(["x.a: string without maxLength", "x.b: array without maxItems", "x.b[]: integer without maximum", "x.c: open object without maxProperties"]);
  });
});

describe("NUL and unpaired surrogates in any JSON string are 400 naming the field", () => {
  const NUL = "a\u0000b";
  const cases: [string, () => [string, string, unknown], string][] = [
    ["account displayName", () => ["POST", "/v1/accounts", { slug: uniqueSlug("nul"), displayName: NUL }], "body.displayName"],
    ["API key name", () => ["POST", `/v1/mailboxes/${s.agent.id}/api-keys`, { name: NUL, scope: "mailbox" }], "body.name"],
    ["suppression reason", () => ["POST", `/v1/accounts/${s.account.id}/suppressions`, { address: "nul@example.com", reason: NUL }], "body.reason"],
    ["sender-profile notes", () => ["POST", `/v1/accounts/${s.account.id}/sender-profiles`, { address: "nul@example.com", notes: NUL }], "body.notes"],
    ["sender-profile display_name", () => ["POST", `/v1/accounts/${s.account.id}/sender-profiles`, { address: "nul2@example.com", display_name: NUL }], "body.display_name"],
    ["action description", () => ["POST", `/v1/mailboxes/${s.agent.id}/actions`, { name: "nul_action", description: NUL }], "body.description"],
    ["binding agentId", () => ["POST", `/v1/mailboxes/${s.agent.id}/agent-runtime-binding`, { agentId: NUL, runtimeBaseUrl: "http://127.0.0.1:9/x" }], "body.agentId"],
    ["binding personaLabel", () => ["POST", `/v1/mailboxes/${s.agent.id}/agent-runtime-binding`, { agentId: "a", runtimeBaseUrl: "http://127.0.0.1:9/x", personaLabel: NUL }], "body.personaLabel"],
    ["draft subject", () => ["POST", `/v1/mailboxes/${s.agent.id}/drafts`, { subject: NUL }], "body.subject"],
    ["label name", () => ["POST", `/v1/mailboxes/${s.agent.id}/labels`, { name: NUL }], "body.name"],
    ["a nested array element", () => ["POST", `/v1/mailboxes/${s.agent.id}/drafts`, { to: ["ok@example.com", NUL] }], "body.to.1"],
    ["an object key", () => ["PUT", `/v1/mailboxes/${s.agent.id}/policy`, { [NUL]: true }], "body.a\\u0000b"],
    ["an unpaired surrogate", () => ["POST", `/v1/mailboxes/${s.agent.id}/drafts`, { subject: "x\ud800y" }], "body.subject"],
  ];
  test.each(cases)("%s", async (_, request, path) => {
    const [method, url, body] = request();
    const res = await t.api(method, url, { body });
    expectError(res, 400, "validation_error");
    expect(fieldPaths(res)).toEqual([path]);
  });

  test("protocol subject, body and metadata (JSONB), also with the sender's key", async () => {
    const host = { host: s.agent.protocol_host };
    for (const [body, path] of [
      [{ subject: NUL, body: "x" }, "body.subject"],
      [{ subject: "x", body: NUL }, "body.body"],
      [{ subject: "x", body: "x", metadata: { note: NUL } }, "body.metadata.note"],
      [{ subject: "x", body: "x", metadata: { [NUL]: 1 } }, "body.metadata.a\\u0000b"],
      [{ subject: "x", body: "x", metadata: { deep: [{ v: "\udfff" }] } }, "body.metadata.deep.0.v"],
    ] as const) {
      const res = await t.api("POST", "/.agent/inbox", { token: s.primaryKey.token, headers: host, body });
      expectError(res, 400, "validation_error");
      expect(fieldPaths(res)).toEqual([path]);
    }
  });

  test("nothing was stored by the refused requests", async () => {
    const drafts = (await t.api("GET", `/v1/mailboxes/${s.agent.id}/drafts?limit=100`)).body.items as { subject: string | null }[];
    expect(drafts.some((d) => d.subject?.includes("\u0000"))).toBe(false);
    const keys = (await t.api("GET", `/v1/mailboxes/${s.agent.id}/api-keys`)).body;
    expect(JSON.stringify(keys)).not.toContain("\\u0000");
    expectError(await t.api("GET", `/v1/mailboxes/${s.agent.id}/agent-runtime-binding`), 404, "not_found");
  });
});

describe("path segments and query strings", () => {
  test.each([
    ["GET", () => "/v1/drafts/%00"],
    ["GET", () => `/v1/mailboxes/${s.agent.id}/actions/%00`],
    ["PUT", () => `/v1/mailboxes/${s.agent.id}/actions/a%00b`],
    ["GET", () => "/v1/mailboxes/%00/policy"],
  ])("%s %s with NUL is 400, with the admin token and with the mailbox's key", async (method, path) => {
    for (const token of [undefined, s.agentKey.token]) {
      const res = await t.api(method, path(), { token, ...(method === "GET" ? {} : { body: {} }) });
      expectError(res, 400, "validation_error");
      expect(fieldPaths(res)[0]).toMatch(/^params\./);
    }
  });

  test.each(["%E0%A4%A", "%zz", "%", "%C3%28", "%ED%A0%80"])("a malformed percent-encoding %p in :mailboxId is 400, never 500", async (bad) => {
    for (const token of [s.agentKey.token, undefined]) {
      for (const path of [`/v1/mailboxes/${bad}/policy`, `/v1/mailboxes/${bad}`, `/v1/mailboxes/${bad}/messages`]) {
        const res = await t.api("GET", path, { token });
        expectError(res, 400, "validation_error");
        expect(fieldPaths(res)).toContain("params.mailboxId");
      }
    }
    const put = await t.api("PUT", `/v1/mailboxes/${bad}/policy`, { token: s.agentKey.token, body: { allow_outbound: false } });
    expectError(put, 400, "validation_error");
    expect(await policyOf(s.agent.id)).toEqual(DEFAULT_POLICY);
  });

  test("a malformed encoding in an owned resource's id is 400 with a key", async () => {
    expectError(await t.api("GET", "/v1/drafts/%E0%A4%A", { token: s.agentKey.token }), 400, "validation_error");
    expectError(await t.api("GET", "/v1/messages/%zz", { token: s.agentKey.token }), 400, "validation_error");
  });

  test.each([
    () => `/v1/mailboxes/${s.agent.id}/messages?query=%00`,
    () => `/v1/accounts/${s.account.id}/sender-profiles?address=a%00`,
    () => `/v1/accounts/${s.account.id}/suppressions?address=a%00b@example.com`,
    () => `/v1/mailboxes/${s.agent.id}/messages?a%00=1`,
  ])("NUL in a query string is 400 naming it (%#)", async (path) => {
    const p = path();
    const res = await t.api(p.includes("suppressions") ? "DELETE" : "GET", p);
    expectError(res, 400, "validation_error");
    expect(fieldPaths(res)[0]).toMatch(/^query\./);
  });

  test("without a token, a bad path is still 401 first", async () => {
    expectError(await t.api("GET", "/v1/mailboxes/%zz/policy", { token: null }), 401, "missing_authorization");
  });
});

describe("pagination bounds", () => {
  const lists = () => [
    `/v1/mailboxes/${s.agent.id}/drafts`,
    `/v1/accounts/${s.account.id}/suppressions`,
    `/v1/accounts/${s.account.id}/sender-profiles`,
    `/v1/mailboxes/${s.agent.id}/messages`,
    `/v1/mailboxes/${s.agent.id}/threads`,
  ];

  test.each(["99999999999999999999", "1000001", "1e30", "0"])("page=%s is 400 naming query.page on every list", async (page) => {
    for (const list of lists()) {
      const res = await t.api("GET", `${list}?page=${page}`);
      expectError(res, 400, "validation_error");
      expect(fieldPaths(res)).toEqual(["query.page"]);
    }
  });

  test("limit=99999999999999999999 is 400 naming query.limit", async () => {
    for (const list of lists()) {
      const res = await t.api("GET", `${list}?limit=99999999999999999999`);
      expectError(res, 400, "validation_error");
      expect(fieldPaths(res)).toEqual(["query.limit"]);
    }
  });

  test("the last page allowed answers an empty page", async () => {
    for (const list of lists()) {
      const res = await t.api("GET", `${list}?page=1000000&limit=100`);
      expect({ list, status: res.status, items: res.body.items }).toEqual({ list, status: 200, items: [] });
    }
  });

  test("a thread's messages: page out of range is 400 too", async () => {
    const res = await t.api("GET", `/v1/threads/${crypto.randomUUID()}/messages?page=99999999999999999999`);
    expectError(res, 400, "validation_error");
  });
});

describe("Host header", () => {
  const port = () => new URL(t.url).port;
  test.each(["/.well-known/agent.json", "/.well-known/agent-card.json"])("%s with port 99999 is 400 naming headers.host", async (path) => {
    for (const host of [`${s.agent.protocol_host}:99999`, `${s.agent.protocol_host}:0`, "nobody.agents.localhost:99999"]) {
      const res = await t.api("GET", path, { token: null, headers: { host } });
      expectError(res, 400, "validation_error");
      expect(fieldPaths(res)).toEqual(["headers.host"]);
    }
    expect((await t.api("GET", path, { token: null, headers: { host: `${s.agent.protocol_host}:${port()}` } })).status).toBe(200);
    expect((await t.api("GET", path, { token: null, headers: { host: s.agent.protocol_host } })).status).toBe(200);
  });

  test("the inbox with a bad Host is 400 and stores nothing; an unknown host is 404", async () => {
    const body = { subject: "hi", body: "hello" };
    const count = async () => (await t.api("GET", `/v1/mailboxes/${s.agent.id}/messages`)).body.total as number;
    const before = await count();
    expectError(await t.api("POST", "/.agent/inbox", { token: s.primaryKey.token, headers: { host: `${s.agent.protocol_host}:99999` }, body }), 400, "validation_error");
    expectError(await t.api("POST", "/.agent/inbox", { token: s.primaryKey.token, headers: { host: "nobody.agents.localhost" }, body }), 404, "not_found");
    expect(await count()).toBe(before);
  });

  test("a discovery document names the host as given, with its port", async () => {
    const res = await t.api("GET", "/.well-known/agent.json", { token: null, headers: { host: `${s.agent.protocol_host.toUpperCase()}:${port()}` } });
    expect(res.status).toBe(200);
    expect(res.body.message_endpoint).toBe(`http://${s.agent.protocol_host}:${port()}/.agent/inbox`);
  });

  test("an API route does not care about the Host port", async () => {
    expect((await t.api("GET", `/v1/mailboxes/${s.agent.id}`, { headers: { host: "localhost:99999" } })).status).toBe(200);
  });
});
