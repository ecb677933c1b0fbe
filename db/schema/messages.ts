import { sql } from "drizzle-orm";
import { bigint, bigserial, boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { jsonb } from "./json.ts";
import type { AuthResults, HeaderField } from "../../src/mail/types.ts";
import type { TransferEncoding } from "../../src/mail/parse/body-ranges.ts";
import { mailboxes } from "./accounts.ts";
import { bytea } from "./bytea.ts";
import { timestampNow as at } from "./columns.ts";
import { labels } from "./mail.ts";

const mailboxRef = () =>
  uuid("mailbox_id")
    .notNull()
    .references(() => mailboxes.id, { onDelete: "cascade" });

/**
 * Content-addressed bytes: raw messages and attachment contents, keyed by SHA-256, so a
 * message sent to several mailboxes, or an attachment forwarded again, is stored once.
 */
export const blobs = pgTable("blobs", {
  sha256: text("sha256").primaryKey(),
  size: integer("size").notNull(),
  bytes: bytea("bytes").notNull(),
  createdAt: at("created_at"),
});

/*
 * Full-text search columns: `threads.subject_tsv` (generated) and `messages.search_tsv` (kept
 * by a trigger since migration 0018, so the service can hand in the text part) are tsvector
 * columns with GIN indexes, made by hand in migration 0006_knowledge and deliberately not
 * mapped here, so that reading a row never drags its search vector along. Search reads them
 * through src/search/vectors.ts.
 */
export const threads = pgTable(
  "threads",
  {
    id: uuid("id").primaryKey(),
    mailboxId: mailboxRef(),
    subject: text("subject").notNull().default(""),
    /** Subject with Re:/Fwd: prefixes and white space normalised, lowercase: the subject match key. */
    subjectKey: text("subject_key").notNull().default(""),
    /** Sorted addresses of the other parties, joined by spaces (a digest when long): who the conversation is with. */
    participantsKey: text("participants_key").notNull().default(""),
    status: text("status").$type<"open" | "archived">().notNull().default("open"),
    lastMessageAt: at("last_message_at"),
    createdAt: at("created_at"),
  },
  (t) => [
    index("threads_mailbox_last_idx").on(t.mailboxId, t.lastMessageAt.desc(), t.id.desc()),
    // Digests, not the text: a btree entry must fit in ~2.7 kB (see src/mail/threading.ts).
    index("threads_mailbox_match_idx").on(t.mailboxId, sql`md5(${t.subjectKey})`, sql`md5(${t.participantsKey})`),
  ],
);

export type MessageStatus = "received" | "processed" | "queued" | "sent" | "failed" | "archived" | "reviewed";

export const messages = pgTable(
  "messages",
  {
    id: uuid("id").primaryKey(),
    mailboxId: mailboxRef(),
    /**
     * Decided when the message arrives (inbound mail from its head, protocol messages from
     * the conversation, outbound mail when composed); null only for rows stored before that,
     * until they are processed, or once their thread is deleted.
     */
    threadId: uuid("thread_id").references(() => threads.id, { onDelete: "set null" }),
    transport: text("transport").$type<"smtp" | "agent-json">().notNull(),
    direction: text("direction").$type<"inbound" | "outbound">().notNull(),
    status: text("status").$type<MessageStatus>().notNull(),
    fromAddress: text("from_address").notNull().default(""),
    /** The recipients, comma-separated: the envelope recipient for inbound mail, To for outbound. */
    toAddress: text("to_address").notNull().default(""),
    cc: jsonb("cc").$type<string[]>().notNull().default([]),
    bcc: jsonb("bcc").$type<string[]>().notNull().default([]),
    replyTo: jsonb("reply_to").$type<string[]>().notNull().default([]),
    subject: text("subject").notNull().default(""),
    snippet: text("snippet").notNull().default(""),
    messageIdHeader: text("message_id_header"),
    inReplyTo: text("in_reply_to"),
    references: jsonb("references").$type<string[]>().notNull().default([]),
    textBody: text("text_body"),
    htmlBody: text("html_body"),
    extractedText: text("extracted_text"),
    /** What extracted_text left out: quoted history and signature (src/mail/extract.ts splitReply). */
    quotedText: text("quoted_text"),
    headers: jsonb("headers").$type<HeaderField[]>().notNull().default([]),
    riskLevel: text("risk_level"),
    triageLabel: text("triage_label"),
    suspiciousSignals: jsonb("suspicious_signals").$type<string[]>().notNull().default([]),
    auth: jsonb("auth").$type<AuthResults>(),
    autoReplyBlocked: boolean("auto_reply_blocked").notNull().default(false),
    /** SHA-256 of the raw message in `blobs`, byte for byte as received or sent. */
    rawSha256: text("raw_sha256")
      .notNull()
      .references(() => blobs.sha256),
    rawSize: integer("raw_size").notNull(),
    envelope: jsonb("envelope").$type<{ mailFrom: string | null; rcptTo: string[]; remoteAddress: string | null; heloName: string | null }>(),
    /** The reply alias token this message arrived through (inbound) or carries (outbound). */
    replyTokenId: uuid("reply_token_id"),
    /** The provider's (relay's) id for an outbound message. */
    providerMessageId: text("provider_message_id"),
    processedAt: timestamp("processed_at", { withTimezone: true, mode: "date" }),
    reviewedAt: timestamp("reviewed_at", { withTimezone: true, mode: "date" }),
    archivedAt: timestamp("archived_at", { withTimezone: true, mode: "date" }),
    /** Attachment file names, space-separated, so that search finds them with the rest. */
    attachmentNames: text("attachment_names").notNull().default(""),
    createdAt: at("created_at"),
  },
  (t) => [
    index("messages_mailbox_created_idx").on(t.mailboxId, t.createdAt.desc(), t.id.desc()),
    index("messages_from_idx").on(t.fromAddress, t.createdAt),
    index("messages_thread_idx").on(t.threadId, t.createdAt),
    index("messages_mailbox_msgid_md5_idx").on(t.mailboxId, sql`md5(${t.messageIdHeader})`),
  ],
);

export const attachments = pgTable(
  "attachments",
  {
    id: uuid("id").primaryKey(),
    messageId: uuid("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    filename: text("filename"),
    mimeType: text("mime_type").notNull(),
    size: integer("size").notNull(),
    contentId: text("content_id"),
    /**
     * The decoded bytes in `blobs`, for an attachment whose place in the raw message could not
     * be proven at processing; null when the bytes are read from the message's raw bytes: the
     * encoded body at `raw_offset` (0-based) of `raw_length` bytes, decoded with `transfer_encoding`.
     */
    sha256: text("sha256").references(() => blobs.sha256),
    rawOffset: integer("raw_offset"),
    rawLength: integer("raw_length"),
    transferEncoding: text("transfer_encoding").$type<TransferEncoding>(),
  },
  (t) => [index("attachments_message_idx").on(t.messageId, t.position)],
);

export const messageLabels = pgTable(
  "message_labels",
  {
    messageId: uuid("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    labelId: uuid("label_id")
      .notNull()
      .references(() => labels.id, { onDelete: "cascade" }),
    createdAt: at("created_at"),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.labelId] }), index("message_labels_label_idx").on(t.labelId)],
);

export const threadLabels = pgTable(
  "thread_labels",
  {
    threadId: uuid("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    labelId: uuid("label_id")
      .notNull()
      .references(() => labels.id, { onDelete: "cascade" }),
    createdAt: at("created_at"),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.labelId] }), index("thread_labels_label_idx").on(t.labelId)],
);

/** Delivery history of an outbound message: queued, then sent or retrying…, then sent or failed. */
export const deliveryEvents = pgTable(
  "delivery_events",
  {
    id: uuid("id").primaryKey(),
    messageId: uuid("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    status: text("status").$type<"queued" | "sent" | "retrying" | "failed">().notNull(),
    detail: text("detail").notNull().default(""),
    createdAt: at("created_at"),
  },
  (t) => [index("delivery_events_message_idx").on(t.messageId, t.createdAt)],
);

/** Reply alias tokens; only the SHA-256 of a token is kept. */
export const replyTokens = pgTable(
  "reply_tokens",
  {
    id: uuid("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    mailboxId: mailboxRef(),
    threadId: uuid("thread_id")
      .notNull()
      .references(() => threads.id, { onDelete: "cascade" }),
    /** The outbound message whose Reply-To carries the alias. */
    messageId: uuid("message_id").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: at("created_at"),
  },
  (t) => [uniqueIndex("reply_tokens_hash_key").on(t.tokenHash)],
);

/**
 * Durable jobs and events, written in the same transaction as the change that caused them.
 * A row is pending until `done_at` is set; `locked_until` is a lease so that a node that dies
 * holding a job hands it back.
 */
export const outbox = pgTable(
  "outbox",
  {
    seq: bigserial("seq", { mode: "number" }).primaryKey(),
    id: uuid("id").notNull().unique("outbox_id_key"),
    /** "event" rows are delivered to webhooks (next stage); others are jobs this service runs. */
    kind: text("kind").$type<"event" | "mail.process" | "mail.deliver" | "protocol.auto">().notNull(),
    /** Event name for events (message.received, …); empty for jobs. */
    topic: text("topic").notNull().default(""),
    mailboxId: uuid("mailbox_id"),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    attempts: integer("attempts").notNull().default(0),
    runAfter: at("run_after"),
    lockedUntil: timestamp("locked_until", { withTimezone: true, mode: "date" }),
    /** The reason of the last failed attempt; of a failed job, why it ended. */
    lastError: text("last_error"),
    /** When the row stopped being work: handled, or (with failed_at) given up. */
    doneAt: timestamp("done_at", { withTimezone: true, mode: "date" }),
    /** Jobs only: when the job ended without success (a terminal error, or attempts used up). */
    failedAt: timestamp("failed_at", { withTimezone: true, mode: "date" }),
    /** Events only: 1, 2, 3… per mailbox in commit order (a trigger assigns it); the SSE event id. */
    mailboxSeq: bigint("mailbox_seq", { mode: "number" }),
    createdAt: at("created_at"),
  },
  (t) => [
    index("outbox_pending_idx").on(t.kind, t.runAfter).where(sql`${t.doneAt} is null`),
    uniqueIndex("outbox_mailbox_seq_key").on(t.mailboxId, t.mailboxSeq).where(sql`${t.kind} = 'event'`),
    index("outbox_done_idx").on(t.doneAt).where(sql`${t.doneAt} is not null`),
    // The operator's count of failed jobs by kind.
    index("outbox_failed_idx").on(t.kind).where(sql`${t.failedAt} is not null`),
  ],
);

export type ThreadRow = typeof threads.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;
export type AttachmentRow = typeof attachments.$inferSelect;
export type DeliveryEventRow = typeof deliveryEvents.$inferSelect;
export type ReplyTokenRow = typeof replyTokens.$inferSelect;
export type OutboxRow = typeof outbox.$inferSelect;
