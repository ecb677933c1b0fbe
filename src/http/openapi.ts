// The sub-path, not the package root: the root bundle replaces TypeBox's string format checks
// (uuid, email, date-time) with Zod-based ones that cost more than the rest of a request.
import { toOpenAPISchema } from "@elysiajs/openapi/openapi";
import { Elysia } from "elysia";
import { authRuleFor } from "./route-auth.ts";

const ERROR_RESPONSES: Record<string, string> = {
  "400": "The request is invalid (`validation_error`, `invalid_json`)",
  "401": "No usable credentials (`missing_authorization`, `invalid_authorization`, `invalid_token`)",
  "403": "The credentials are not allowed here (`forbidden`)",
  "404": "The resource does not exist (`not_found`)",
  "409": "Conflict (`slug_taken`, `label_exists`, `idempotency_key_reused`, `idempotency_key_in_use`)",
  "413": "The body is too large (`payload_too_large`)",
  "429": "The API key's call window is used up (`rate_limit_exceeded`); see Retry-After",
  "500": "Unexpected server fault (`internal_error`)",
};

const ERROR_SCHEMA = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "details"],
      properties: {
        code: { type: "string", description: "stable machine-readable code" },
        message: { type: "string" },
        details: { type: "object", additionalProperties: true },
      },
    },
  },
};

type Operation = { responses?: Record<string, unknown>; security?: unknown[]; parameters?: unknown[]; [k: string]: unknown };

/**
 * GET /openapi.json and GET /docs. The paths and schemas come from the routes' TypeBox
 * schemas; security and the error responses come from the route table, so neither is
 * written by hand per route.
 */
export function openapiRoutes(getApp: () => Elysia<any, any, any, any, any, any, any>, info: { version: string }) {
  let cached: { routes: number; doc: unknown } | undefined;
  const build = () => {
    const app = getApp();
    const { paths, components } = toOpenAPISchema(app as never, { paths: ["/openapi.json", "/docs"], staticFile: false }, undefined, undefined, "3.1.0") as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, unknown> };
    };
    const bodies = new Map(app.routes.map((r) => [`${r.method} ${r.path}`, (r.hooks as { body?: unknown }).body]));
    for (const [path, ops] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(ops)) {
        describeJsonBody(op, bodies.get(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ":$1")}`));
        decorate(op, method.toUpperCase(), path);
      }
    }
    return {
      openapi: "3.1.0",
      info: {
        title: "Mailroom API",
        version: info.version,
        description: "Mailboxes for software agents: email, an agent-to-agent protocol and signed webhooks behind one HTTP API. Every error uses the envelope `{error:{code,message,details}}`.",
      },
      tags: [{ name: "Accounts" }, { name: "Mailboxes" }, { name: "API keys" }, { name: "Policy" }, { name: "Drafts" }, { name: "Labels" }, { name: "Suppressions" }, { name: "Messages" }, { name: "Threads" }, { name: "Inbound" }, { name: "Webhooks" }, { name: "Events" }, { name: "Actions" }, { name: "Agent protocol" }, { name: "Autopilot" }, { name: "Agent runtime" }, { name: "Utility" }],
      paths,
      components: {
        schemas: { ...components.schemas, Error: ERROR_SCHEMA },
        responses: Object.fromEntries(
          Object.entries(ERROR_RESPONSES).map(([status, description]) => [`Error${status}`, { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } }]),
        ),
        securitySchemes: {
          adminToken: { type: "http", scheme: "bearer", description: "The operator's ADMIN_TOKEN." },
          mailboxKey: { type: "http", scheme: "bearer", bearerFormat: "svc_{keyId}.{secret}", description: "An API key of one mailbox." },
        },
      },
    };
  };

  return new Elysia({ name: "openapi" })
    .get(
      "/openapi.json",
      () => {
        const routes = getApp().routes.length;
        if (!cached || cached.routes !== routes) cached = { routes, doc: build() };
        return cached.doc;
      },
      { detail: { hide: true } },
    )
    .get("/docs", () => new Response(DOCS_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }), { detail: { hide: true } });
}

/**
 * The generator leaves a request body's content empty when a global parse hook exists (ours,
 * in the pipeline), so the body schemas would not be in the document at all. Every body the
 * pipeline parses is JSON: describe it as such, from the route's own TypeBox schema (plain JSON
 * Schema once its symbol keys are dropped).
 */
function describeJsonBody(op: Operation, schema: unknown): void {
  const body = op.requestBody as { content?: Record<string, unknown> } | undefined;
  if (!body || !schema || Object.keys(body.content ?? {}).length > 0) return;
  body.content = { "application/json": { schema: JSON.parse(JSON.stringify(schema)) } };
}

function decorate(op: Operation, method: string, openapiPath: string): void {
  const route = openapiPath.replace(/\{([^}]+)\}/g, ":$1");
  const rule = authRuleFor(method, route);
  const responses = (op.responses ??= {});
  const add = (status: string) => {
    responses[status] ??= { $ref: `#/components/responses/Error${status}` };
  };
  if (rule.level === "admin") op.security = [{ adminToken: [] }];
  else if (rule.level === "mailbox" || rule.level === "key") op.security = [{ adminToken: [] }, { mailboxKey: [] }];
  else op.security = [];
  const hasInput = (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined;
  if (hasInput || method !== "GET") add("400");
  if (rule.level !== "public") {
    add("401");
    add("403");
    add("404");
  }
  // Any mailbox key's calls count against its window, even where the key is then refused.
  if (rule.level !== "public") add("429");
  if (method !== "GET") {
    add("409");
    if (op.requestBody !== undefined) add("413");
    (op.parameters ??= []).push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: "1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours.",
      schema: { type: "string", minLength: 1, maxLength: 255 },
    });
  }
  add("500");
}

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Mailroom API reference</title>
</head>
<body>
  <noscript>The API reference needs JavaScript. The raw document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
  <script id="api-reference" data-url="/openapi.json"></script>
  <script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference@1/dist/browser/standalone.min.js"></script>
</body>
</html>`;
