// The sub-path, not the package root: the root bundle replaces TypeBox's string format checks
// (uuid, email, date-time) with Zod-based ones that cost more than the rest of a request.
import { toOpenAPISchema, unwrapSchema } from "@elysiajs/openapi/openapi";
import { Elysia } from "elysia";
import { authRuleFor } from "./route-auth.ts";

const ERROR_RESPONSES: Record<string, string> = {
  "400": "The request is invalid (`validation_error`, `invalid_json`)",
  "401": "No usable credentials (`missing_authorization`, `invalid_authorization`, `invalid_token`)",
  "403": "The credentials are not allowed here (`forbidden`)",
  "404": "The resource does not exist (`not_found`)",
  "409": "Conflict (`slug_taken`, `label_exists`, `idempotency_key_reused`, `idempotency_key_in_use`, `webhook_endpoint_limit`)",
  "413": "The body is too large (`payload_too_large`)",
  "415": "The body is not of a media type the operation takes (`unsupported_media_type`)",
  "429": "The API key's call window is used up (`rate_limit_exceeded`); see Retry-After",
  "500": "Unexpected server fault (`internal_error`)",
  "503": "The mailbox is busy or the node is stopping (`service_unavailable`): nothing was applied; retry after Retry-After",
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
    const { paths, components } = toOpenAPISchema(app as never, { paths: ["/openapi.json", "/docs", "/console", "/console/app.js", "/console/app.css"], staticFile: false }, undefined, undefined, "3.1.0") as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, unknown> };
    };
    describeJsonBodies(app.routes as never, paths);
    for (const [path, ops] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(ops)) {
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

const OPTIONAL = Symbol.for("TypeBox.Optional");

/**
 * The generator describes a body by the route's parsers, and ours is the pipeline's own hook,
 * which it cannot read: every JSON body would come out with no media type. The pipeline takes
 * JSON and nothing else on these routes (src/http/body.ts), so that is what is documented.
 */
function describeJsonBodies(routes: { method: string; path: string; hooks: { body?: object } }[], paths: Record<string, Record<string, Operation>>): void {
  for (const route of routes) {
    const op = paths[route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")]?.[route.method.toLowerCase()];
    if (!op || !route.hooks.body) continue;
    const schema = unwrapSchema(route.hooks.body as never, undefined, "input", "3.1.0");
    op.requestBody = { required: !(OPTIONAL in route.hooks.body), content: { "application/json": { schema } } };
  }
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
    if (op.requestBody !== undefined) {
      add("413");
      add("415");
    }
    (op.parameters ??= []).push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: "1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours.",
      schema: { type: "string", minLength: 1, maxLength: 255 },
    });
  }
  add("500");
  // A command that could not start before ACTOR_ASK_TIMEOUT_MS is dropped unrun (README "Mailbox actors and nodes").
  if (rule.level !== "public") add("503");
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
