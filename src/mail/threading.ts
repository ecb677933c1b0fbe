import { and, desc, eq, gte, inArray, or, sql, type AnyColumn, type SQL } from "drizzle-orm";
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

/** One arrival of a batch to place: its subject, its hints (all of one batch share `at`), and its own Message-ID. */
export interface ArrivalToPlace {
  subject: string;
  hints: ThreadHints;
  messageIdHeader: string | null;
}

// Message-IDs looked up per statement: two parameters each, well under PostgreSQL's 65,535.
const IDS_PER_LOOKUP = 1000;

/**
 * The threads of a batch of arrivals, decided in order exactly as `placeInThread` would decide
 * them one after another (a reply sees the thread its predecessor in the batch was given, and a
 * thread brought forward by an earlier message is the newest for a later one), but read with
 * at most three statements and written with at most two for the whole batch, however many
 * messages it holds. All hints must share one `at` (the batch's arrival time), which is what
 * lets one update bring every found thread forward. `known` maps Message-IDs decided earlier
 * in the same uncommitted transaction to their threads; it is extended here.
 *
 * `alongside`, given the decided threads, writes what needs them (the messages): it is sent
 * with the update that brings found threads forward, after any new threads are inserted, so
 * the two cost one round trip. Answers the threads, in order, and what `alongside` answered.
 */
export async function placeArrivals<T>(
  tx: Tx,
  mailboxId: string,
  items: ArrivalToPlace[],
  newId: () => string,
  alongside: (threadIds: string[]) => Promise<T>,
  known = new Map<string, string>(),
): Promise<{ threadIds: string[]; written: T }> {
  if (items.length === 0) return { threadIds: [], written: await alongside([]) };
  const at = items[0]!.hints.at;
  const since = at.getTime() - SUBJECT_WINDOW_MS;

  // Threads named by Message-ID: the first row found per ID with a thread, as findThread reads them.
  const byMessageId = new Map<string, string>();
  const ids = [...new Set(items.flatMap((i) => i.hints.messageIds.slice(0, 100)))];
  for (let k = 0; k < ids.length; k += IDS_PER_LOOKUP) {
    const chunk = ids.slice(k, k + IDS_PER_LOOKUP);
    const rows = await tx
      .select({ threadId: messages.threadId, messageIdHeader: messages.messageIdHeader })
      .from(messages)
      .where(and(eq(messages.mailboxId, mailboxId), inArray(md5(messages.messageIdHeader), chunk.map(md5Of)), inArray(messages.messageIdHeader, chunk)));
    for (const r of rows) if (r.threadId && r.messageIdHeader !== null && !byMessageId.has(r.messageIdHeader)) byMessageId.set(r.messageIdHeader, r.threadId);
  }
  // Reply-token threads that exist in this mailbox.
  const tokens = [...new Set(items.map((i) => i.hints.tokenThreadId).filter((t): t is string => t !== null))];
  const tokenThreads = new Set<string>();
  if (tokens.length > 0) {
    const rows = await tx
      .select({ id: threads.id })
      .from(threads)
      .where(and(inArray(threads.id, tokens), eq(threads.mailboxId, mailboxId)));
    for (const r of rows) tokenThreads.add(r.id);
  }
  // Subject candidates: in the window, or brought forward by an earlier message of the batch
  // (which puts them in the window); the exact keys are compared here, after the md5 index.
  const keyed = items.filter((i) => i.hints.subjectKey && i.hints.participantsKey);
  const keyOf = (subjectKey: string, participantsKey: string) => `${subjectKey}\n${participantsKey}`;
  const candidates = new Map<string, { id: string; last: number }[]>();
  if (keyed.length > 0) {
    const subjectKeys = [...new Set(keyed.map((i) => i.hints.subjectKey))];
    const partyKeys = [...new Set(keyed.map((i) => i.hints.participantsKey))];
    const wanted = new Set(keyed.map((i) => keyOf(i.hints.subjectKey, i.hints.participantsKey)));
    const maybeTouched = [...new Set([...byMessageId.values(), ...known.values(), ...tokenThreads])];
    const inWindow = gte(threads.lastMessageAt, new Date(since));
    const rows = await tx
      .select({ id: threads.id, subjectKey: threads.subjectKey, participantsKey: threads.participantsKey, lastMessageAt: threads.lastMessageAt })
      .from(threads)
      .where(
        and(
          eq(threads.mailboxId, mailboxId),
          inArray(md5(threads.subjectKey), subjectKeys.map(md5Of)),
          inArray(md5(threads.participantsKey), partyKeys.map(md5Of)),
          maybeTouched.length > 0 ? or(inWindow, inArray(threads.id, maybeTouched)) : inWindow,
        ),
      );
    for (const r of rows) {
      const key = keyOf(r.subjectKey, r.participantsKey);
      if (!wanted.has(key)) continue;
      candidates.set(key, [...(candidates.get(key) ?? []), { id: r.id, last: r.lastMessageAt.getTime() }]);
    }
  }

  const created: (typeof threads.$inferInsert)[] = [];
  const createdIds = new Set<string>();
  const touched = new Set<string>();
  const out: string[] = [];
  for (const item of items) {
    const { hints } = item;
    let found: string | null = null;
    for (const id of hints.messageIds.slice(0, 100)) {
      found = known.get(id) ?? byMessageId.get(id) ?? null;
      if (found) break;
    }
    if (!found && hints.tokenThreadId && tokenThreads.has(hints.tokenThreadId)) found = hints.tokenThreadId;
    if (!found && hints.subjectKey && hints.participantsKey) {
      // The newest matching thread, counting what earlier messages of the batch brought forward.
      let best: { id: string; last: number } | null = null;
      for (const c of candidates.get(keyOf(hints.subjectKey, hints.participantsKey)) ?? []) {
        const last = touched.has(c.id) || createdIds.has(c.id) ? Math.max(c.last, at.getTime()) : c.last;
        if (last >= since && (best === null || last > best.last)) best = { id: c.id, last };
      }
      found = best?.id ?? null;
    }
    let threadId: string;
    if (found) {
      if (!createdIds.has(found)) touched.add(found);
      threadId = found;
    } else {
      threadId = newId();
      createdIds.add(threadId);
      created.push({ id: threadId, mailboxId, subject: item.subject.slice(0, MAX_THREAD_SUBJECT), subjectKey: hints.subjectKey, participantsKey: hints.participantsKey, lastMessageAt: at, createdAt: at });
      if (hints.subjectKey && hints.participantsKey) {
        const key = keyOf(hints.subjectKey, hints.participantsKey);
        candidates.set(key, [...(candidates.get(key) ?? []), { id: threadId, last: at.getTime() }]);
      }
    }
    if (item.messageIdHeader && !known.has(item.messageIdHeader)) known.set(item.messageIdHeader, threadId);
    out.push(threadId);
  }
  // New threads first: what `alongside` writes may name them. The update of found threads does
  // not touch what `alongside` writes, so the two go together.
  if (created.length > 0) await tx.insert(threads).values(created);
  const [, written] = await Promise.all([
    touched.size > 0
      ? tx
          .update(threads)
          .set({ lastMessageAt: sql`greatest(${threads.lastMessageAt}, ${at.toISOString()}::timestamptz)`, status: "open" })
          .where(inArray(threads.id, [...touched]))
      : Promise.resolve(),
    alongside(out),
  ]);
  return { threadIds: out, written };
}
