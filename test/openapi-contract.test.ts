/**
 * The OpenAPI document as a contract: the linters clients' toolchains run pass it, each
 * published request body is the schema its route validates with, examples validate, error
 * responses name what the service answers, a typed client generated from it has the bodies,
 * and /docs needs no network.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Document, Spectral } from "@stoplight/spectral-core";
import * as Parsers from "@stoplight/spectral-parsers";
import { oas } from "@stoplight/spectral-rulesets";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { ERROR_STATUS, type ErrorCode } from "../src/errors.ts";
import { createHttpApp } from "../src/http/app.ts";
import { routeBodies } from "../src/http/body.ts";
import { BODY_EXAMPLES } from "../src/http/openapi-examples.ts";
import { RESPONSE_MODELS } from "../src/http/openapi-models.ts";
import { jsonSchemaOf, openapiPath, TAGS } from "../src/http/openapi-document.ts";
import { ERROR_MEANING, ROUTE_ERRORS } from "../src/http/route-errors.ts";
import { ROUTE_AUTH } from "../src/http/route-auth.ts";
import { seedAccount, startTestService, uniqueSlug, type ApiResponse, type TestService } from "./harness.ts";

/** Starting the service, linting and compiling take tens of seconds on a loaded machine. */
const SLOW = 180_000;

let t: TestService;
let doc: any;
let source: string;
beforeAll(async () => {
  t = await startTestService();
  const res = await t.api("GET", "/openapi.json", { token: null });
  expect(res.status).toBe(200);
  doc = res.body;
  source = res.text;
}, SLOW);
afterAll(() => t.stop());

const METHODS = ["get", "put", "post", "delete", "patch"];
const toRoute = (path: string) => path.replace(/\{([^}]+)\}/g, ":$1");

function operations(): [string, any][] {
  const out: [string, any][] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) for (const m of METHODS) if (item[m]) out.push([`${m.toUpperCase()} ${toRoute(path)}`, item[m]]);
  return out;
}

const deref = (node: any): any => {
  while (node?.$ref) node = node.$ref.slice(2).split("/").reduce((n: any, k: string) => n?.[k], doc);
  return node;
};

/** Validates against a schema of the document, its `#/components/...` references resolved. */
function validator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("binary", true);
  return (schema: unknown, value: unknown): string[] => {
    const validate = ajv.compile({ ...(schema as object), components: doc.components });
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

describe("linters", () => {
  test("Redocly's recommended ruleset finds no error", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source, absoluteRef: "/openapi.json", config });
    const errors = problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
    expect(errors).toEqual([]);
  }, SLOW);

  test("Redocly does flag a broken document (so the check above means something)", async () => {
    const broken = structuredClone(doc);
    delete broken.servers;
    broken.paths["/v1/accounts"].post.parameters = [{ name: "x", in: "query", schema: { type: "string", default: 5 } }];
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(broken), absoluteRef: "/openapi.json", config });
    expect(problems.filter((p) => p.severity === "error").length).toBeGreaterThan(0);
  }, SLOW);

  test("Spectral's spectral:oas rules (all of them) find no error", async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, "all"]] } as never);
    const results = await spectral.run(new Document(source, Parsers.Json, "/openapi.json"));
    const errors = results.filter((r) => r.severity === 0).map((r) => `${r.code}: ${r.message} at ${r.path.join(".")}`);
    expect(errors).toEqual([]);
    // An example that contradicts its schema is an error: the rule is live.
    const broken = structuredClone(doc);
    broken.paths["/v1/accounts"].post.requestBody.content["application/json"].example = { slug: 5 };
    const again = await spectral.run(new Document(JSON.stringify(broken), Parsers.Json, "/openapi.json"));
    expect(again.filter((r) => r.severity === 0).map((r) => r.code)).toContain("oas3-valid-media-example");
  }, SLOW);
});

describe("request bodies", () => {
  // The route table of an app built like the service's (nothing is served or connected): its
  // body schemas are the objects the pipeline validates with.
  const routes = () => createHttpApp({ metrics: {}, webhooks: {}, mail: {}, health: {} } as never).routes as never as { method: string; path: string }[];

  test("every operation publishes exactly the schema its route validates the body with", () => {
    const bodies = routeBodies(routes() as never);
    const published = operations().filter(([, op]) => op.requestBody);
    expect(published.length).toBe(bodies.size);
    let json = 0;
    for (const [key, entry] of bodies) {
      const [method, path] = key.split(" ") as [string, string];
      const op = doc.paths[openapiPath(path)]?.[method.toLowerCase()];
      expect({ key, documented: !!op?.requestBody }).toEqual({ key, documented: true });
      const content = op.requestBody.content;
      if (entry.raw) {
        expect({ key, types: Object.keys(content) }).toEqual({ key, types: [...entry.raw] });
        continue;
      }
      json++;
      expect({ key, types: Object.keys(content) }).toEqual({ key, types: ["application/json"] });
      expect({ key, schema: content["application/json"].schema }).toEqual({ key, schema: jsonSchemaOf(entry.schema!) });
      expect({ key, required: op.requestBody.required }).toEqual({ key, required: !(Symbol.for("TypeBox.Optional") in entry.schema!) });
    }
    expect(json).toBeGreaterThanOrEqual(28);
    expect(doc.paths["/v1/inbound/email"].post.requestBody.content).toHaveProperty("message/rfc822");
  });

  test("every body has an example that its published schema and the route's own check both accept", () => {
    const bodies = routeBodies(routes() as never);
    const check = validator();
    for (const [key, entry] of bodies) {
      const example = BODY_EXAMPLES[key];
      expect({ key, example: example !== undefined }).toEqual({ key, example: true });
      const [method, path] = key.split(" ") as [string, string];
      const media: any = Object.values(doc.paths[openapiPath(path)][method.toLowerCase()].requestBody.content)[0];
      expect(media.example).toEqual(example);
      if (entry.raw) continue;
      expect({ key, errors: check(media.schema, example) }).toEqual({ key, errors: [] });
      expect(() => entry.check!(example)).not.toThrow();
    }
    // And the check is no formality: a wrong type is refused by both.
    const accounts = bodies.get("POST /v1/accounts")!;
    expect(check(jsonSchemaOf(accounts.schema!), { slug: 5, displayName: "x" }).length).toBeGreaterThan(0);
    expect(() => accounts.check!({ slug: 5, displayName: "x" })).toThrow();
  });

  test("integers are integers, in parameters, bodies and responses alike", () => {
    expect(source).not.toContain('"format":"integer"');
    expect(source).not.toContain('"format":"numeric"');
    const drafts = doc.paths["/v1/mailboxes/{mailboxId}/drafts"].get;
    const page = drafts.parameters.find((p: any) => p.name === "page");
    expect(page.schema).toMatchObject({ type: "integer", minimum: 1, default: 1 });
    expect(drafts.responses["200"].content["application/json"].schema.properties.total).toEqual({ type: "integer" });
    expect(doc.paths["/v1/mailboxes/{mailboxId}/policy"].put.requestBody.content["application/json"].schema.properties.max_outbound_per_day.type).toBe("integer");
  });
});

describe("examples and defaults", () => {
  test("every example and default in the document validates against its schema", () => {
    const check = validator();
    const seen = { examples: 0, defaults: 0 };
    const walkSchema = (schema: any, where: string) => {
      if (!schema || typeof schema !== "object") return;
      for (const example of Array.isArray(schema.examples) ? schema.examples : []) {
        seen.examples++;
        expect({ where, errors: check(schema, example) }).toEqual({ where, errors: [] });
      }
      if ("example" in schema) {
        seen.examples++;
        expect({ where, errors: check(schema, schema.example) }).toEqual({ where, errors: [] });
      }
      if ("default" in schema) {
        seen.defaults++;
        expect({ where, errors: check(schema, schema.default) }).toEqual({ where, errors: [] });
      }
      for (const key of ["items", "additionalProperties", "not", "contains"]) walkSchema(schema[key], `${where}.${key}`);
      for (const key of ["anyOf", "allOf", "oneOf", "prefixItems"]) (schema[key] ?? []).forEach((s: any, i: number) => walkSchema(s, `${where}.${key}.${i}`));
      for (const key of ["properties", "patternProperties", "$defs"]) for (const [name, s] of Object.entries<any>(schema[key] ?? {})) walkSchema(s, `${where}.${key}.${name}`);
    };
    const walkContent = (content: any, where: string) => {
      for (const [type, media] of Object.entries<any>(content ?? {})) {
        walkSchema(media.schema, `${where}.${type}`);
        if ("example" in media && type.includes("json")) {
          seen.examples++;
          expect({ where, errors: check(media.schema, media.example) }).toEqual({ where, errors: [] });
        }
      }
    };
    for (const [route, op] of operations()) {
      for (const p of op.parameters ?? []) walkSchema(p.schema, `${route} ${p.name}`);
      walkContent(op.requestBody?.content, `${route} body`);
      for (const [status, r] of Object.entries<any>(op.responses)) walkContent(deref(r).content, `${route} ${status}`);
    }
    for (const [name, s] of Object.entries<any>(doc.components.schemas)) walkSchema(s, name);
    expect(seen.examples).toBeGreaterThanOrEqual(29);
    expect(seen.defaults).toBeGreaterThan(5);
  });
});

describe("error responses", () => {
  test("each code is declared under its own status, and every code the service has is declared somewhere", () => {
    const declared = new Set<string>();
    for (const [route, op] of operations()) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        if (!/^[45]/.test(status) || route === "GET /health") continue;
        const codes: string[] = deref(r).content["application/json"].schema.allOf[1].properties.error.properties.code.enum;
        for (const code of codes) {
          expect({ route, code, status: ERROR_STATUS[code as ErrorCode] as number }).toEqual({ route, code, status: Number(status) });
          declared.add(code);
        }
      }
    }
    // method_not_allowed is reserved: no operation answers it (an unknown method is 404 not_found).
    const reserved = new Set(["method_not_allowed"]);
    expect([...declared].sort()).toEqual(Object.keys(ERROR_STATUS).filter((c) => !reserved.has(c)).sort());
    for (const status of ["410", "413", "415"]) expect(operations().some(([, op]) => op.responses[status])).toBe(true);
  });

  test("the per-route error table names only routes that exist, and every code says what it means", () => {
    for (const key of Object.keys(ROUTE_ERRORS)) expect({ key, known: key in ROUTE_AUTH }).toEqual({ key, known: true });
    for (const code of Object.keys(ERROR_STATUS)) expect({ code, meaning: !!ERROR_MEANING[code as ErrorCode] }).toEqual({ code, meaning: true });
  });

  test("Retry-After is declared where the codes carry it", () => {
    for (const [route, op] of operations()) {
      // The health check's 503 is its own body, not an error envelope.
      if (route === "GET /health") continue;
      for (const status of ["429", "503"]) if (op.responses[status]) expect(deref(op.responses[status]).headers?.["Retry-After"]).toBeDefined();
    }
  });
});

describe("the service answers as documented", () => {
  const ajv = () => validator();

  /** The status is declared for the operation; an error's code is in its enum; a JSON body matches the schema. */
  function expectDocumented(method: string, route: string, res: ApiResponse) {
    const op = doc.paths[openapiPath(route)][method.toLowerCase()];
    const response = deref(op.responses[String(res.status)]);
    expect({ route, status: res.status, declared: !!response }).toEqual({ route, status: res.status, declared: true });
    const schema = response.content?.["application/json"]?.schema;
    if (schema && res.body !== undefined) expect({ route, status: res.status, errors: ajv()(schema, res.body) }).toEqual({ route, status: res.status, errors: [] });
    if (res.status >= 400) expect(schema.allOf[1].properties.error.properties.code.enum).toContain(res.body.error.code);
  }

  test("successes and refusals of a few operations", async () => {
    const slug = uniqueSlug("oa");
    const created = await t.api("POST", "/v1/accounts", { body: { slug, displayName: "OpenAPI contract" } });
    expect(created.status).toBe(201);
    expectDocumented("POST", "/v1/accounts", created);
    expectDocumented("POST", "/v1/accounts", await t.api("POST", "/v1/accounts", { body: { slug, displayName: "again" } }));
    expectDocumented("POST", "/v1/accounts", await t.api("POST", "/v1/accounts", { rawBody: "slug=x", headers: { "content-type": "application/x-www-form-urlencoded" } }));
    expectDocumented("POST", "/v1/accounts", await t.api("POST", "/v1/accounts", { rawBody: "{", headers: { "content-type": "application/json" } }));
    expectDocumented("POST", "/v1/accounts", await t.api("POST", "/v1/accounts", { token: null, body: {} }));
    expectDocumented("GET", "/v1/accounts/:accountId", await t.api("GET", `/v1/accounts/${crypto.randomUUID()}`));
    // Every route refuses NUL in a query value, declared parameter or not.
    expectDocumented("GET", "/health", await t.api("GET", "/health?x=%00", { token: null }));
    expectDocumented("GET", "/v1/admin/agent-runtime-bindings", await t.api("GET", "/v1/admin/agent-runtime-bindings?x=%00"));
    const seeded = await seedAccount(t);
    expectDocumented("GET", "/v1/mailboxes/:mailboxId/drafts", await t.api("GET", `/v1/mailboxes/${seeded.primary.id}/drafts?page=2&limit=5`));
    expectDocumented("GET", "/v1/mailboxes/:mailboxId/policy", await t.api("GET", `/v1/mailboxes/${seeded.primary.id}/policy`, { token: seeded.agentKey.token }));
    expectDocumented("POST", "/v1/mailboxes/:mailboxId/search", await t.api("POST", `/v1/mailboxes/${seeded.primary.id}/search`, { body: BODY_EXAMPLES["POST /v1/mailboxes/:mailboxId/search"] }));
    expectDocumented("POST", "/v1/mailboxes/:mailboxId/labels", await t.api("POST", `/v1/mailboxes/${seeded.primary.id}/labels`, { body: BODY_EXAMPLES["POST /v1/mailboxes/:mailboxId/labels"] }));
    expectDocumented("POST", "/v1/mailboxes/:mailboxId/labels", await t.api("POST", `/v1/mailboxes/${seeded.primary.id}/labels`, { body: BODY_EXAMPLES["POST /v1/mailboxes/:mailboxId/labels"] }));
    await t.api("POST", `/v1/accounts/${seeded.account.id}/suppressions`, { body: { address: "gone@example.com" } });
    expectDocumented("POST", "/v1/mailboxes/:mailboxId/send", await t.api("POST", `/v1/mailboxes/${seeded.primary.id}/send`, { body: { to: ["gone@example.com"], subject: "hi", textBody: "x" } }));
    const inbound = await t.api("POST", `/v1/inbound/email?to=nobody@${seeded.primary.email_address.split("@")[1]}`, { rawBody: String(BODY_EXAMPLES["POST /v1/inbound/email"]), headers: { "content-type": "message/rfc822" } });
    expectDocumented("POST", "/v1/inbound/email", inbound);
    expectDocumented("POST", "/v1/inbound/email", await t.api("POST", "/v1/inbound/email", { body: { not: "a message" } }));
  }, SLOW);

  test("every operation, called with real and unknown ids, answers a documented status, code and body", async () => {
    const seeded = await seedAccount(t);
    const ids: Record<string, string> = { accountId: seeded.account.id, mailboxId: seeded.agent.id, keyId: seeded.agentKey.id, actionName: "send_message" };
    const protocolHost: string = seeded.agent.protocol_host;
    const ops = operations().sort(([a], [b]) => Number(a.startsWith("GET")) - Number(b.startsWith("GET")) || a.localeCompare(b)).reverse();
    const answered = new Set<string>();
    for (const [route, op] of ops) {
      const [method, path] = route.split(" ") as [string, string];
      const url = path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => ids[name] ?? crypto.randomUUID());
      const headers: Record<string, string> = path.startsWith("/.") ? { host: protocolHost } : {};
      const token = path.startsWith("/.agent/") ? seeded.primaryKey.token : undefined;
      const res = await t.api(method, url, { headers, ...(token ? { token } : {}), ...(method === "GET" ? {} : { body: {} }) });
      expectDocumented(method, path, res);
      answered.add(`${res.status}`);
      // A mailbox key on an admin route: documented as 403 forbidden.
      if ((op.security ?? []).length === 1) {
        const refused = await t.api(method, url, { token: seeded.agentKey.token, ...(method === "GET" ? {} : { body: {} }) });
        expectDocumented(method, path, refused);
        answered.add(`${refused.status}`);
      }
    }
    // Real ids gave successes as well as refusals, so both kinds of body were checked.
    expect([...answered]).toEqual(expect.arrayContaining(["200", "400", "403", "404"]));
  }, SLOW);
});

describe("a typed client generated from the document", () => {
  test("openapi-typescript gives POST /v1/accounts its body type", async () => {
    const ts = astToString(await openapiTS(structuredClone(doc)));
    const op = ts.slice(ts.indexOf("    postV1Accounts: {"));
    const body = op.slice(op.indexOf("requestBody:"), op.indexOf("responses:"));
    expect(body).toContain('"application/json": {');
    expect(body).toMatch(/slug: string;/);
    expect(body).toMatch(/displayName: string;/);
    // Integers are numbers, not string | number.
    expect(ts).not.toMatch(/total: string \| number/);
    const list = ts.slice(ts.indexOf("    getV1MailboxesByMailboxIdDrafts: {"));
    expect(list.slice(0, list.indexOf("    }\n"))).toMatch(/page\?: number;/);
  }, SLOW);

  test("an openapi-fetch client over those types takes a right body and refuses a wrong one at compile time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mailroom-client-"));
    try {
      writeFileSync(join(dir, "schema.ts"), astToString(await openapiTS(structuredClone(doc))));
      writeFileSync(
        join(dir, "use.ts"),
        `import createClient from "openapi-fetch";
import type { paths } from "./schema";
const client = createClient<paths>({ baseUrl: "http://127.0.0.1:1" });
export async function create(): Promise<string> {
  const { data, error } = await client.POST("/v1/accounts", { body: { slug: "acme", displayName: "Acme" } });
  if (error) return error.error.code;
  const drafts = await client.GET("/v1/mailboxes/{mailboxId}/drafts", { params: { path: { mailboxId: data.account.id }, query: { page: 2 } } });
  const total: number | undefined = drafts.data?.total;
  return \`\${data.primary_mailbox.email_address} \${total}\`;
}
export async function wrong() {
  // @ts-expect-error displayName is required
  await client.POST("/v1/accounts", { body: { slug: "acme" } });
  // @ts-expect-error page is a number
  await client.GET("/v1/mailboxes/{mailboxId}/drafts", { params: { path: { mailboxId: "x" }, query: { page: "2" } } });
}
`,
      );
      const root = join(import.meta.dir, "..");
      const program = ts.createProgram([join(dir, "use.ts")], {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        target: ts.ScriptTarget.ES2022,
        types: [],
        paths: { "openapi-fetch": [join(root, "node_modules/openapi-fetch")] },
      });
      const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, SLOW);
});

describe("tags and servers", () => {
  test("every tag an operation uses is declared with a description, and there is a server", () => {
    const declared = new Map<string, string>(doc.tags.map((tag: any) => [tag.name, tag.description]));
    for (const [route, op] of operations()) for (const tag of op.tags ?? []) expect({ route, tag, description: !!declared.get(tag) }).toEqual({ route, tag, description: true });
    for (const [name, description] of declared) expect(description).toBe(TAGS[name]!);
    expect(doc.servers.length).toBeGreaterThan(0);
  });

  test("each resource is a named schema that responses refer to", () => {
    for (const name of Object.keys(RESPONSE_MODELS)) {
      expect({ name, defined: !!doc.components.schemas[name] }).toEqual({ name, defined: true });
      expect({ name, referred: source.includes(`"#/components/schemas/${name}"`) }).toEqual({ name, referred: true });
    }
    const created = doc.paths["/v1/accounts"].post.responses["201"].content["application/json"].schema;
    expect(created.properties.account).toEqual({ $ref: "#/components/schemas/Account" });
  });

  test("operation ids are identifiers", () => {
    for (const [route, op] of operations()) expect({ route, id: /^[A-Za-z][A-Za-z0-9]*$/.test(op.operationId) }).toEqual({ route, id: true });
  });
});

describe("GET /docs without a network", () => {
  test("the page and everything it loads come from this service", async () => {
    const page = await t.api("GET", "/docs", { token: null });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(page.text).not.toMatch(/(https?:)?\/\/[a-z0-9]/i);
    const refs = [...page.text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs).toContain("/docs/swagger-ui-bundle.js");
    for (const ref of refs) {
      expect(ref.startsWith("/") && !ref.startsWith("//")).toBe(true);
      const res = await fetch(t.url + ref);
      expect({ ref, status: res.status }).toEqual({ ref, status: 200 });
      const text = await res.text();
      if (ref === "/docs/init.js") {
        expect(text).toContain('url: "/openapi.json"');
        expect(text).toContain("validatorUrl: null");
        expect(text).not.toMatch(/https?:/);
      }
    }
    // The renderer is the installed package's file.
    const bundle = await (await fetch(`${t.url}/docs/swagger-ui-bundle.js`)).arrayBuffer();
    expect(Buffer.from(bundle).equals(readFileSync(createRequire(import.meta.url).resolve("swagger-ui-dist/swagger-ui-bundle.js")))).toBe(true);
  }, SLOW);
});
