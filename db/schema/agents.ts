import { boolean, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { jsonb } from "./json.ts";
import { apiKeys, mailboxes } from "./accounts.ts";
import { timestampNow as at } from "./columns.ts";
import { messages } from "./messages.ts";

const when = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
const mailboxRef = () =>
  uuid("mailbox_id")
    .notNull()
    .references(() => mailboxes.id, { onDelete: "cascade" });

export type ProtocolStatus = "received" | "routed" | "responded" | "failed";

/**
 * The protocol half of an `agent-json` message; subject, body, thread and assessment live on
 * its `messages` row (same id), so protocol messages list, search and thread like mail.
 */
export const protocolMessages = pgTable(
  "protocol_messages",
  {
    messageId: uuid("message_id")
      .primaryKey()
      .references(() => messages.id, { onDelete: "cascade" }),
    /** The recipient mailbox (the one whose protocol host took the message). */
    mailboxId: mailboxRef(),
    senderMailboxId: uuid("sender_mailbox_id").references(() => mailboxes.id, { onDelete: "set null" }),
    action: text("action"),
    parameters: jsonb("parameters").$type<Record<string, unknown>>(),
    fromAgent: text("from_agent"),
    onBehalfOf: text("on_behalf_of"),
    callbackUrl: text("callback_url"),
    priority: text("priority").$type<"low" | "normal" | "high" | "urgent">().notNull().default("normal"),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    /** The sender's conversation id (`thread_id` of the protocol message), as given. */
    conversationId: text("conversation_id"),
    status: text("status").$type<ProtocolStatus>().notNull().default("received"),
    /** Why the message failed (an auto-reply that could not be sent), as {code, message}. */
    error: jsonb("error").$type<{ code: string; message: string }>(),
    createdAt: at("created_at"),
    updatedAt: at("updated_at"),
  },
  (t) => [index("protocol_messages_sender_idx").on(t.senderMailboxId, t.createdAt), index("protocol_messages_conversation_idx").on(t.mailboxId, t.conversationId)],
);

/** An answer to a protocol message, by the recipient's agent, its runtime or an auto-reply. */
export const protocolResponses = pgTable(
  "protocol_responses",
  {
    id: uuid("id").primaryKey(),
    protocolMessageId: uuid("protocol_message_id")
      .notNull()
      .references(() => protocolMessages.messageId, { onDelete: "cascade" }),
    mailboxId: mailboxRef(),
    body: text("body").notNull().default(""),
    structuredData: jsonb("structured_data").$type<Record<string, unknown>>().notNull().default({}),
    deliveryMode: text("delivery_mode").$type<"poll" | "callback">().notNull(),
    /** poll: `delivered` at once (it is there to fetch); callback: `pending` until the POST succeeds or fails for good. */
    status: text("status").$type<"pending" | "delivered" | "failed">().notNull(),
    /** Who answered: the mailbox's own agent (API key or admin), its runtime, or an automatic action. */
    responder: text("responder").$type<"agent" | "runtime" | "auto">().notNull(),
    /** The callback delivery (webhook_deliveries, target `callback`). */
    deliveryId: uuid("delivery_id"),
    createdAt: at("created_at"),
    deliveredAt: when("delivered_at"),
  },
  (t) => [index("protocol_responses_message_idx").on(t.protocolMessageId, t.createdAt)],
);

/** The autopilot policy of a mailbox; absent means `observe` with no rules. */
export const autopilotPolicies = pgTable("autopilot_policies", {
  mailboxId: uuid("mailbox_id")
    .primaryKey()
    .references(() => mailboxes.id, { onDelete: "cascade" }),
  mode: text("mode").$type<"observe" | "enforce">().notNull().default("observe"),
  rules: jsonb("rules").$type<unknown[]>().notNull().default([]),
  updatedAt: at("updated_at"),
});

/** What the autopilot decided for one message, and in `enforce` mode what came of each action. */
export const autopilotDecisions = pgTable(
  "autopilot_decisions",
  {
    id: uuid("id").primaryKey(),
    mailboxId: mailboxRef(),
    messageId: uuid("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    mode: text("mode").$type<"observe" | "enforce">().notNull(),
    matchedRules: jsonb("matched_rules").$type<string[]>().notNull(),
    /** [{rule_id, action, outcome: "applied" | "would_apply" | "skipped", detail?}] */
    actions: jsonb("actions").$type<Record<string, unknown>[]>().notNull(),
    blocked: boolean("blocked").notNull().default(false),
    createdAt: at("created_at"),
  },
  (t) => [index("autopilot_decisions_mailbox_idx").on(t.mailboxId, t.createdAt), index("autopilot_decisions_message_idx").on(t.messageId)],
);

export type PermissionTier = "read-only" | "draft" | "send" | "admin-lite" | "admin";
export type PolicyMode = "draft-first" | "auto-send" | "observe";

/** A mailbox's external agent runtime: where its messages go and what the runtime may do. */
export const agentRuntimeBindings = pgTable("agent_runtime_bindings", {
  mailboxId: uuid("mailbox_id")
    .primaryKey()
    .references(() => mailboxes.id, { onDelete: "cascade" }),
  agentId: text("agent_id").notNull(),
  runtimeBaseUrl: text("runtime_base_url").notNull(),
  permissionTier: text("permission_tier").$type<PermissionTier>().notNull().default("draft"),
  policyMode: text("policy_mode").$type<PolicyMode>().notNull().default("draft-first"),
  personaLabel: text("persona_label").notNull().default("default"),
  enabled: boolean("enabled").notNull().default(true),
  /** Signs what the service POSTs to the runtime (x-service-signature); shown once; stored sealed. */
  signingSecret: text("signing_secret").notNull(),
  /** The runtime's own API key (api_keys, scope `runtime`); revoked with the binding. */
  keyId: uuid("key_id").references(() => apiKeys.id, { onDelete: "set null" }),
  createdAt: at("created_at"),
  updatedAt: at("updated_at"),
});

/** The routing log: each step of getting a message to the runtime, and each runtime request the tier or mode changed. */
export const agentRuntimeEvents = pgTable(
  "agent_runtime_events",
  {
    id: uuid("id").primaryKey(),
    mailboxId: mailboxRef(),
    messageId: uuid("message_id"),
    kind: text("kind").notNull(),
    detail: text("detail").notNull().default(""),
    data: jsonb("data").$type<Record<string, unknown>>().notNull().default({}),
    deliveryId: uuid("delivery_id"),
    createdAt: at("created_at"),
  },
  (t) => [index("agent_runtime_events_created_idx").on(t.createdAt), index("agent_runtime_events_mailbox_idx").on(t.mailboxId, t.createdAt)],
);

export type ProtocolMessageRow = typeof protocolMessages.$inferSelect;
export type ProtocolResponseRow = typeof protocolResponses.$inferSelect;
export type AutopilotPolicyRow = typeof autopilotPolicies.$inferSelect;
export type AutopilotDecisionRow = typeof autopilotDecisions.$inferSelect;
export type AgentRuntimeBindingRow = typeof agentRuntimeBindings.$inferSelect;
export type AgentRuntimeEventRow = typeof agentRuntimeEvents.$inferSelect;
