import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { accounts, mailboxes } from "./accounts.ts";
import { timestampNow as at } from "./columns.ts";

const when = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** Where a mailbox's events go. The secret signs every delivery; it is shown once, at creation, and stored sealed (src/crypto/secret-box.ts). */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: uuid("id").primaryKey(),
    mailboxId: uuid("mailbox_id")
      .notNull()
      .references(() => mailboxes.id, { onDelete: "cascade" }),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    events: text("events").array().notNull(),
    secret: text("secret").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    status: text("status").$type<"active" | "degraded">().notNull().default("active"),
    /** Failed attempts since the last success, over all of the endpoint's deliveries. */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    createdAt: at("created_at"),
    updatedAt: at("updated_at"),
  },
  (t) => [index("webhook_endpoints_mailbox_idx").on(t.mailboxId)],
);

/**
 * One event for one endpoint: the record of truth for whether it reached the receiver. Its id
 * is the delivery id (Nats-Msg-Id, webhook-id) and stays the same over every attempt.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey(),
    /**
     * Null for protocol callbacks and runtime deliveries, which carry their url. No delivery
     * holds a secret: each attempt signs with its endpoint's, the sender mailbox's callback
     * secret, or the runtime binding's, read at attempt time.
     */
    endpointId: uuid("endpoint_id").references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    /** `webhook` (an endpoint's), `callback` (a protocol response to the sender) or `runtime` (a message to the agent runtime). */
    target: text("target").$type<"webhook" | "callback" | "runtime">().notNull().default("webhook"),
    url: text("url"),
    /** The header that carries the hex HMAC; x-service-signature unless stated. */
    signatureHeader: text("signature_header"),
    /** What a callback or runtime delivery is about: the protocol response or the message. */
    subjectId: uuid("subject_id"),
    mailboxId: uuid("mailbox_id").notNull(),
    /** The outbox event this delivers; (endpoint, event) is unique so a re-run of fan-out adds nothing. */
    eventId: uuid("event_id").notNull(),
    event: text("event").notNull(),
    /** The exact bytes every attempt sends and signs. */
    body: text("body").notNull(),
    state: text("state").$type<"pending" | "succeeded" | "failed">().notNull().default("pending"),
    /** Attempts in the current schedule (the first plus retries); bulk replay starts a new one. */
    scheduleAttempts: integer("schedule_attempts").notNull().default(0),
    /** Every attempt ever made, replays included: the next attempt's number. */
    attemptCount: integer("attempt_count").notNull().default(0),
    nextAttemptAt: when("next_attempt_at").notNull().defaultNow(),
    /** Set once the delivery is on the JetStream stream; a pending row without it was never published. */
    publishedAt: when("published_at"),
    /** In-process mode: a node holds the delivery until then while it attempts it. */
    lockedUntil: when("locked_until"),
    createdAt: at("created_at"),
    finishedAt: when("finished_at"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_endpoint_event_key").on(t.endpointId, t.eventId),
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.state} = 'pending'`),
    index("webhook_deliveries_failed_idx").on(t.endpointId, t.createdAt).where(sql`${t.state} = 'failed'`),
    // The mailbox metrics' hourly delivery counts.
    index("webhook_deliveries_mailbox_finished_idx").on(t.mailboxId, t.finishedAt).where(sql`${t.finishedAt} is not null`),
  ],
);

/** Every request made for a delivery, in order. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: uuid("id").primaryKey(),
    deliveryId: uuid("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    endpointId: uuid("endpoint_id"),
    attempt: integer("attempt").notNull(),
    /** "scheduled" (first try and retries) or "replay". */
    trigger: text("trigger").$type<"scheduled" | "replay">().notNull(),
    url: text("url").notNull(),
    statusCode: integer("status_code"),
    responseBody: text("response_body"),
    durationMs: integer("duration_ms").notNull(),
    success: boolean("success").notNull(),
    error: text("error"),
    startedAt: when("started_at").notNull(),
    finishedAt: when("finished_at").notNull(),
  },
  (t) => [index("webhook_attempts_endpoint_idx").on(t.endpointId, t.finishedAt)],
);

/** The last event sequence number handed out per mailbox (assigned by a trigger on outbox). */
export const mailboxEventCounters = pgTable("mailbox_event_counters", {
  mailboxId: uuid("mailbox_id")
    .primaryKey()
    .references(() => mailboxes.id, { onDelete: "cascade" }),
  lastSeq: bigint("last_seq", { mode: "number" }).notNull(),
});

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
