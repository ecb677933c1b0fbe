import type { Owners } from "../domain/owners.ts";

/**
 * The auth level of every route, in one table. The request guard reads it for every
 * request; the OpenAPI document takes each operation's security from it; a test checks that
 * it names exactly the routes the app serves, so a new route cannot go out without a level.
 *
 * - public:  no token.
 * - admin:   the admin token only; mailbox keys get 403 forbidden.
 * - mailbox: the admin token, or an API key of the mailbox the route concerns (another
 *            mailbox's key gets 403 forbidden). `mailboxOf` names that mailbox: a path
 *            parameter, or the owner of the resource the path names (undefined when there
 *            is none, and the handler answers 404).
 */
export type AuthRule =
  | { level: "public" }
  | { level: "admin" }
  // Any mailbox's key (or the admin token): the agent protocol, whose handlers decide who is sender and recipient.
  | { level: "key" }
  | { level: "mailbox"; mailboxOf: (params: Record<string, string | undefined>, owners: Owners) => string | undefined | Promise<string | undefined> };

const PUBLIC: AuthRule = { level: "public" };
const ANY_KEY: AuthRule = { level: "key" };
const ADMIN: AuthRule = { level: "admin" };
const mailboxParam = (name: string): AuthRule => ({ level: "mailbox", mailboxOf: (p) => p[name] });
const ownerOf = (kind: "draft" | "label" | "message" | "thread", param: string): AuthRule => ({ level: "mailbox", mailboxOf: (p, owners) => owners[kind](p[param]) });

export const ROUTE_AUTH: Readonly<Record<string, AuthRule>> = {
  "GET /health": PUBLIC,
  "GET /openapi.json": PUBLIC,
  "GET /docs": PUBLIC,
  // The files the docs page loads, from node_modules (src/http/docs-page.ts).
  "GET /docs/swagger-ui.css": PUBLIC,
  "GET /docs/swagger-ui-bundle.js": PUBLIC,
  "GET /docs/init.js": PUBLIC,
  "GET /metrics": ADMIN,
  "GET /console": PUBLIC,
  "GET /console/app.js": PUBLIC,
  "GET /console/app.css": PUBLIC,

  "POST /v1/accounts": ADMIN,
  "GET /v1/accounts": ADMIN,
  "GET /v1/accounts/:accountId": ADMIN,
  "GET /v1/accounts/:accountId/mailboxes": ADMIN,
  "POST /v1/accounts/:accountId/mailboxes": ADMIN,

  // Who the token is: any mailbox key (its own mailbox) or the admin token.
  "GET /v1/me": ANY_KEY,
  // The MCP server of the key's mailbox; its tools call the API as the key (src/mcp/).
  "POST /mcp": ANY_KEY,
  "GET /mcp": ANY_KEY,
  "DELETE /mcp": ANY_KEY,
  "GET /v1/mailboxes/:mailboxId": mailboxParam("mailboxId"),
  "POST /v1/mailboxes/:mailboxId/disable": mailboxParam("mailboxId"),
  "POST /v1/mailboxes/:mailboxId/enable": mailboxParam("mailboxId"),

  "GET /v1/mailboxes/:mailboxId/policy": mailboxParam("mailboxId"),
  "PUT /v1/mailboxes/:mailboxId/policy": mailboxParam("mailboxId"),

  "POST /v1/mailboxes/:mailboxId/drafts": mailboxParam("mailboxId"),
  "GET /v1/mailboxes/:mailboxId/drafts": mailboxParam("mailboxId"),
  "GET /v1/drafts/:draftId": ownerOf("draft", "draftId"),
  "PUT /v1/drafts/:draftId": ownerOf("draft", "draftId"),
  "DELETE /v1/drafts/:draftId": ownerOf("draft", "draftId"),

  "POST /v1/mailboxes/:mailboxId/labels": mailboxParam("mailboxId"),
  "GET /v1/mailboxes/:mailboxId/labels": mailboxParam("mailboxId"),
  "DELETE /v1/labels/:labelId": ownerOf("label", "labelId"),

  "GET /v1/accounts/:accountId/suppressions": ADMIN,
  "POST /v1/accounts/:accountId/suppressions": ADMIN,
  "DELETE /v1/accounts/:accountId/suppressions": ADMIN,

  "POST /v1/accounts/:accountId/sender-profiles": ADMIN,
  "GET /v1/accounts/:accountId/sender-profiles": ADMIN,
  "GET /v1/sender-profiles/:profileId": ADMIN,
  "PUT /v1/sender-profiles/:profileId": ADMIN,
  "PATCH /v1/sender-profiles/:profileId": ADMIN,
  "DELETE /v1/sender-profiles/:profileId": ADMIN,
  "GET /v1/sender-profiles/:profileId/intelligence": ADMIN,
  "POST /v1/sender-profiles/:profileId/intelligence": ADMIN,

  "POST /v1/mailboxes/:mailboxId/search": mailboxParam("mailboxId"),
  "GET /v1/messages/:messageId/summary": ownerOf("message", "messageId"),
  "POST /v1/messages/:messageId/summary": ownerOf("message", "messageId"),
  "GET /v1/messages/:messageId/extractions": ownerOf("message", "messageId"),
  "POST /v1/messages/:messageId/extractions": ownerOf("message", "messageId"),
  "GET /v1/threads/:threadId/digest": ownerOf("thread", "threadId"),
  "POST /v1/threads/:threadId/digest": ownerOf("thread", "threadId"),
  "GET /v1/mailboxes/:mailboxId/stats": mailboxParam("mailboxId"),
  "GET /v1/mailboxes/:mailboxId/metrics": mailboxParam("mailboxId"),

  "POST /v1/inbound/email": ADMIN,

  "POST /v1/mailboxes/:mailboxId/webhooks": ADMIN,
  "GET /v1/mailboxes/:mailboxId/webhooks": ADMIN,
  "GET /v1/webhooks/:endpointId": ADMIN,
  "PATCH /v1/webhooks/:endpointId": ADMIN,
  "DELETE /v1/webhooks/:endpointId": ADMIN,
  "POST /v1/webhooks/:endpointId/rotate-secret": ADMIN,
  "GET /v1/webhooks/:endpointId/deliveries": ADMIN,
  "POST /v1/webhooks/:endpointId/deliveries/:deliveryId/replay": ADMIN,
  "POST /v1/webhooks/:endpointId/replay-failed": ADMIN,

  "POST /v1/mailboxes/:mailboxId/send": mailboxParam("mailboxId"),
  "POST /v1/messages/:messageId/reply": ownerOf("message", "messageId"),
  "POST /v1/drafts/:draftId/send": ownerOf("draft", "draftId"),

  "GET /v1/mailboxes/:mailboxId/messages": mailboxParam("mailboxId"),
  "GET /v1/messages/:messageId": ownerOf("message", "messageId"),
  "GET /v1/messages/:messageId/raw": ownerOf("message", "messageId"),
  "GET /v1/messages/:messageId/attachments/:attachmentId": ownerOf("message", "messageId"),
  "GET /v1/messages/:messageId/delivery": ownerOf("message", "messageId"),
  "POST /v1/messages/:messageId/archive": ownerOf("message", "messageId"),
  "POST /v1/messages/:messageId/review": ownerOf("message", "messageId"),
  "POST /v1/messages/:messageId/labels/:labelId": ownerOf("message", "messageId"),
  "DELETE /v1/messages/:messageId/labels/:labelId": ownerOf("message", "messageId"),

  "GET /v1/mailboxes/:mailboxId/threads": mailboxParam("mailboxId"),
  "GET /v1/threads/:threadId": ownerOf("thread", "threadId"),
  "GET /v1/threads/:threadId/messages": ownerOf("thread", "threadId"),
  "POST /v1/threads/:threadId/archive": ownerOf("thread", "threadId"),
  "POST /v1/threads/:threadId/reopen": ownerOf("thread", "threadId"),
  "POST /v1/threads/:threadId/labels/:labelId": ownerOf("thread", "threadId"),
  "DELETE /v1/threads/:threadId/labels/:labelId": ownerOf("thread", "threadId"),

  "GET /v1/mailboxes/:mailboxId/events": mailboxParam("mailboxId"),

  "POST /v1/mailboxes/:mailboxId/actions": mailboxParam("mailboxId"),
  "GET /v1/mailboxes/:mailboxId/actions": mailboxParam("mailboxId"),
  "GET /v1/mailboxes/:mailboxId/actions/:actionName": mailboxParam("mailboxId"),
  "PUT /v1/mailboxes/:mailboxId/actions/:actionName": mailboxParam("mailboxId"),
  "DELETE /v1/mailboxes/:mailboxId/actions/:actionName": mailboxParam("mailboxId"),

  "GET /v1/mailboxes/:mailboxId/autopilot": mailboxParam("mailboxId"),
  "PUT /v1/mailboxes/:mailboxId/autopilot": mailboxParam("mailboxId"),
  "GET /v1/mailboxes/:mailboxId/autopilot/decisions": mailboxParam("mailboxId"),

  "GET /.well-known/agent.json": PUBLIC,
  "GET /.well-known/agent-card.json": PUBLIC,
  "POST /.agent/inbox": ANY_KEY,
  "GET /.agent/inbox/:messageId": ANY_KEY,
  "POST /.agent/inbox/:messageId/respond": ANY_KEY,
  "GET /.agent/inbox/:messageId/responses": ANY_KEY,
  "POST /v1/mailboxes/:mailboxId/callback-secret": ADMIN,

  "POST /v1/mailboxes/:mailboxId/agent-runtime-binding": ADMIN,
  "GET /v1/mailboxes/:mailboxId/agent-runtime-binding": ADMIN,
  "DELETE /v1/mailboxes/:mailboxId/agent-runtime-binding": ADMIN,
  "GET /v1/admin/agent-runtime-bindings": ADMIN,
  "GET /v1/admin/agent-runtime-events": ADMIN,

  "POST /v1/mailboxes/:mailboxId/api-keys": ADMIN,
  "GET /v1/mailboxes/:mailboxId/api-keys": ADMIN,
  "POST /v1/mailboxes/:mailboxId/api-keys/:keyId/revoke": ADMIN,
};

/** Unknown routes fail closed: they need the admin token. */
export const authRuleFor = (method: string, route: string): AuthRule => ROUTE_AUTH[`${method} ${route}`] ?? ADMIN;

/**
 * What an agent runtime's key needs for a route, by permission tier (README "Agent-runtime
 * binding"): read-only reads; draft adds drafts; send adds send, reply and protocol answers;
 * admin-lite adds labels, actions, policy and autopilot; admin may do every mailbox operation.
 * Reads need `read`; a change not listed here needs `admin`.
 */
export type Capability = "read" | "draft" | "send" | "manage" | "admin";
export const TIER_CAPABILITIES: Readonly<Record<string, readonly Capability[]>> = {
  "read-only": ["read"],
  draft: ["read", "draft"],
  send: ["read", "draft", "send"],
  "admin-lite": ["read", "draft", "send", "manage"],
  admin: ["read", "draft", "send", "manage", "admin"],
};

const ROUTE_CAPABILITY: Readonly<Record<string, Capability>> = {
  // Talking to the MCP server needs nothing itself: each tool's API calls are checked as they are made.
  "POST /mcp": "read",
  "DELETE /mcp": "read",
  // POSTs that only read: a search, and results made from the mail (cached, not a change to it).
  "POST /v1/mailboxes/:mailboxId/search": "read",
  "POST /v1/messages/:messageId/summary": "read",
  "POST /v1/messages/:messageId/extractions": "read",
  "POST /v1/threads/:threadId/digest": "read",
  "POST /v1/mailboxes/:mailboxId/drafts": "draft",
  "PUT /v1/drafts/:draftId": "draft",
  "DELETE /v1/drafts/:draftId": "draft",
  "POST /v1/mailboxes/:mailboxId/send": "send",
  "POST /v1/messages/:messageId/reply": "send",
  "POST /v1/drafts/:draftId/send": "send",
  "POST /.agent/inbox": "send",
  "POST /.agent/inbox/:messageId/respond": "send",
  "POST /v1/mailboxes/:mailboxId/labels": "manage",
  "DELETE /v1/labels/:labelId": "manage",
  "POST /v1/messages/:messageId/labels/:labelId": "manage",
  "DELETE /v1/messages/:messageId/labels/:labelId": "manage",
  "POST /v1/threads/:threadId/labels/:labelId": "manage",
  "DELETE /v1/threads/:threadId/labels/:labelId": "manage",
  "POST /v1/mailboxes/:mailboxId/actions": "manage",
  "PUT /v1/mailboxes/:mailboxId/actions/:actionName": "manage",
  "DELETE /v1/mailboxes/:mailboxId/actions/:actionName": "manage",
  "PUT /v1/mailboxes/:mailboxId/policy": "manage",
  "PUT /v1/mailboxes/:mailboxId/autopilot": "manage",
};

export const capabilityFor = (method: string, route: string): Capability => ROUTE_CAPABILITY[`${method} ${route}`] ?? (method === "GET" || method === "HEAD" ? "read" : "admin");
