import fc from "fast-check";
import type { FuzzCase } from "./known.ts";
import { fillPath, hostFor, realParams, tokenFor, type Route, type World } from "./support.ts";
import { anyString, corrupt, fitting, HOSTILE_STRINGS, type Json } from "./values.ts";

/**
 * The HTTP surfaces: for every route of the route table, requests whose body, query, path ids
 * or headers are generated, with everything else real (a real key, ids that exist), so most
 * inputs reach the handler instead of stopping at 401 or 404.
 */
export type HttpSurface = "json" | "query" | "path" | "headers";

const bodySchema = (r: Route) => r.op.requestBody?.content?.["application/json"]?.schema;
const queryParams = (r: Route): any[] => (r.op.parameters ?? []).filter((p: any) => p.in === "query");
const mutating = (r: Route) => r.method !== "GET";

/** Routes a surface can say something about. */
export function routesFor(surface: HttpSurface, routes: Route[]): Route[] {
  switch (surface) {
    case "json":
      return routes.filter((r) => mutating(r) && r.key !== "POST /v1/inbound/email");
    case "query":
      return routes;
    case "path":
      return routes.filter((r) => r.pattern.includes(":"));
    case "headers":
      return routes;
  }
}

const ODD_CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/json; charset=utf-16",
  "application/json;;;",
  "application/jsonx",
  "application/vnd.api+json",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "text/plain",
  "text/json",
  "application/octet-stream",
  "message/rfc822",
  "*/*",
  "",
];

/** JSON texts no serializer would write. */
const RAW_JSON_TEXTS = [
  "",
  " ",
  "{",
  "{}}",
  "[]",
  "null",
  "1e999",
  '"\\ud800"',
  '{"a":1e999}',
  '{"a":-1e999}',
  '{"a":1,"a":2}',
  '{"__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  "\uFEFF{}",
  '{"a":"\\u0000"}',
  '{"a":"\\ud800\\udc00\\ud800"}',
  "{'single':'quotes'}",
  '{"a":01}',
  '{"a":NaN}',
  '{"a":undefined}',
  "\u0000",
];

const jsonBody = (r: Route): fc.Arbitrary<string> => {
  const schema = bodySchema(r) ?? { type: "object" };
  const value = fitting(schema);
  return fc.oneof(
    { weight: 4, arbitrary: value.map((v) => JSON.stringify(v)) },
    { weight: 5, arbitrary: corrupt(value).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_JSON_TEXTS) },
    // Deep nesting as text, deeper than the generator builds values.
    { weight: 1, arbitrary: fc.integer({ min: 65, max: 1000 }).map((n) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`) },
  );
};

const contentType = fc.oneof({ weight: 8, arbitrary: fc.constant("application/json") }, { weight: 2, arbitrary: fc.constantFrom(...ODD_CONTENT_TYPES) });

/** A query value: fitting the documented parameter, or hostile, sometimes with broken percent-encoding. */
const queryValue = (schema: any): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fitting(schema).map((v) => encodeURIComponent(typeof v === "string" ? v : JSON.stringify(v))) },
    { weight: 3, arbitrary: anyString(40).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, "x")).slice(0, 3000)) },
    { weight: 2, arbitrary: fc.constantFrom("99999999999999999999", "-1", "0", "1.5", "1e3", "0x10", " 1", "", "%", "%zz", "%00", "%E0%A4%A", "%C0%80", "%ED%A0%80", "a%2Bb", "[]", "{}", "true") },
    // Long, yet inside the 16 KiB request head Bun reads before the app sees anything.
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 6000 }).map((n) => "a".repeat(n)) },
  );

const queryString = (r: Route): fc.Arbitrary<string> => {
  const params = queryParams(r);
  const known = params.map((p) => fc.tuple(fc.constant(p.name as string), queryValue(p.schema)));
  const extra = fc.tuple(fc.constantFrom("page", "limit", "cursor", "q", "to", "x", "__proto__", "page[]", "", "%zz", "a%00b"), queryValue({ type: "string" }));
  const pair = known.length > 0 ? fc.oneof({ weight: 4, arbitrary: fc.oneof(...known) }, { weight: 1, arbitrary: extra }) : extra;
  // Repeats allowed: a parameter given twice is an array to the server.
  return fc.array(pair, { minLength: 1, maxLength: 6 }).map((pairs) => pairs.map(([k, v]) => (k === "" ? v : `${k}=${v}`)).join("&").slice(0, 12_000));
};

/** A path id: wrong shape, hostile, or encoded badly. */
const pathId: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.uuid() },
  { weight: 3, arbitrary: anyString(60).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, "\ufffd")).slice(0, 3000) || "x") },
  { weight: 3, arbitrary: fc.constantFrom("%00", "a%00b", "%", "%zz", "%E0%A4%A", "%C0%80", "%ED%A0%80", "%FF", "%2F", "%2e%2e", "..", ".", "00000000-0000-0000-0000-000000000000", "00000000-0000-4000-8000-00000000000G", "svc_x.y", "main", "send_message", "%20", "%0D%0AX-Injected:%201", "UPPER-CASE-ID", "a".repeat(300), "9".repeat(40)) },
  { weight: 1, arbitrary: fc.uuid().map((u) => u.toUpperCase()) },
  { weight: 1, arbitrary: fc.uuid().map((u) => `${u}%00`) },
);

/** Headers that test the edges: Host, Idempotency-Key, request ids, Authorization shapes, sizes. */
const oddHeaders = (w: World, r: Route): fc.Arbitrary<Record<string, string>> => {
  const host = fc.constantFrom(
    "localhost",
    "127.0.0.1:99999",
    "127.0.0.1:0",
    "127.0.0.1:-1",
    "[::1]",
    "[::1]:80",
    "[zz",
    `${w.seed.agent.protocol_host}:99999`,
    `${w.seed.agent.protocol_host}:80`,
    `${w.seed.agent.protocol_host}.`,
    w.seed.agent.protocol_host.toUpperCase(),
    `x.${w.seed.agent.protocol_host}`,
    "a..b",
    ".",
    "",
    "a".repeat(300),
    "%00",
    "host with space",
    "münchen.example",
  );
  const idempotency = fc.oneof(
    fc.constantFrom("", " ", "k", "k".repeat(255), "k".repeat(256), "k".repeat(5000), "key with spaces", "\t", "%00", "ünï", "a,b", "same-key"),
    fc.string({ minLength: 1, maxLength: 300 }),
  );
  const requestId = fc.constantFrom("", "x".repeat(129), "id with space", "../x", "ünï", "ok-id");
  const authorization = fc.constantFrom(`Bearer ${w.t.admin}, Bearer ${w.seed.agentKey.token}`, `bearer ${w.t.admin}`, `Bearer  ${w.t.admin}`, `Bearer ${w.t.admin} `, "Bearer", `Basic ${btoa("a:b")}`, `Bearer ${w.seed.agentKey.token}x`, `Bearer svc_${"a".repeat(3000)}`);
  return fc.record(
    {
      host,
      "idempotency-key": idempotency,
      "x-request-id": requestId,
      authorization,
      accept: fc.constantFrom("*/*", "text/html", "application/xml", "text/event-stream", ""),
      "x-forwarded-for": fc.constantFrom("1.2.3.4", "::1", "garbage", "1.2.3.4, 5.6.7.8"),
      "x-big": fc.integer({ min: 1000, max: 8_000 }).map((n) => "b".repeat(n)),
      "content-length": fc.constantFrom("0", "-1", "999999999999", "abc"),
    },
    { requiredKeys: [] },
  );
};

/** One case of `surface` for `route`, from a generated sample `g`. */
async function build(w: World, r: Route, surface: HttpSurface, g: Sample, i: number): Promise<FuzzCase> {
  const params = await realParams(w, r);
  if (surface === "path") {
    const names = Object.keys(params);
    const target = names[i % names.length]!;
    params[target] = g.pathId;
  }
  let target = fillPath(r.pattern, params);
  const query = surface === "query" ? g.query : "";
  if (query) target += `?${query}`;
  const headers: Record<string, string> = { authorization: `Bearer ${tokenFor(w, r, i)}`, ...hostFor(w, r) };
  let body: string | undefined;
  if (mutating(r) && surface === "json") {
    body = g.body;
    if (g.contentType) headers["content-type"] = g.contentType;
  } else if (mutating(r) && bodySchema(r)) {
    body = g.fittingBody;
    headers["content-type"] = "application/json";
  }
  if (surface === "headers") {
    for (const [k, v] of Object.entries(g.headers)) {
      // Content-Length is the client's to compute; a wrong one only tests the client.
      if (k !== "content-length") headers[k] = v;
    }
  }
  if (r.key === "POST /v1/inbound/email" && surface !== "json") {
    body = `From: a@example.com\r\nTo: ${w.seed.agent.email_address}\r\nSubject: fuzz\r\n\r\nhello\r\n`;
    headers["content-type"] = "message/rfc822";
  }
  return { surface, route: r.key, method: r.method, target, headers, body };
}

interface Sample {
  body: string;
  contentType: string;
  fittingBody: string;
  query: string;
  pathId: string;
  headers: Record<string, string>;
}

const sampleArb = (w: World, r: Route, surface: HttpSurface): fc.Arbitrary<Sample> =>
  fc.record({
    body: surface === "json" ? jsonBody(r) : fc.constant(""),
    contentType: surface === "json" ? contentType : fc.constant("application/json"),
    fittingBody: bodySchema(r) ? fitting(bodySchema(r)).map((v: Json) => JSON.stringify(v)) : fc.constant("{}"),
    query: surface === "query" ? queryString(r) : fc.constant(""),
    pathId: surface === "path" ? pathId : fc.constant(""),
    headers: surface === "headers" ? oddHeaders(w, r) : fc.constant({}),
  });

/** `total` cases of `surface`, spread evenly over its routes, reproducible from `seed`. */
export async function* httpCases(w: World, surface: HttpSurface, total: number, seed: number): AsyncGenerator<FuzzCase> {
  const routes = routesFor(surface, w.routes);
  const perRoute = Math.max(1, Math.ceil(total / routes.length));
  for (const [ri, r] of routes.entries()) {
    const samples = fc.sample(sampleArb(w, r, surface), { seed: seed * 1009 + ri, numRuns: perRoute });
    for (const [i, g] of samples.entries()) yield build(w, r, surface, g, i);
  }
}

export { HOSTILE_STRINGS };
