import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { labels, messageLabels, messages, threadLabels, threads, type MessageRow, type ThreadRow } from "../../db/schema/index.ts";
import { notFound } from "../../src/errors.ts";
import type { CommandOf, WriteContext } from "./types.ts";

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
export async function setMessageState({ state, deps }: WriteContext, cmd: CommandOf<"setMessageState">): Promise<MessageRow> {
  const at = (column: typeof messages.archivedAt | typeof messages.reviewedAt) => sql<Date>`case when ${messages.status} = ${cmd.state} then ${column} else now() end`;
  const [row] = await deps.db
    .update(messages)
    .set(cmd.state === "archived" ? { status: "archived", archivedAt: at(messages.archivedAt) } : { status: "reviewed", reviewedAt: at(messages.reviewedAt) })
    .where(and(eq(messages.id, cmd.messageId), eq(messages.mailboxId, state.mailbox.id)))
    .returning();
  if (!row) throw notFound("message", cmd.messageId);
  return row;
}

export async function setThreadStatus({ state, deps }: WriteContext, cmd: CommandOf<"setThreadStatus">): Promise<ThreadRow> {
  const [row] = await deps.db
    .update(threads)
    .set({ status: cmd.status })
    .where(and(eq(threads.id, cmd.threadId), eq(threads.mailboxId, state.mailbox.id)))
    .returning();
  if (!row) throw notFound("thread", cmd.threadId);
  return row;
}

/** Applies (`apply: true`) or removes a label of this mailbox on a message; answers the label ids now applied. */
export async function labelMessage({ state, deps }: WriteContext, cmd: CommandOf<"labelMessage">): Promise<string[]> {
  return deps.db.transaction(async (tx) => {
    const [message] = await tx
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.id, cmd.messageId), eq(messages.mailboxId, state.mailbox.id)))
      .for("share")
      .limit(1);
    if (!message) throw notFound("message", cmd.messageId);
    const labelId = await lockLabel(tx, state.mailbox.id, cmd.labelId);
    if (cmd.apply) await tx.insert(messageLabels).values({ messageId: message.id, labelId }).onConflictDoNothing();
    else await tx.delete(messageLabels).where(and(eq(messageLabels.messageId, message.id), eq(messageLabels.labelId, labelId)));
    return messageLabelIds(tx, [message.id]).then((m) => m.get(message.id) ?? []);
  });
}

/** Applies or removes a label of this mailbox on a thread; answers the label ids now applied. */
export async function labelThread({ state, deps }: WriteContext, cmd: CommandOf<"labelThread">): Promise<string[]> {
  return deps.db.transaction(async (tx) => {
    const [thread] = await tx
      .select({ id: threads.id })
      .from(threads)
      .where(and(eq(threads.id, cmd.threadId), eq(threads.mailboxId, state.mailbox.id)))
      .for("share")
      .limit(1);
    if (!thread) throw notFound("thread", cmd.threadId);
    const labelId = await lockLabel(tx, state.mailbox.id, cmd.labelId);
    if (cmd.apply) await tx.insert(threadLabels).values({ threadId: thread.id, labelId }).onConflictDoNothing();
    else await tx.delete(threadLabels).where(and(eq(threadLabels.threadId, thread.id), eq(threadLabels.labelId, labelId)));
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

type Reader = Pick<Tx, "select">;

/** Label ids applied to each message, by label name. */
export const messageLabelIds = (db: Reader, messageIds: string[]) => labelIdsOf(db, messageLabels, messageLabels.messageId, messageLabels.labelId, messageIds);

/** Label ids applied to each thread, by label name. */
export const threadLabelIds = (db: Reader, threadIds: string[]) => labelIdsOf(db, threadLabels, threadLabels.threadId, threadLabels.labelId, threadIds);

async function labelIdsOf(
  db: Reader,
  links: typeof messageLabels | typeof threadLabels,
  ownerColumn: typeof messageLabels.messageId | typeof threadLabels.threadId,
  labelColumn: typeof messageLabels.labelId | typeof threadLabels.labelId,
  ownerIds: string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (ownerIds.length === 0) return out;
  const rows = await db
    .select({ owner: ownerColumn, labelId: labelColumn })
    .from(links)
    .innerJoin(labels, eq(labels.id, labelColumn))
    .where(inArray(ownerColumn, ownerIds))
    .orderBy(asc(labels.nameKey), asc(labels.id));
  for (const r of rows) (out.get(r.owner) ?? out.set(r.owner, []).get(r.owner)!).push(r.labelId);
  return out;
}
