import { and, asc, eq, getTableColumns, inArray } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { CompiledList } from "../../db/compiled.ts";
import { batched } from "../../db/tx-batch.ts";
import { messages, type MessageRow } from "../../db/schema/index.ts";

/**
 * A message of this mailbox, locked for the rest of the transaction. The actor already
 * serialises the mailbox's writes; the lock keeps a second node's job (after a lease ran out)
 * from interleaving with this one.
 */
export async function lockOwnMessage(tx: Tx, mailboxId: string, messageId: string): Promise<MessageRow | undefined> {
  const [row] = await tx
    .select()
    .from(messages)
    .where(and(eq(messages.id, messageId), eq(messages.mailboxId, mailboxId)))
    .for("update")
    .limit(1);
  return row;
}

/** A locked message without its texts and headers (tens of KiB a message once processing stored its content). */
export type LockedMessage = Omit<MessageRow, "textBody" | "htmlBody" | "extractedText" | "quotedText" | "headers">;
const { textBody: _t, htmlBody: _h, extractedText: _e, quotedText: _q, headers: _hd, ...LOCKED_COLUMNS } = getTableColumns(messages);

/**
 * Several messages of this mailbox, locked as `lockOwnMessage` locks one, in one statement (in
 * id order, as every batch locks them), read without their texts and headers: processing
 * stores those before its batch is applied (src/mail/content.ts), and the batch needs none.
 */
export async function lockOwnMessages(tx: Tx, mailboxId: string, messageIds: string[]): Promise<Map<string, LockedMessage>> {
  if (messageIds.length === 0) return new Map();
  // In a shared transaction, with the other mailboxes' rows (db/tx-batch.ts): each keeps those of its own mailbox.
  const rows = await batched(
    tx,
    "lock messages",
    [...new Set(messageIds)],
    (db, ids) => LOCK.run(db, [...new Set(ids)], {}),
    (all, ids) => {
      const mine = new Set(ids);
      return all.filter((r) => r.mailboxId === mailboxId && mine.has(r.id));
    },
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** Every processed batch takes its lock with it: built once per batch size (db/compiled.ts). */
const LOCK = new CompiledList<string, Record<string, never>, LockedMessage[]>([], (db, ids) =>
  db.select(LOCKED_COLUMNS).from(messages).where(inArray(messages.id, ids)).orderBy(asc(messages.id)).for("update"),
);
