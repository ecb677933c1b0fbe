import { and, eq, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { labels, messageLabels, messages, threadLabels, threads, type MessageRow, type ThreadRow } from "../../db/schema/index.ts";
import { messageLabelIds, threadLabelIds } from "../../src/domain/labels.ts";
import { notFound } from "../../src/errors.ts";
import type { WriteContext } from "./types.ts";

/**
 * How a mailbox's owner organises its mail: archive and review messages, archive and reopen
 * threads, apply and remove labels. Every command is idempotent: repeating it changes nothing
 * and answers the same.
 */

/**
 * `archived` / `reviewed`: the message's status becomes that state (the last of archive and
 * review wins) and its `archived_at` / `reviewed_at` records when it entered it; a message
 * already in that state is left as it is.
 */
export async function setMessageState({ state, deps }: WriteContext, messageId: string, target: "archived" | "reviewed"): Promise<MessageRow> {
  const at = (column: typeof messages.archivedAt | typeof messages.reviewedAt) => sql<Date>`case when ${messages.status} = ${target} then ${column} else now() end`;
  const [row] = await deps.db
    .update(messages)
    .set(target === "archived" ? { status: "archived", archivedAt: at(messages.archivedAt) } : { status: "reviewed", reviewedAt: at(messages.reviewedAt) })
    .where(and(eq(messages.id, messageId), eq(messages.mailboxId, state.mailbox.id)))
    .returning();
  if (!row) throw notFound("message", messageId);
  return row;
}

export async function setThreadStatus({ state, deps }: WriteContext, threadId: string, status: "open" | "archived"): Promise<ThreadRow> {
  const [row] = await deps.db
    .update(threads)
    .set({ status })
    .where(and(eq(threads.id, threadId), eq(threads.mailboxId, state.mailbox.id)))
    .returning();
  if (!row) throw notFound("thread", threadId);
  return row;
}

/** Applies (`apply: true`) or removes a label of this mailbox on a message; answers the label ids now applied. */
export async function labelMessage({ state, deps }: WriteContext, messageId: string, labelId: string, apply: boolean): Promise<string[]> {
  return deps.db.transaction(async (tx) => {
    const [message] = await tx
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.id, messageId), eq(messages.mailboxId, state.mailbox.id)))
      .for("share")
      .limit(1);
    if (!message) throw notFound("message", messageId);
    const label = await lockLabel(tx, state.mailbox.id, labelId);
    if (apply) await tx.insert(messageLabels).values({ messageId: message.id, labelId: label }).onConflictDoNothing();
    else await tx.delete(messageLabels).where(and(eq(messageLabels.messageId, message.id), eq(messageLabels.labelId, label)));
    return messageLabelIds(tx, [message.id]).then((m) => m.get(message.id) ?? []);
  });
}

/** Applies or removes a label of this mailbox on a thread; answers the label ids now applied. */
export async function labelThread({ state, deps }: WriteContext, threadId: string, labelId: string, apply: boolean): Promise<string[]> {
  return deps.db.transaction(async (tx) => {
    const [thread] = await tx
      .select({ id: threads.id })
      .from(threads)
      .where(and(eq(threads.id, threadId), eq(threads.mailboxId, state.mailbox.id)))
      .for("share")
      .limit(1);
    if (!thread) throw notFound("thread", threadId);
    const label = await lockLabel(tx, state.mailbox.id, labelId);
    if (apply) await tx.insert(threadLabels).values({ threadId: thread.id, labelId: label }).onConflictDoNothing();
    else await tx.delete(threadLabels).where(and(eq(threadLabels.threadId, thread.id), eq(threadLabels.labelId, label)));
    return threadLabelIds(tx, [thread.id]).then((m) => m.get(thread.id) ?? []);
  });
}

/** The label, if it is one of this mailbox's, held until the transaction ends (so it cannot vanish under the insert). */
async function lockLabel(tx: Tx, mailboxId: string, labelId: string): Promise<string> {
  const [label] = await tx
    .select({ id: labels.id })
    .from(labels)
    .where(and(eq(labels.id, labelId), eq(labels.mailboxId, mailboxId)))
    .for("share")
    .limit(1);
  if (!label) throw notFound("label", labelId);
  return label.id;
}
