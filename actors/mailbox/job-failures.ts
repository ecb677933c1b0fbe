import { eq } from "drizzle-orm";
import { messages, protocolMessages, type MessageRow } from "../../db/schema/index.ts";
import { eventRow, insertOutbox } from "../../src/jobs/outbox.ts";
import { messageEventPayload } from "../../src/mail/events.ts";
import { lockOwnMessage } from "./message-rows.ts";
import type { JobFailure, WriteContext } from "./types.ts";

/** The signal of a message whose processing ended without success. */
export const PROCESSING_FAILED = "processing_failed";

/**
 * A job about one of this mailbox's messages ended failed (src/jobs/runner.ts): the message
 * shows it. Idempotent: the runner may call it again after a crash.
 *
 * - `mail.process`: the message leaves `received` for `failed` (an archive or review made
 *   meanwhile is kept), gets the `processing_failed` signal, `medium` risk when it has none
 *   (its content was never assessed) and no automatic reply; `processed_at` says when
 *   processing ended. `message.processed` is written as for any end of processing, so a
 *   subscriber waiting for it is not left waiting; its payload carries the status and signal.
 *   Nothing of after-processing runs (autopilot, runtime routing, auto-replies): there is no
 *   assessed content to act on. An agent protocol message is marked `failed` with the reason.
 * - `protocol.auto`: the protocol message is marked `failed` with the reason.
 */
export async function recordJobFailure({ state, deps }: WriteContext, cmd: JobFailure): Promise<MessageRow | null> {
  const error = { code: cmd.kind === "mail.process" ? PROCESSING_FAILED : "auto_reply_failed", message: cmd.reason.slice(0, 2000) };
  if (cmd.kind === "protocol.auto") {
    await deps.db.update(protocolMessages).set({ status: "failed", error, updatedAt: new Date() }).where(eq(protocolMessages.messageId, cmd.messageId));
    return null;
  }
  return deps.db.transaction(async (tx) => {
    const current = await lockOwnMessage(tx, state.mailbox.id, cmd.messageId);
    if (!current || current.processedAt) return current ?? null;
    const [row] = await tx
      .update(messages)
      .set({
        status: current.status === "received" ? "failed" : current.status,
        suspiciousSignals: [...new Set([...current.suspiciousSignals, PROCESSING_FAILED])].sort(),
        riskLevel: current.riskLevel ?? "medium",
        autoReplyBlocked: true,
        processedAt: new Date(),
      })
      .where(eq(messages.id, current.id))
      .returning();
    const [protocol] =
      row!.transport === "agent-json"
        ? await tx.update(protocolMessages).set({ status: "failed", error, updatedAt: new Date() }).where(eq(protocolMessages.messageId, row!.id)).returning()
        : [];
    await insertOutbox(tx, [eventRow("message.processed", state.mailbox.id, messageEventPayload(row!, [], protocol))]);
    return row!;
  });
}
