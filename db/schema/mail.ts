import { index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { jsonb } from "./json.ts";
import { mailboxes } from "./accounts.ts";
import { timestampNow as at } from "./columns.ts";

/** Unsent messages of a mailbox. Addresses are checked when written, again when sent. */
export const drafts = pgTable(
  "drafts",
  {
    id: uuid("id").primaryKey(),
    mailboxId: uuid("mailbox_id")
      .notNull()
      .references(() => mailboxes.id, { onDelete: "cascade" }),
    to: jsonb("to").$type<string[]>().notNull().default([]),
    cc: jsonb("cc").$type<string[]>().notNull().default([]),
    bcc: jsonb("bcc").$type<string[]>().notNull().default([]),
    subject: text("subject"),
    textBody: text("text_body"),
    htmlBody: text("html_body"),
    /** A reply drafted for approval (an agent runtime in draft-first mode): sent, it threads as a reply to this message. */
    inReplyToMessageId: uuid("in_reply_to_message_id"),
    createdAt: at("created_at"),
    updatedAt: at("updated_at"),
  },
  (t) => [index("drafts_mailbox_updated_idx").on(t.mailboxId, t.updatedAt)],
);

/** A mailbox's labels; the name is unique per mailbox regardless of case. */
export const labels = pgTable(
  "labels",
  {
    id: uuid("id").primaryKey(),
    mailboxId: uuid("mailbox_id")
      .notNull()
      .references(() => mailboxes.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** lower(name), so "Urgent" and "urgent" are one label. */
    nameKey: text("name_key").notNull(),
    color: text("color"),
    createdAt: at("created_at"),
  },
  (t) => [uniqueIndex("labels_mailbox_name_key").on(t.mailboxId, t.nameKey)],
);

export type DraftRow = typeof drafts.$inferSelect;
export type LabelRow = typeof labels.$inferSelect;
