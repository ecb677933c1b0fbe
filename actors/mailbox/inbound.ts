import { and, eq, sql } from "drizzle-orm";
import { attachments, messages, outbox, threads, type AttachmentRow, type MessageRow } from "../../db/schema/index.ts";
import { newId } from "../../src/domain/ids.ts";
import { AppError, notFound } from "../../src/errors.ts";
import { enqueueEvent, enqueueJob } from "../../src/jobs/outbox.ts";
import { messageEventPayload } from "../../src/mail/events.ts";
import { findThread, normalizeSubject, participantsKey } from "../../src/mail/threading.ts";
import type { CommandOf, WriteContext } from "./types.ts";

/**
 * Stores an arrived message (its raw bytes are already in `blobs`) with status `received`,
 * and in the same transaction the `message.received` event and the job that will parse it.
 * When this returns, the message cannot be lost.
 */
export async function receive({ state, deps }: WriteContext, cmd: CommandOf<"receive">): Promise<{ id: string }> {
  if (state.mailbox.status === "disabled") {
    throw new AppError("mailbox_disabled", `mailbox ${state.mailbox.id} is disabled and does not accept mail`);
  }
  const id = newId();
  await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(messages)
      .values({
        id,
        mailboxId: state.mailbox.id,
        transport: "smtp",
        direction: "inbound",
        status: "received",
        fromAddress: cmd.head.from,
        toAddress: cmd.recipient,
        subject: cmd.head.subject,
        rawSha256: cmd.rawSha256,
        rawSize: cmd.rawSize,
        envelope: cmd.envelope,
        replyTokenId: cmd.replyToken?.id ?? null,
        // A reply alias names its thread before parsing; headers may still refine it.
        threadId: null,
      })
      .returning();
    await enqueueEvent(tx, "message.received", state.mailbox.id, messageEventPayload(row!));
    await enqueueJob(tx, "mail.process", state.mailbox.id, { message_id: id, token_thread_id: cmd.replyToken?.threadId ?? null });
  });
  return { id };
}

/**
 * Applies the parse and assessment of a received message: threads it, stores the parsed
 * fields and attachment records, sets status `processed`, writes `message.processed`, and
 * marks the processing job done, all in one transaction (so a retry never doubles it).
 */
export async function applyProcessed({ state, deps }: WriteContext, cmd: CommandOf<"applyProcessed">): Promise<MessageRow> {
  const r = cmd.result;
  const own = state.mailbox.emailAddress;
  return deps.db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(messages)
      .where(and(eq(messages.id, cmd.messageId), eq(messages.mailboxId, state.mailbox.id)))
      .for("update")
      .limit(1);
    if (!current) throw notFound("message", cmd.messageId);
    if (current.processedAt) return current; // processed already: a job that ran twice

    const at = current.createdAt;
    const subject = r.subject ?? "";
    const subjectKey = normalizeSubject(subject);
    const parties = participantsKey([r.fromAddress, ...r.toAddresses, ...r.ccAddresses], own);
    let threadId = await findThread(tx, state.mailbox.id, {
      messageIds: [...(r.inReplyTo ? [r.inReplyTo] : []), ...[...r.references].reverse()],
      tokenThreadId: cmd.tokenThreadId,
      subjectKey,
      participantsKey: parties,
      at,
    });
    if (threadId) {
      await tx
        .update(threads)
        .set({ lastMessageAt: sql`greatest(${threads.lastMessageAt}, ${at.toISOString()}::timestamptz)` })
        .where(eq(threads.id, threadId));
    } else {
      threadId = newId();
      await tx.insert(threads).values({ id: threadId, mailboxId: state.mailbox.id, subject, subjectKey, participantsKey: parties, lastMessageAt: at, createdAt: at });
    }

    const [row] = await tx
      .update(messages)
      .set({
        threadId,
        // An archive that came first is kept: processing does not undo a user's action.
        status: current.status === "received" ? "processed" : current.status,
        fromAddress: r.fromAddress,
        subject,
        snippet: r.snippet,
        cc: r.ccAddresses,
        replyTo: r.replyTo,
        messageIdHeader: r.messageIdHeader,
        inReplyTo: r.inReplyTo,
        references: r.references,
        textBody: r.textBody,
        htmlBody: r.htmlBody,
        extractedText: r.extractedText,
        headers: r.headers,
        riskLevel: r.assessment.riskLevel,
        triageLabel: r.assessment.triageLabel,
        suspiciousSignals: r.assessment.signals,
        auth: r.assessment.auth,
        autoReplyBlocked: r.assessment.autoReplyBlocked,
        processedAt: new Date(),
      })
      .where(eq(messages.id, cmd.messageId))
      .returning();

    let stored: AttachmentRow[] = [];
    if (r.attachments.length > 0) {
      stored = await tx
        .insert(attachments)
        .values(r.attachments.map((a, position) => ({ id: newId(), messageId: cmd.messageId, position, ...a })))
        .returning();
    }
    await enqueueEvent(tx, "message.processed", state.mailbox.id, messageEventPayload(row!, stored));
    if (cmd.jobId) await tx.update(outbox).set({ doneAt: new Date() }).where(eq(outbox.id, cmd.jobId));
    return row!;
  });
}
