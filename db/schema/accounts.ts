import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { jsonb } from "./json.ts";
import { timestampNow } from "./columns.ts";

const createdAt = () => timestampNow("created_at");
const updatedAt = () => timestampNow("updated_at");

export const accounts = pgTable("accounts", {
  id: uuid("id").primaryKey(),
  slug: text("slug").notNull().unique("accounts_slug_key"),
  displayName: text("display_name").notNull(),
  status: text("status").notNull().default("active"),
  createdAt: createdAt(),
});

export const mailboxes = pgTable(
  "mailboxes",
  {
    id: uuid("id").primaryKey(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    kind: text("kind").notNull(),
    emailAddress: text("email_address").notNull().unique("mailboxes_email_address_key"),
    protocolHost: text("protocol_host").notNull().unique("mailboxes_protocol_host_key"),
    status: text("status").notNull().default("active"),
    // The mailbox policy (spec section 2), kept on the row so the mailbox actor loads it with the rest.
    allowOutbound: boolean("allow_outbound").notNull().default(true),
    allowAutoReply: boolean("allow_auto_reply").notNull().default(true),
    maxOutboundPerDay: integer("max_outbound_per_day").notNull().default(1000),
    policyUpdatedAt: timestamp("policy_updated_at", { withTimezone: true, mode: "date" }),
    /** Signs protocol responses POSTed to this mailbox's callback URLs (x-service-callback-signature); made on first use; stored sealed. */
    callbackSecret: text("callback_secret"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  // The (account_id, slug) unique index also serves "mailboxes of an account" look-ups.
  (t) => [uniqueIndex("mailboxes_account_slug_key").on(t.accountId, t.slug)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey(),
    mailboxId: uuid("mailbox_id")
      .notNull()
      .references(() => mailboxes.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    scope: text("scope").notNull(),
    status: text("status").notNull().default("active"),
    /** Hex SHA-256 of the secret; the secret itself is never stored. */
    secretDigest: text("secret_digest").notNull(),
    createdAt: createdAt(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    index("api_keys_mailbox_idx").on(t.mailboxId),
    // Each node reads the revocations of the last seconds several times a second (src/auth/key-store.ts).
    index("api_keys_revoked_at_idx").on(t.revokedAt).where(sql`${t.revokedAt} is not null`),
  ],
);

export const actions = pgTable(
  "actions",
  {
    id: uuid("id").primaryKey(),
    mailboxId: uuid("mailbox_id")
      .notNull()
      .references(() => mailboxes.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    parameterSchema: jsonb("parameter_schema").notNull(),
    responseSchema: jsonb("response_schema").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("actions_mailbox_name_key").on(t.mailboxId, t.name)],
);

/** Addresses an account never sends to; stored lowercase, unique per account. */
export const suppressions = pgTable(
  "suppressions",
  {
    id: uuid("id").primaryKey(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    address: text("address").notNull(),
    reason: text("reason"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("suppressions_account_address_key").on(t.accountId, t.address)],
);

export type SuppressionRow = typeof suppressions.$inferSelect;
export type AccountRow = typeof accounts.$inferSelect;
export type MailboxRow = typeof mailboxes.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type ActionRow = typeof actions.$inferSelect;
