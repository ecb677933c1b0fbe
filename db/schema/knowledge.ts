import { index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { jsonb } from "./json.ts";
import { accounts, mailboxes } from "./accounts.ts";
import { timestampNow as at } from "./columns.ts";

export type Disposition = "neutral" | "trusted" | "blocked";

/**
 * What an account knows about one sender address (lowercase, unique per account). Made and
 * kept current by inbound mail; the disposition and notes are the user's.
 */
export const senderProfiles = pgTable(
  "sender_profiles",
  {
    id: uuid("id").primaryKey(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    address: text("address").notNull(),
    displayName: text("display_name"),
    disposition: text("disposition").$type<Disposition>().notNull().default("neutral"),
    notes: text("notes").notNull().default(""),
    /** Inbound messages seen from this address, over all the account's mailboxes. */
    messageCount: integer("message_count").notNull().default(0),
    firstSeenAt: timestamp("first_seen_at", { withTimezone: true, mode: "date" }),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true, mode: "date" }),
    createdAt: at("created_at"),
    updatedAt: at("updated_at"),
  },
  (t) => [uniqueIndex("sender_profiles_account_address_key").on(t.accountId, t.address), index("sender_profiles_account_seen_idx").on(t.accountId, t.lastSeenAt)],
);

export type IntelKind = "summary" | "extractions" | "digest" | "sender_intelligence";

/**
 * The latest generated result of each kind for a message, thread or sender profile.
 * `source_version` fingerprints what it was made from; a different one means it is stale.
 */
export const intelResults = pgTable(
  "intel_results",
  {
    kind: text("kind").$type<IntelKind>().notNull(),
    subjectId: uuid("subject_id").notNull(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    mailboxId: uuid("mailbox_id").references(() => mailboxes.id, { onDelete: "cascade" }),
    engine: text("engine").notNull(),
    engineVersion: text("engine_version").notNull(),
    model: text("model"),
    /** Why the configured engine was not the one that made it (LLM timeout, bad answer…). */
    fallbackReason: text("fallback_reason"),
    sourceVersion: text("source_version").notNull(),
    result: jsonb("result").$type<Record<string, unknown>>().notNull(),
    generatedAt: at("generated_at"),
  },
  (t) => [primaryKey({ columns: [t.kind, t.subjectId] })],
);

export type MailboxCounter = "refused_policy" | "refused_suppression" | "refused_rate";

/** Per-hour counts of things no other table records (refused sends), for the mailbox metrics. */
export const mailboxHourlyCounters = pgTable(
  "mailbox_hourly_counters",
  {
    mailboxId: uuid("mailbox_id")
      .notNull()
      .references(() => mailboxes.id, { onDelete: "cascade" }),
    hour: timestamp("hour", { withTimezone: true, mode: "date" }).notNull(),
    counter: text("counter").$type<MailboxCounter>().notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.mailboxId, t.hour, t.counter] })],
);

export type SenderProfileRow = typeof senderProfiles.$inferSelect;
export type IntelResultRow = typeof intelResults.$inferSelect;
