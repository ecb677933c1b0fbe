import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { ERROR_STATUS, type ErrorCode } from "../src/errors.ts";
import { ROUTE_AUTH } from "../src/http/route-auth.ts";
import { startTestService, type TestService } from "./harness.ts";

let t: TestService;
let doc: any;
beforeAll(async () => {
  t = await startTestService();
  const res = await t.api("GET", "/openapi.json", { token: null });
  expect(res.status).toBe(200);
  doc = res.body;
  // Starting a service can take longer than one test's budget on a loaded machine.
}, 120_000);
afterAll(() => t.stop());

// /mcp is the MCP server (JSON-RPC over Streamable HTTP, README "Agent tools"), not a REST operation.
const NOT_DOCUMENTED = new Set(["GET /openapi.json", "GET /docs", "GET /docs/swagger-ui.css", "GET /docs/swagger-ui-bundle.js", "GET /docs/init.js", "GET /console", "GET /console/app.js", "GET /console/app.css", "POST /mcp", "GET /mcp", "DELETE /mcp"]);
const toOpenApiPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
const toRoute = (openapiPath: string) => openapiPath.replace(/\{([^}]+)\}/g, ":$1");
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Every operation of the document as "METHOD /route" → operation. */
function operations(): Map<string, any> {
  const ops = new Map<string, any>();
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of METHODS) {
      if (item[method]) ops.set(`${method.toUpperCase()} ${toRoute(path)}`, item[method]);
    }
  }
  return ops;
}

/** Follows a `#/...` reference inside the document. */
function deref(node: any): any {
  let seen = 0;
  while (node && typeof node.$ref === "string") {
    if (++seen > 10) throw new Error("reference loop");
    expect(node.$ref.startsWith("#/")).toBe(true);
    node = node.$ref
      .slice(2)
      .split("/")
      .reduce((n: any, key: string) => n?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
    expect(node).toBeDefined();
  }
  return node;
}

describe("GET /openapi.json", () => {
  test("is public JSON with openapi 3.1.0", async () => {
    const res = await t.api("GET", "/openapi.json", { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body.info.title).toBeTruthy();
    expect(res.body.info.version).toBeTruthy();
  });

  test("a bad Authorization header does not matter on a public route", async () => {
    expect((await t.api("GET", "/openapi.json", { token: "nope" })).status).toBe(200);
  });

  test("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    if (!result.valid) console.error(JSON.stringify(result.errors, null, 2));
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  test("the validator does reject a broken document (so the check above means something)", async () => {
    const broken = structuredClone(doc);
    broken.paths["/v1/accounts"].post.responses = { "201": { content: {} } }; // a response needs a description
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });

  test("documents every route of the route table, and nothing else, except itself and /docs", () => {
    const documented = [...operations().keys()].sort();
    const expected = Object.keys(ROUTE_AUTH)
      .filter((r) => !NOT_DOCUMENTED.has(r))
      .sort();
    expect(documented).toEqual(expected);
    for (const route of NOT_DOCUMENTED) {
      const [method, path] = route.split(" ") as [string, string];
      expect(doc.paths[path]?.[method.toLowerCase()]).toBeUndefined();
    }
  });

  test("path parameters are declared for every {param} in a path", () => {
    for (const [route, op] of operations()) {
      const names = [...toOpenApiPath(route.split(" ")[1]!).matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).map(deref).filter((p: any) => p.in === "path").map((p: any) => p.name);
      expect({ route, params: declared.sort() }).toEqual({ route, params: names.sort() });
    }
  });

  test("has the security schemes", () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.adminToken).toMatchObject({ type: "http", scheme: "bearer" });
    expect(schemes.mailboxKey).toMatchObject({ type: "http", scheme: "bearer" });
  });

  test("each operation's security matches its auth level in the route table", () => {
    const expectedSecurity = { admin: [{ adminToken: [] }], mailbox: [{ adminToken: [] }, { mailboxKey: [] }], key: [{ adminToken: [] }, { mailboxKey: [] }], public: [] } as const;
    for (const [route, op] of operations()) {
      const rule = ROUTE_AUTH[route];
      expect(rule).toBeDefined();
      expect({ route, security: op.security }).toEqual({ route, security: expectedSecurity[rule!.level] as any });
    }
  });

  test("each operation lists its error responses with the Error envelope", () => {
    const errorSchema = doc.components.schemas.Error;
    expect(errorSchema).toBeDefined();
    expect(errorSchema.required).toEqual(["error"]);
    expect([...errorSchema.properties.error.required].sort()).toEqual(["code", "details", "message"]);

    for (const [route, op] of operations()) {
      const level = ROUTE_AUTH[route]!.level;
      const required = ["500"];
      if (level !== "public") required.push("401", "403");
      if (level === "mailbox") required.push("429");
      for (const status of required) {
        const response = op.responses?.[status];
        expect({ route, status, present: response !== undefined }).toEqual({ route, status, present: true });
        const resolved = deref(response);
        expect(typeof resolved.description).toBe("string");
        const schema = resolved.content?.["application/json"]?.schema;
        expect({ route, status, envelope: schema?.allOf?.[0] }).toEqual({ route, status, envelope: { $ref: "#/components/schemas/Error" } });
      }
      // Every 4xx/5xx the operation lists uses the envelope too (except the health
      // check's 503, which is the health body itself), narrowed to the codes of that status.
      for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
        if (!/^[45]/.test(status) || (route === "GET /health" && status === "503")) continue;
        const schema = deref(response).content?.["application/json"]?.schema;
        expect({ route, status, envelope: schema?.allOf?.[0] }).toEqual({ route, status, envelope: { $ref: "#/components/schemas/Error" } });
        const codes: string[] = schema.allOf[1].properties.error.properties.code.enum;
        expect(codes.length).toBeGreaterThan(0);
        for (const code of codes) expect({ route, code, status: ERROR_STATUS[code as ErrorCode] as number }).toEqual({ route, code, status: Number(status) });
      }
    }
  });

  test("mutating operations document the Idempotency-Key header", () => {
    for (const [route, op] of operations()) {
      if (route.startsWith("GET ")) continue;
      const header = (op.parameters ?? []).map(deref).find((p: any) => p.in === "header" && p.name.toLowerCase() === "idempotency-key");
      expect({ route, documented: !!header }).toEqual({ route, documented: true });
    }
  });

  test("every request body is documented as JSON with its schema", () => {
    const bodies = [...operations()].filter(([, op]) => op.requestBody !== undefined);
    expect(bodies.length).toBeGreaterThan(20);
    for (const [route, op] of bodies) {
      // The HTTP ingress takes a raw message; every other body is a JSON object.
      if (route === "POST /v1/inbound/email") {
        expect(Object.keys(op.requestBody.content)).toEqual(["message/rfc822"]);
        continue;
      }
      const schema = op.requestBody.content?.["application/json"]?.schema;
      expect({ route, type: schema?.type }).toEqual({ route, type: "object" });
    }
    const account = doc.paths["/v1/accounts"].post.requestBody.content["application/json"].schema;
    expect(account.required).toEqual(["slug", "displayName"]);
    expect(account.properties.slug.maxLength).toBe(30);
  });

  test("the document is stable across requests", async () => {
    const again = await t.api("GET", "/openapi.json", { token: null });
    expect(again.body).toEqual(doc);
  });
});

describe("route table", () => {
  test("names exactly the routes the app serves", () => {
    // `internals.routes` is the live Elysia app's route list ("METHOD /path").
    const served = [...new Set(t.service.internals.routes)].sort();
    expect(served.length).toBeGreaterThan(0);
    expect(served).toEqual(Object.keys(ROUTE_AUTH).sort());
  });

  test("every route answers as the table says for a caller without a token", async () => {
    const sample = { accountId: "00000000-0000-4000-8000-000000000000", mailboxId: "00000000-0000-4000-8000-000000000000", keyId: "00000000-0000-4000-8000-000000000000", actionName: "send_message", messageId: "00000000-0000-4000-8000-000000000000", threadId: "00000000-0000-4000-8000-000000000000", profileId: "00000000-0000-4000-8000-000000000000" };
    const created = await t.api("POST", "/v1/accounts", { body: { slug: `oa-${crypto.randomUUID().slice(0, 8)}`, displayName: "OpenAPI" } });
    const protocolHost: string = created.body.primary_mailbox.protocol_host;
    for (const [route, rule] of Object.entries(ROUTE_AUTH)) {
      const [method, path] = route.split(" ") as [string, string];
      const url = path.replace(/:([A-Za-z0-9_]+)/g, (_, name: keyof typeof sample) => sample[name]);
      // The agent protocol answers on a mailbox's protocol host.
      const headers: Record<string, string> = path.startsWith("/.") ? { host: protocolHost } : {};
      const res = await t.api(method, url, { token: null, headers, ...(method === "GET" ? {} : { body: {} }) });
      if (rule.level === "public") expect({ route, status: res.status }).toEqual({ route, status: 200 });
      else expect({ route, status: res.status, code: res.body?.error?.code }).toEqual({ route, status: 401, code: "missing_authorization" });
    }
  });
});

describe("GET /docs", () => {
  test("is a public HTML page that loads /openapi.json", async () => {
    const res = await t.api("GET", "/docs", { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text.toLowerCase()).toContain("<html");
    expect(res.text).toContain("/openapi.json");
  });
});
