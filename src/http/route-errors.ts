import { ERROR_STATUS, type ErrorCode } from "../errors.ts";
import { authRuleFor } from "./route-auth.ts";

/**
 * Which error codes each route can answer with, for the OpenAPI document. Most come from what
 * the route is (authenticated, takes input, names a resource, changes something), read from the
 * route itself and the auth table; the few a route's own domain raises are listed per route in
 * ROUTE_ERRORS. The status of each code is ERROR_STATUS (src/errors.ts), the one table the
 * renderer uses too.
 */

/** What the document needs to know of a route to tell its errors. */
export interface RouteShape {
  method: string;
  /** Elysia's form: /v1/mailboxes/:mailboxId */
  path: string;
}

interface Trait {
  /** Why these codes arise, for the reader of this table. */
  why: string;
  applies: (route: RouteShape) => boolean;
  codes: readonly ErrorCode[];
}

const authenticated = (r: RouteShape) => authRuleFor(r.method, r.path).level !== "public";
const readsBody = (r: RouteShape) => r.method !== "GET" && r.method !== "HEAD";
const onProtocolHost = (r: RouteShape) => r.path.startsWith("/.agent/") || r.path.startsWith("/.well-known/");

const TRAITS: readonly Trait[] = [
  { why: "any fault the service did not foresee", applies: () => true, codes: ["internal_error"] },
  // Path and query are checked on every route, declared or not: NUL or broken percent-encoding is refused.
  { why: "path, query and body are checked against the route's schemas and for text PostgreSQL can store", applies: () => true, codes: ["validation_error"] },
  {
    why: "the pipeline authenticates every non-public route and counts a key's calls (README 'Authentication', 'Rate limit'); the mailbox actor may be too busy to start the command, or the node stopping",
    applies: authenticated,
    codes: ["missing_authorization", "invalid_authorization", "invalid_token", "forbidden", "rate_limit_exceeded", "service_unavailable"],
  },
  { why: "a path parameter names a resource that may not exist", applies: (r) => r.path.includes("/:"), codes: ["not_found"] },
  {
    why: "every POST, PUT, PATCH and DELETE reads its body, bounded, as JSON (README 'Request bodies'); large ones are parsed in a worker that may not answer in time",
    applies: readsBody,
    codes: ["validation_error", "invalid_json", "payload_too_large", "unsupported_media_type", "service_unavailable"],
  },
  { why: "every POST, PUT, PATCH and DELETE takes an Idempotency-Key (README 'Idempotency')", applies: readsBody, codes: ["validation_error", "idempotency_key_reused", "idempotency_key_in_use"] },
  { why: "the agent protocol reads the mailbox from the Host header (README 'Request bodies', Host)", applies: onProtocolHost, codes: ["validation_error", "not_found"] },
];

const SENDS = ["address_suppressed", "mailbox_disabled", "outbound_disabled", "rate_limit_exceeded"] as const satisfies readonly ErrorCode[];

/** Outcomes of a route's own domain, beyond what its traits give. Keys are "METHOD /path" as in ROUTE_AUTH. */
export const ROUTE_ERRORS: Readonly<Record<string, readonly ErrorCode[]>> = {
  "POST /v1/accounts": ["slug_taken"],
  "POST /v1/accounts/:accountId/mailboxes": ["slug_taken"],
  "POST /v1/mailboxes/:mailboxId/labels": ["label_exists"],
  "POST /v1/mailboxes/:mailboxId/actions": ["action_exists"],
  "POST /v1/mailboxes/:mailboxId/webhooks": ["webhook_endpoint_limit"],
  "POST /v1/mailboxes/:mailboxId/send": SENDS,
  "POST /v1/messages/:messageId/reply": [...SENDS, "reply_not_supported"],
  "POST /v1/drafts/:draftId/send": [...SENDS, "approval_required"],
  // not_found: a recipient that is no address of this service, or the message names none.
  "POST /v1/inbound/email": ["not_found", "mailbox_disabled", "invalid_reply_token", "expired_reply_token"],
  "POST /.agent/inbox": ["mailbox_disabled", "unknown_action", "schema_validation_failed"],
  "POST /.agent/inbox/:messageId/respond": ["schema_validation_failed"],
};

/** The codes a route can answer with, grouped by HTTP status ("409" → [...]), each list sorted. */
export function routeErrors(route: RouteShape): Map<string, ErrorCode[]> {
  const codes = new Set<ErrorCode>();
  for (const trait of TRAITS) if (trait.applies(route)) for (const c of trait.codes) codes.add(c);
  for (const c of ROUTE_ERRORS[`${route.method} ${route.path}`] ?? []) codes.add(c);
  const byStatus = new Map<string, ErrorCode[]>();
  for (const code of [...codes].sort()) {
    const status = String(ERROR_STATUS[code]);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a.localeCompare(b)));
}

/** One line per code, for the response descriptions of the document. */
export const ERROR_MEANING: Readonly<Partial<Record<ErrorCode, string>>> = {
  validation_error: "the request failed validation; `details.fields` lists `{path, message}`",
  invalid_json: "the body is not valid JSON (or not UTF-8)",
  schema_validation_failed: "protocol parameters or response data do not match the action's JSON Schema; `details.errors` lists them",
  unknown_action: "the action does not exist or is disabled",
  reply_not_supported: "the message cannot be replied to by email",
  invalid_reply_token: "a reply alias is unknown or belongs to another mailbox",
  missing_authorization: "no Authorization header",
  invalid_authorization: "the Authorization header is not `Bearer <token>` or the key is malformed",
  invalid_token: "the token matches no admin token or live API key",
  forbidden: "valid credentials, not allowed here (admin route, another mailbox, a runtime tier)",
  outbound_disabled: "the mailbox policy does not allow sending (allow_outbound is false)",
  approval_required: "an agent runtime in draft-first mode may not send a draft",
  mailbox_disabled: "the mailbox is disabled",
  not_found: "the resource does not exist",
  method_not_allowed: "the path does not take this method",
  slug_taken: "the slug is already in use",
  label_exists: "the mailbox already has a label of that name",
  action_exists: "the mailbox already has an action of that name",
  address_suppressed: "a recipient is on the account's suppression list",
  idempotency_key_reused: "the Idempotency-Key was used with a different request",
  idempotency_key_in_use: "a request with this Idempotency-Key is still running; see Retry-After",
  webhook_endpoint_limit: "the mailbox has as many webhook endpoints as it may",
  expired_reply_token: "the reply alias has expired",
  payload_too_large: "the body is over its limit; `details.limit` gives it",
  unsupported_media_type: "the body's Content-Type is not one the operation takes",
  rate_limit_exceeded: "a rate limit is used up (the API key's calls, or the mailbox's sends); see Retry-After",
  internal_error: "unexpected server fault, logged with `details.request_id`",
  service_unavailable: "nothing was applied (a busy mailbox, a stopping node, an overloaded worker); retry after Retry-After",
};
