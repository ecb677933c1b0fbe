import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { Compiled, slot, slotsOf } from "../../db/compiled.ts";
import { messages } from "../../db/schema/index.ts";
import type { Disposition } from "../../db/schema/knowledge.ts";
import { isNumber, type LearnedWord, type TextVectorPieces } from "./text-vector-pieces.ts";
import type { ProcessedMail } from "./types.ts";

/** What processing knows of a message before its assessment: the content half of it, and the rest. */
export type ParsedResult = Omit<ProcessedMail, "assessment">;

/**
 * The content half of a processed message: what its parse says it is (sender, subject, cc,
 * texts, headers, attachment names). These are the columns the full-text vector (migrations
 * 0006 and 0018) is made from, and computing that vector is most of what storing a processed
 * message costs the database (~3 ms for 20 KiB of text, against ~0.2 ms for the rest of the
 * row). So `mail.process` writes them here, on a pool connection of its own, before it hands
 * the result to the mailbox's actor; the actor's update then sets only what it decides
 * (thread, status, verdict, processed_at), and PostgreSQL does not compute the vector again
 * for columns that update leaves alone. The text part of the vector is made by the service
 * in pieces where it can be (src/mail/text-vector-pieces.ts) when SEARCH_VECTOR says so, else by the row's
 * trigger. The actor's transaction, and the arrivals queued behind it, no longer wait for
 * text indexing, and the messages of one mailbox are indexed on
 * as many connections as there are jobs running.
 *
 * Why this write needs neither the actor nor its lease fence: every value is a function of the
 * message's raw bytes, which never change, so any node that writes it (a job run twice, a node
 * that lost its lease) writes what the owner would. It decides nothing the owner decides, and
 * a message already processed is left alone (`processed_at is null`).
 *
 * The same statement reads the disposition the message's account gives `sender` (neutral when
 * none), which the final rules need: one round trip for both, per message. Undefined when
 * nothing was written (the message is processed already, or gone); the caller reads it apart.
 * `vector`, when given, carries the text part of the full-text vector in pieces (made in the
 * parser's worker: text-vector-pieces.ts; none where the trigger must make it) with the words
 * to learn, and takes their lexemes as the statement answers them. Without it (SEARCH_VECTOR=database)
 * the row's trigger makes the text part from the whole text.
 */
export async function storeContent(
  db: Db,
  messageId: string,
  mail: ParsedResult,
  sender: string,
  vector?: { pieces: TextVectorPieces | null; learned: (words: LearnedWord[]) => void },
): Promise<Disposition | undefined> {
  const pieces = vector?.pieces ?? null;
  // Numbers are not learned: a word of digits per order number would crowd the lexicon.
  const learn = pieces ? pieces.missing.filter((w) => !isNumber(w)).join(" ") : "";
  const values = { ...contentColumns(mail), id: messageId, vector: pieces?.json ? `${messageId} ${pieces.json}` : "", learn };
  const [row] = sender ? await STORE_WITH_SENDER.run(db, { ...values, sender: sender.toLowerCase() }) : await STORE.run(db, values);
  if (vector && row?.learned) vector.learned(row.learned.map(([word, lexemes]) => [word, lexemes ?? []] as const));
  return row?.disposition;
}

/** The content columns, in the order `contentColumns` gives them. */
const CONTENT = ["fromAddress", "subject", "cc", "textBody", "htmlBody", "extractedText", "quotedText", "headers", "attachmentNames"] as const;
type ContentValues = ReturnType<typeof contentColumns> & { id: string; vector: string; learn: string };
type Stored = { disposition: Disposition; learned: [string, [string, number[]][] | null][] | null };

/**
 * The lexemes of the words the statement's vector made here for the first time (space-separated
 * in `learn`; empty for none), answered so that the parser threads learn them (LexiconFeed).
 */
const LEARNED = sql<Stored["learned"]>`(select json_agg(json_build_array(w, (select json_agg(json_build_array(t.lexeme, t.positions)) from unnest(to_tsvector('english', w)) t))) from unnest(string_to_array(nullif(${slot<string>("learn")}, ''), ' ')) w)`;

/**
 * The statement, built once (db/compiled.ts), with the disposition of a sender or of none.
 * The sender's disposition is what dispositionFor reads, on the account of the row updated
 * (written out, as drizzle leaves column names unqualified in a RETURNING clause).
 */
const storeStatement = (disposition: SQL<Disposition>) => (db: Db) =>
  db
    .update(messages)
    .set(slotsOf(CONTENT))
    .where(and(eq(messages.id, slot<string>("id")), isNull(messages.processedAt), ASYNC_COMMIT, TEXT_VECTOR))
    .returning({ disposition, learned: LEARNED });
const STORE_WITH_SENDER = new Compiled<ContentValues & { sender: string }, Stored[]>(
  storeStatement(
    sql<Disposition>`coalesce((select sp.disposition from sender_profiles sp join mailboxes mb on mb.account_id = sp.account_id where mb.id = "messages"."mailbox_id" and sp.address = ${slot<string>("sender")} limit 1), 'neutral')`,
  ),
);
const STORE = new Compiled<ContentValues, Stored[]>(storeStatement(sql<Disposition>`'neutral'`));

/**
 * This statement's commit does not wait for its WAL to reach the disk: the actor's commit that
 * follows it (the one that marks the message processed and its job done) is synchronous, and
 * flushing the WAL up to that commit flushes this write, which precedes it, too. Lost in a
 * crash before then, the job is not done, runs again and writes the same. In the WHERE clause
 * so that it costs no round trip; `true` makes it last only for this statement's transaction.
 */
const ASYNC_COMMIT = sql`set_config('synchronous_commit', 'off', true) is not null`;

/**
 * The text part of the message's full-text vector in pieces (src/mail/text-vector-pieces.ts),
 * handed to the row's trigger (migrations 0018 and 0020) as "<message id> <pieces>"; empty
 * where PostgreSQL makes it itself. Transaction-local, and the trigger takes it only for the
 * row of that id, so it cannot reach another row.
 */
const TEXT_VECTOR = sql`set_config('mailroom.text_vector', ${slot<string>("vector")}, true) is not null`;

/** The content columns of a processed message (see storeContent). */
export function contentColumns(mail: ParsedResult) {
  return {
    fromAddress: mail.fromAddress,
    subject: mail.subject ?? "",
    cc: mail.ccAddresses,
    textBody: mail.textBody,
    htmlBody: mail.htmlBody,
    extractedText: mail.extractedText,
    quotedText: mail.quotedText ?? null,
    headers: mail.headers,
    attachmentNames: mail.attachments
      .map((a) => a.filename ?? "")
      .filter(Boolean)
      .join(" "),
  } satisfies Columns<(typeof CONTENT)[number]>;
}

/** Exactly the columns named (a key more or less is an error), each of its column's type. */
export type Columns<K extends keyof typeof messages.$inferInsert> = { [P in K]: (typeof messages.$inferInsert)[P] };
