// The sub-path, not the package root: the root bundle replaces TypeBox's string format checks
// (uuid, email, date-time) with Zod-based ones that cost more than the rest of a request.
import { toOpenAPISchema, unwrapSchema } from "@elysiajs/openapi/openapi";
import type { TSchema } from "elysia";
import { routeBodies } from "./body.ts";
import { RESPONSE_MODELS } from "./openapi-models.ts";
import { BODY_EXAMPLES } from "./openapi-examples.ts";
import { ERROR_MEANING, routeErrors } from "./route-errors.ts";
import { authRuleFor } from "./route-auth.ts";

/**
 * The OpenAPI 3.1 document, built from the routes themselves: their TypeBox schemas give paths,
 * parameters and responses; the body each route is validated against is the one published
 * (src/http/body.ts); security comes from the auth table and the error responses from the
 * error-code table (src/http/route-errors.ts), so nothing here is written per route.
 */

type Operation = {
  operationId?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: unknown; example?: unknown }> };
  responses?: Record<string, unknown>;
  security?: unknown[];
  [k: string]: unknown;
};
type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: unknown };
type RouteLike = { method: string; path: string; hooks: { body?: unknown; params?: unknown; query?: unknown; detail?: { hide?: boolean; requestBody?: { content?: Record<string, unknown> } } } };

/** Tag → what it groups. A test holds that every tag an operation uses is described here. */
export const TAGS: Readonly<Record<string, string>> = {
  Accounts: "Accounts (tenants) and the mailboxes they own. Admin token only.",
  Actions: "Named operations a mailbox offers other agents over the agent protocol, each with JSON Schemas for its parameters and response.",
  "Agent protocol": "Agent-to-agent messages, served on a mailbox's protocol host: discovery cards, the inbox, responses, and signed callbacks.",
  "Agent runtime": "Binding a mailbox to an external agent runtime that is called on new mail, with a permission tier and a policy mode.",
  "API keys": "Mailbox API keys (`svc_{keyId}.{secret}`), shown once at creation. Admin token only.",
  Autopilot: "Rules that let a mailbox answer or act on mail without its agent, and the log of what they decided.",
  Drafts: "Messages written but not yet sent; sending one goes through the same checks as a send.",
  Events: "The mailbox's event log as a live Server-Sent Events stream that resumes from `Last-Event-ID`.",
  Inbound: "Delivering raw RFC 5322 mail over HTTP, through the same pipeline as SMTP.",
  Intelligence: "Summaries, extractions and thread digests computed from the mail, cached per message or thread.",
  Labels: "Mailbox labels, and labelling messages and threads.",
  Mailboxes: "A mailbox: its addresses, status, and enabling or disabling it.",
  Messages: "Sending, replying, and reading messages with their raw source, attachments, delivery state and assessment.",
  Operations: "Service metrics for operators (Prometheus text).",
  Policy: "What a mailbox may do: send, auto-reply, and its hourly send limit.",
  Search: "Full-text search over a mailbox's mail with operators.",
  "Sender profiles": "What the service knows of an external sender across an account's mailboxes.",
  Stats: "Counts and time series of a mailbox's mail.",
  Suppressions: "Addresses an account never sends to.",
  Threads: "Conversations: messages grouped by their references, archived or reopened as one.",
  Utility: "Health of the node.",
  Webhooks: "Signed webhook endpoints of a mailbox, their deliveries and replays.",
};

const STATUS_TEXT: Readonly<Record<string, string>> = {
  "400": "Bad request",
  "401": "Unauthenticated",
  "403": "Forbidden",
  "404": "Not found",
  "405": "Method not allowed",
  "409": "Conflict",
  "410": "Gone",
  "413": "Payload too large",
  "415": "Unsupported media type",
  "429": "Too many requests",
  "500": "Internal server error",
  "503": "Service unavailable",
};

const RETRY_AFTER_CODES = new Set(["idempotency_key_in_use", "rate_limit_exceeded", "service_unavailable"]);

export const ERROR_SCHEMA = {
  type: "object",
  description: "The error envelope of every failed request.",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "details"],
      properties: {
        code: { type: "string", description: "stable machine-readable code; each response lists the codes it can carry" },
        message: { type: "string", description: "for people; may change" },
        details: { type: "object", additionalProperties: true, description: "code-specific fields (`fields` for validation errors, `request_id` for internal errors, …)" },
      },
    },
  },
  examples: [{ error: { code: "not_found", message: "mailbox 6f1c2f9e-7f4a-4d53-9a49-2f1f4c1d8e01 was not found", details: { id: "6f1c2f9e-7f4a-4d53-9a49-2f1f4c1d8e01" } } }],
} as const;

const IDEMPOTENCY_KEY: Parameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};

/** A TypeBox schema as the JSON Schema it is: TypeBox's symbol-keyed metadata dropped. */
export const jsonSchemaOf = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema));

export const openapiPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

const OPTIONAL = Symbol.for("TypeBox.Optional");

export function buildOpenApiDocument(routes: readonly RouteLike[], app: unknown, info: { version: string }, hidden: string[]) {
  const { paths, components } = toOpenAPISchema(app as never, { paths: hidden, staticFile: false }, undefined, undefined, "3.1.0") as {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, unknown> };
  };
  const bodies = routeBodies(routes as never);
  const usedTags = new Set<string>();
  const errorResponses: Record<string, unknown> = {};
  for (const route of routes) {
    const op = paths[openapiPath(route.path)]?.[route.method.toLowerCase()];
    if (!op) continue;
    // Parameters and responses as generated, with Elysia's coercion unions taken out.
    if (op.parameters) op.parameters = (plainIntegers(op.parameters) as Parameter[]).map(described);
    if (op.responses) op.responses = plainIntegers(op.responses) as Record<string, unknown>;
    const body = bodies.get(`${route.method} ${route.path}`);
    if (body?.schema) {
      op.requestBody = { required: !(OPTIONAL in body.schema), content: { "application/json": { schema: jsonSchemaOf(body.schema) } } };
    }
    const example = BODY_EXAMPLES[`${route.method} ${route.path}`];
    const media = op.requestBody && Object.values(op.requestBody.content)[0];
    if (media && example !== undefined) (media as { example?: unknown }).example = example;
    if (op.operationId) op.operationId = identifier(op.operationId);
    for (const tag of op.tags ?? []) usedTags.add(tag);
    decorate(op, route, errorResponses);
  }
  const models = namedModels();
  for (const item of Object.values(paths)) for (const op of Object.values(item)) if (op.responses) op.responses = models.refer(op.responses) as Record<string, unknown>;
  return {
    openapi: "3.1.0",
    info: {
      title: "Mailroom API",
      version: info.version,
      summary: "Mailboxes for software agents.",
      description:
        "Mailboxes for software agents: email, an agent-to-agent protocol and signed webhooks behind one HTTP API. Every error uses the envelope `{error:{code,message,details}}`; each operation lists, per status, the codes it can answer with.",
    },
    servers: [{ url: "/", description: "This service: the origin the document was fetched from." }],
    tags: [...usedTags].sort((a, b) => a.localeCompare(b)).map((name) => ({ name, description: TAGS[name] ?? "" })),
    paths,
    components: {
      schemas: { ...(plainIntegers(components.schemas) as Record<string, unknown>), ...models.schemas, Error: ERROR_SCHEMA },
      responses: Object.fromEntries(Object.entries(errorResponses).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        adminToken: { type: "http", scheme: "bearer", description: "The operator's ADMIN_TOKEN." },
        mailboxKey: { type: "http", scheme: "bearer", bearerFormat: "svc_{keyId}.{secret}", description: "An API key of one mailbox." },
      },
    },
  };
}

function decorate(op: Operation, route: RouteLike, errorResponses: Record<string, unknown>): void {
  const method = route.method.toUpperCase();
  const rule = authRuleFor(method, route.path);
  if (rule.level === "admin") op.security = [{ adminToken: [] }];
  else if (rule.level === "mailbox" || rule.level === "key") op.security = [{ adminToken: [] }, { mailboxKey: [] }];
  else op.security = [];
  if (method !== "GET") (op.parameters ??= []).push(IDEMPOTENCY_KEY);
  const responses = (op.responses ??= {});
  for (const [status, response] of Object.entries(responses)) {
    const r = response as { description?: string };
    if (r.description === `Response for status ${status}`) r.description = SUCCESS_TEXT[status] ?? r.description;
  }
  // One shared response per status and set of codes, named for them.
  for (const [status, codes] of routeErrors({ method, path: route.path })) {
    const name = `Error${status}.${codes.join(".")}`;
    errorResponses[name] ??= errorResponse(status, codes);
    responses[status] = { $ref: `#/components/responses/${name}` };
  }
}

const SUCCESS_TEXT: Readonly<Record<string, string>> = { "200": "OK", "201": "Created", "202": "Accepted", "204": "No content" };

function errorResponse(status: string, codes: string[]) {
  const lines = codes.map((c) => `- \`${c}\`: ${ERROR_MEANING[c as keyof typeof ERROR_MEANING] ?? ""}`);
  return {
    description: `${STATUS_TEXT[status] ?? "Error"}. \`error.code\` is one of:\n${lines.join("\n")}`,
    ...(codes.some((c) => RETRY_AFTER_CODES.has(c))
      ? { headers: { "Retry-After": { description: "Seconds to wait before retrying (with the codes that say so).", schema: { type: "integer", minimum: 1 } } } }
      : {}),
    content: {
      "application/json": {
        schema: {
          allOf: [
            { $ref: "#/components/schemas/Error" },
            { type: "object", required: ["error"], properties: { error: { type: "object", required: ["code"], properties: { code: { type: "string", enum: codes } } } } },
          ],
        },
      },
    },
  };
}

/**
 * A parameter's description: its schema's, else one made from its name (`mailboxId` → "The
 * mailbox's id.", a query filter → "Only items with this status.").
 */
function described(p: Parameter): Parameter {
  if (p.description) return p;
  const own = (p.schema as { description?: string } | undefined)?.description;
  const words = p.name.replace(/([A-Z])/g, " $1").replace(/_/g, " ").toLowerCase().trim().split(" ");
  const last = words.pop()!;
  const made =
    p.in === "path"
      ? `The ${words.join(" ")}${words.length ? "'s " : ""}${last}.`
      : p.name === "page"
        ? "Page number, from 1."
        : p.name === "limit"
          ? "At most this many items."
          : `Only items with this ${[...words, last].join(" ")}.`;
  return { ...p, description: own ? `${own[0]!.toUpperCase()}${own.slice(1)}${own.endsWith(".") ? "" : "."}` : made };
}

/** `postV1MailboxesByMailboxIdApi-keys` → `postV1MailboxesByMailboxIdApiKeys`: usable as a name in any client language. */
const identifier = (id: string) => id.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ""));

/**
 * Elysia's `t.Integer` (and `t.Numeric`) is `anyOf[string (format integer), integer]` so that a
 * query string coerces; what a client sends or receives is the integer. Those unions become
 * the integer schema they wrap, with the keywords around them kept.
 */
export function plainIntegers(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(plainIntegers);
  if (!node || typeof node !== "object") return node;
  const o = node as Record<string, unknown>;
  const any = o.anyOf;
  if (Array.isArray(any) && any.length === 2 && isNumericString(any[0]) && isNumber(any[1])) {
    const { anyOf: _, ...outer } = o;
    return plainIntegers({ ...outer, ...(any[1] as object) });
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, plainIntegers(v)]));
}

const isNumericString = (s: unknown) => !!s && typeof s === "object" && (s as { type?: unknown }).type === "string" && ["integer", "numeric"].includes((s as { format?: string }).format ?? "");
const isNumber = (s: unknown) => !!s && typeof s === "object" && ["integer", "number"].includes((s as { type?: string }).type ?? "");

/** JSON with object keys sorted, so two schemas compare by content. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));

/**
 * The resources responses return (Account, Message, Thread, …) as named component schemas, so
 * a generated client has a type for each: every response subschema identical to a model's
 * published form becomes a `$ref` to it. Request bodies stay inline, the very schemas validated.
 */
function namedModels() {
  const forms = new Map<string, { name: string; form: unknown }>();
  for (const [name, model] of Object.entries(RESPONSE_MODELS)) {
    const form = plainIntegers(JSON.parse(JSON.stringify(unwrapSchema(model as never, undefined, "output", "3.1.0"))));
    forms.set(canonical(form), { name, form });
  }
  const refer = (node: unknown, self?: string): unknown => {
    if (Array.isArray(node)) return node.map((n) => refer(n));
    if (!node || typeof node !== "object") return node;
    const named = forms.get(canonical(node));
    if (named && named.name !== self) return { $ref: `#/components/schemas/${named.name}` };
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, refer(v)]));
  };
  const schemas: Record<string, unknown> = {};
  for (const { name, form } of [...forms.values()].sort((a, b) => a.name.localeCompare(b.name))) schemas[name] = refer(form, name);
  return { refer: (node: unknown) => refer(node), schemas };
}
