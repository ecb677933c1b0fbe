import { and, asc, count, desc, eq, exists, type SQL } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import { messageLabelIds } from "../../domain/labels.ts";
import type { Db } from "../../../db/client.ts";
import { attachments, deliveryEvents, messageLabels, messages } from "../../../db/schema/index.ts";
import { getBlob } from "../../mail/blobs.ts";
import { messageSubjectFilter } from "../../search/vectors.ts";
import type { Owners } from "../../domain/owners.ts";
import { AppError, notFound } from "../../errors.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import { Paged, paged, pageOf } from "../schemas.ts";
import {
  AttachmentParams,
  checkListQuery,
  contentDisposition,
  DeliveryEvent,
  deliveryEvent,
  fullMessage,
  Message,
  MessageLabelParams,
  MessageLabels,
  MessageListItem,
  messageListItem,
  MessageListQuery,
  MESSAGE_FILTERS,
  MessageParams,
  MessageState,
  safeContentType,
} from "./model.ts";

/** A page of message list items (with their labels) matching `where`. */
export async function pageOfMessages(db: Db, where: SQL | undefined, order: "newest" | "oldest", query: { page?: number; limit?: number }) {
  const page = pageOf(query);
  const orderBy = order === "newest" ? [desc(messages.createdAt), desc(messages.id)] : [asc(messages.createdAt), asc(messages.id)];
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(messages)
      .where(where)
      .orderBy(...orderBy)
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(messages).where(where),
  ]);
  const labels = await messageLabelIds(
    db,
    rows.map((r) => r.id),
  );
  return paged(
    rows.map((r) => messageListItem(r, labels.get(r.id) ?? [])),
    totals[0]?.n ?? 0,
    page,
  );
}

/** Bytes as a download: never rendered or sniffed by a browser that opens the link. */
const download = (bytes: Uint8Array, contentType: string, disposition: string) =>
  new Response(bytes, {
    headers: {
      "content-type": contentType,
      "content-length": String(bytes.byteLength),
      "content-disposition": disposition,
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      "cache-control": "private, no-store",
    },
  });

const bytesResponse = (type: string, description: string) => ({
  200: { description, content: { [type]: { schema: { type: "string" as const, format: "binary" } } } },
});

/** Reads go straight to the database; archive, review and labels go to the owning mailbox's actor. */
export function messageRoutes(mailboxes: Mailboxes, owners: Owners, db: Db, mutation: MutationHooks) {
  const ownerOf = async (messageId: string) => {
    const owner = await owners.message(messageId);
    if (!owner) throw notFound("message", messageId);
    return owner;
  };
  const messageRow = async (messageId: string) => {
    const [row] = await db.select().from(messages).where(eq(messages.id, messageId)).limit(1);
    if (!row) throw notFound("message", messageId);
    return row;
  };
  const blob = async (sha256: string) => {
    const bytes = await getBlob(db, sha256);
    // The foreign key keeps the blob as long as a message or attachment names it.
    if (!bytes) throw new AppError("internal_error", `blob ${sha256} is missing`);
    return bytes;
  };

  return new Elysia({ name: "messages" })
    .get(
      "/v1/mailboxes/:mailboxId/messages",
      async ({ params, query }) => {
        const mailbox = await mailboxes.get(params.mailboxId); // 404 for an unknown mailbox rather than an empty list
        const conditions: SQL[] = [eq(messages.mailboxId, mailbox.id)];
        if (query.query) conditions.push(messageSubjectFilter(query.query));
        if (query.status) conditions.push(eq(messages.status, query.status as (typeof messages.$inferSelect)["status"]));
        if (query.direction) conditions.push(eq(messages.direction, query.direction as "inbound" | "outbound"));
        if (query.transport) conditions.push(eq(messages.transport, query.transport as "smtp" | "agent-json"));
        if (query.triage_label) conditions.push(eq(messages.triageLabel, query.triage_label));
        if (query.risk_level) conditions.push(eq(messages.riskLevel, query.risk_level));
        if (query.thread_id) conditions.push(eq(messages.threadId, query.thread_id));
        if (query.label) {
          const labelId = query.label;
          conditions.push(
            exists(
              db
                .select({ one: messageLabels.labelId })
                .from(messageLabels)
                .where(and(eq(messageLabels.messageId, messages.id), eq(messageLabels.labelId, labelId))),
            ),
          );
        }
        return pageOfMessages(db, and(...conditions), "newest", query);
      },
      {
        params: MailboxParams,
        query: MessageListQuery,
        transform: checkListQuery(MESSAGE_FILTERS),
        response: { 200: Paged(MessageListItem) },
        detail: {
          summary: "List messages",
          description:
            "Newest first. Filters combine with AND: `query` (words of the subject, each matched as a word prefix, case-insensitive, through the full-text index; text with no letters or digits matches as a substring), `status`, `direction`, `transport`, `triage_label`, `risk_level`, `label` (a label id; an id that is not one of this mailbox's labels matches nothing) and `thread_id`. A value outside a filter's set is 400.",
          tags: ["Messages"],
        },
      },
    )
    .get(
      "/v1/messages/:messageId",
      async ({ params }) => {
        const row = await messageRow(params.messageId);
        const [files, labels] = await Promise.all([
          db.select().from(attachments).where(eq(attachments.messageId, row.id)).orderBy(asc(attachments.position)),
          messageLabelIds(db, [row.id]),
        ]);
        return { message: fullMessage(row, files, labels.get(row.id) ?? []) };
      },
      {
        params: MessageParams,
        response: { 200: t.Object({ message: Message }) },
        detail: {
          summary: "Get a message",
          description: "Every field; attachments in the order of the message. Parsed fields are filled once the message is `processed`.",
          tags: ["Messages"],
        },
      },
    )
    .get(
      "/v1/messages/:messageId/raw",
      async ({ params }) => {
        const row = await messageRow(params.messageId);
        // An agent protocol message's original is the JSON it was sent as.
        if (row.transport === "agent-json") return download(await blob(row.rawSha256), "application/json", `attachment; filename="${row.id}.json"`);
        return download(await blob(row.rawSha256), "message/rfc822", `attachment; filename="${row.id}.eml"`);
      },
      {
        params: MessageParams,
        detail: {
          summary: "Get the original message",
          description: "The message file byte for byte as received (inbound) or as handed to the relay (outbound). For an agent protocol message, the JSON it was sent as (application/json).",
          tags: ["Messages"],
          responses: bytesResponse("message/rfc822", "The raw RFC 5322 message"),
        },
      },
    )
    .get(
      "/v1/messages/:messageId/attachments/:attachmentId",
      async ({ params }) => {
        const row = await messageRow(params.messageId);
        const [file] = await db
          .select()
          .from(attachments)
          .where(and(eq(attachments.id, params.attachmentId), eq(attachments.messageId, row.id)))
          .limit(1);
        if (!file) throw notFound("attachment", params.attachmentId);
        return download(await blob(file.sha256), safeContentType(file.mimeType), contentDisposition(file.filename, `attachment-${file.position + 1}`));
      },
      {
        params: AttachmentParams,
        detail: {
          summary: "Get an attachment",
          description:
            "The attachment's bytes with its original Content-Type (application/octet-stream when the stored type is not a plain type/subtype), always as a download (Content-Disposition: attachment, X-Content-Type-Options: nosniff). 404 when the attachment is not one of this message's.",
          tags: ["Messages"],
          responses: bytesResponse("application/octet-stream", "The attachment's bytes, with its own Content-Type"),
        },
      },
    )
    .get(
      "/v1/messages/:messageId/delivery",
      async ({ params }) => {
        const row = await messageRow(params.messageId);
        const events = await db.select().from(deliveryEvents).where(eq(deliveryEvents.messageId, row.id)).orderBy(asc(deliveryEvents.createdAt), asc(deliveryEvents.id));
        return { events: events.map(deliveryEvent) };
      },
      {
        params: MessageParams,
        response: { 200: t.Object({ events: t.Array(DeliveryEvent) }) },
        detail: {
          summary: "Delivery history of a message",
          description: "Oldest first: queued, then retrying…, then sent or failed. Empty for inbound messages.",
          tags: ["Messages"],
        },
      },
    )
    .guard(mutation, (writes) =>
      writes
        .post(
          "/v1/messages/:messageId/archive",
          async ({ params }) => {
            const row = await mailboxes.setMessageState(await ownerOf(params.messageId), params.messageId, "archived");
            return { message_id: row.id, status: "archived" as const };
          },
          {
            params: MessageParams,
            response: { 200: MessageState("archived") },
            detail: {
              summary: "Archive a message",
              description: "Sets status `archived` and `archived_at`. Idempotent: archiving an archived message changes nothing.",
              tags: ["Messages"],
            },
          },
        )
        .post(
          "/v1/messages/:messageId/review",
          async ({ params }) => {
            const row = await mailboxes.setMessageState(await ownerOf(params.messageId), params.messageId, "reviewed");
            return { message_id: row.id, status: "reviewed" as const };
          },
          {
            params: MessageParams,
            response: { 200: MessageState("reviewed") },
            detail: {
              summary: "Mark a message reviewed",
              description:
                "Review marks a message as seen and handled by a human or an agent: status `reviewed` and `reviewed_at`. The later of archive and review sets the status. Idempotent.",
              tags: ["Messages"],
            },
          },
        )
        .post(
          "/v1/messages/:messageId/labels/:labelId",
          async ({ params }) => {
            const owner = await ownerOf(params.messageId);
            return { message_id: params.messageId.toLowerCase(), labels: await mailboxes.labelMessage(owner, params.messageId, params.labelId, true) };
          },
          {
            params: MessageLabelParams,
            response: { 200: MessageLabels },
            detail: {
              summary: "Apply a label to a message",
              description: "The label must be one of the message's mailbox's labels (404 otherwise). Applying it again changes nothing. Answers the labels now applied.",
              tags: ["Messages", "Labels"],
            },
          },
        )
        .delete(
          "/v1/messages/:messageId/labels/:labelId",
          async ({ params }) => {
            const owner = await ownerOf(params.messageId);
            return { message_id: params.messageId.toLowerCase(), labels: await mailboxes.labelMessage(owner, params.messageId, params.labelId, false) };
          },
          {
            params: MessageLabelParams,
            response: { 200: MessageLabels },
            detail: {
              summary: "Remove a label from a message",
              description: "Removing a label the message does not carry is not an error (200). The label must be one of the mailbox's labels (404 otherwise). Answers the labels now applied.",
              tags: ["Messages", "Labels"],
            },
          },
        ),
    );
}
