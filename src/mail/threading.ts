import { and, desc, eq, gte, inArray, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { messages, threads } from "../../db/schema/index.ts";

/** How long a thread stays open to a reply matched only by subject and participants. */
export const SUBJECT_WINDOW_MS = 14 * 86_400_000;

/** Longest subject a thread keeps (RFC 5322's line limit); the match key is read from it. */
export const MAX_THREAD_SUBJECT = 998;

/** Longest participants key kept as text; a longer one is kept as its digest. */
const MAX_PARTICIPANTS_KEY = 1000;

// "Re:", "RE :", "Fwd:", "FW:", "AW:", "WG:", "SV:", "VS:", "Antw:", "Réf:", "[list] " and "Re[2]:" stacks.
const PREFIX = /^\s*(?:(?:re|fw|fwd|aw|wg|sv|vs|antw|ref|réf|tr|rif|enc)\s*(?:\[\d+\])?\s*:|\[[^\]]{1,40}\])\s*/i;

/** The subject match key; bounded (prefixes are removed first, so "Re: x" and "x" still match). */
export function normalizeSubject(subject: string): string {
  let s = subject;
  for (let i = 0; i < 20; i++) {
    const next = s.replace(PREFIX, "");
    if (next === s) break;
    s = next;
  }
  return s.slice(0, MAX_THREAD_SUBJECT).replace(/\s+/g, " ").trim().toLowerCase();
}

/**
 * The other parties of a conversation, order-free: the key a subject match also needs.
 * Bounded: a key past MAX_PARTICIPANTS_KEY characters (a mail to hundreds of Cc) is kept as
 * the SHA-256 of the full key, which still compares equal exactly when the parties do.
 */
export function participantsKey(addresses: string[], own: string): string {
  const set = new Set(addresses.map((a) => a.toLowerCase()).filter((a) => a && a !== own));
  const key = [...set].sort().join(" ");
  return key.length <= MAX_PARTICIPANTS_KEY ? key : `sha256:${new Bun.CryptoHasher("sha256").update(key).digest("hex")}`;
}

/*
 * Text the sender controls is indexed by its md5, never raw: a btree entry must fit in a
 * third of a page (~2.7 kB), and a long Message-ID or subject would otherwise fail the
 * insert. The expressions here must match the indexes in db/schema/messages.ts.
 */
const md5 = (column: AnyColumn): SQL => sql`md5(${column})`;
const md5Of = (value: string): SQL => sql`md5(${value}::text)`;

export interface ThreadHints {
  /** In-Reply-To first, then References newest first. */
  messageIds: string[];
  tokenThreadId: string | null;
  subjectKey: string;
  participantsKey: string;
  at: Date;
}

/**
 * Finds the thread a message belongs to: by its references, then its reply token, then subject.
 * `known` holds the Message-IDs of messages decided earlier in the same uncommitted batch.
 */
export async function findThread(tx: Tx, mailboxId: string, hints: ThreadHints, known?: ReadonlyMap<string, string>): Promise<string | null> {
  const ids = hints.messageIds.slice(0, 100);
  if (ids.length > 0) {
    const rows = await tx
      .select({ threadId: messages.threadId, messageIdHeader: messages.messageIdHeader })
      .from(messages)
      .where(and(eq(messages.mailboxId, mailboxId), inArray(md5(messages.messageIdHeader), ids.map(md5Of)), inArray(messages.messageIdHeader, ids)));
    for (const id of ids) {
      const hit = known?.get(id) ?? rows.find((r) => r.messageIdHeader === id && r.threadId)?.threadId;
      if (hit) return hit;
    }
  }
  if (hints.tokenThreadId) {
    const [row] = await tx
      .select({ id: threads.id })
      .from(threads)
      .where(and(eq(threads.id, hints.tokenThreadId), eq(threads.mailboxId, mailboxId)))
      .limit(1);
    if (row) return row.id;
  }
  if (hints.subjectKey && hints.participantsKey) {
    const [row] = await tx
      .select({ id: threads.id })
      .from(threads)
      .where(
        and(
          eq(threads.mailboxId, mailboxId),
          eq(md5(threads.subjectKey), md5Of(hints.subjectKey)),
          eq(md5(threads.participantsKey), md5Of(hints.participantsKey)),
          eq(threads.subjectKey, hints.subjectKey),
          eq(threads.participantsKey, hints.participantsKey),
          gte(threads.lastMessageAt, new Date(hints.at.getTime() - SUBJECT_WINDOW_MS)),
        ),
      )
      .orderBy(desc(threads.lastMessageAt))
      .limit(1);
    if (row) return row.id;
  }
  return null;
}

/**
 * The thread of a new message: the one `findThread` names, brought forward and reopened (new
 * mail in an archived conversation brings it back, as in any mail client), or a new one.
 */
export async function placeInThread(
  tx: Tx,
  mailboxId: string,
  input: { subject: string; hints: ThreadHints; newId: () => string },
  known?: ReadonlyMap<string, string>,
): Promise<string> {
  const { hints } = input;
  const found = await findThread(tx, mailboxId, hints, known);
  if (found) {
    await tx
      .update(threads)
      .set({ lastMessageAt: sql`greatest(${threads.lastMessageAt}, ${hints.at.toISOString()}::timestamptz)`, status: "open" })
      .where(eq(threads.id, found));
    return found;
  }
  const id = input.newId();
  await tx.insert(threads).values({
    id,
    mailboxId,
    subject: input.subject.slice(0, MAX_THREAD_SUBJECT),
    subjectKey: hints.subjectKey,
    participantsKey: hints.participantsKey,
    lastMessageAt: hints.at,
    createdAt: hints.at,
  });
  return id;
}
