import { and, desc, eq, gte, inArray } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { messages, threads } from "../../db/schema/index.ts";

/** How long a thread stays open to a reply matched only by subject and participants. */
export const SUBJECT_WINDOW_MS = 14 * 86_400_000;

// "Re:", "RE :", "Fwd:", "FW:", "AW:", "WG:", "SV:", "VS:", "Antw:", "Réf:", "[list] " and "Re[2]:" stacks.
const PREFIX = /^\s*(?:(?:re|fw|fwd|aw|wg|sv|vs|antw|ref|réf|tr|rif|enc)\s*(?:\[\d+\])?\s*:|\[[^\]]{1,40}\])\s*/i;

export function normalizeSubject(subject: string): string {
  let s = subject;
  for (let i = 0; i < 20; i++) {
    const next = s.replace(PREFIX, "");
    if (next === s) break;
    s = next;
  }
  return s.replace(/\s+/g, " ").trim().toLowerCase();
}

/** The other parties of a conversation, order-free: the key a subject match also needs. */
export function participantsKey(addresses: string[], own: string): string {
  const set = new Set(addresses.map((a) => a.toLowerCase()).filter((a) => a && a !== own));
  return [...set].sort().join(" ");
}

export interface ThreadHints {
  /** In-Reply-To first, then References newest first. */
  messageIds: string[];
  tokenThreadId: string | null;
  subjectKey: string;
  participantsKey: string;
  at: Date;
}

/** Finds the thread a message belongs to: by its references, then its reply token, then subject. */
export async function findThread(tx: Tx, mailboxId: string, hints: ThreadHints): Promise<string | null> {
  const ids = hints.messageIds.slice(0, 100);
  if (ids.length > 0) {
    const rows = await tx
      .select({ threadId: messages.threadId, messageIdHeader: messages.messageIdHeader })
      .from(messages)
      .where(and(eq(messages.mailboxId, mailboxId), inArray(messages.messageIdHeader, ids)));
    for (const id of ids) {
      const hit = rows.find((r) => r.messageIdHeader === id && r.threadId);
      if (hit) return hit.threadId;
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
