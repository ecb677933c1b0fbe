import { sql, type SQL } from "drizzle-orm";
import { messages, threads } from "../../db/schema/index.ts";
import { likeSubstring } from "../domain/like.ts";

/**
 * The generated tsvector columns of migration 0006 (not mapped in db/schema, so that row
 * reads never carry them). One text search configuration everywhere: a query must be
 * normalised the way the documents were.
 */
export const SEARCH_CONFIG = sql.raw(`'english'::regconfig`);
export const messageVector = sql`"messages"."search_tsv"`;
export const threadSubjectVector = sql`"threads"."subject_tsv"`;

/** Letters and digits runs: what a subject filter can match as words. */
const WORD = /[\p{L}\p{N}]+/gu;
const MAX_WORDS = 16;

/**
 * `'invoice':* & 'overdu':*` for "Invoice overdu": every word of the text as a prefix, so a
 * list filter still finds "invoices" from "invoice" and "overdue" from "overdu", as a
 * substring filter did, but through the GIN index. `weight` restricts matches to the subject's
 * part of a message vector. Null when the text has no words (only punctuation).
 */
function prefixQuery(text: string, weight: "A" | ""): string | null {
  const words = (text.match(WORD) ?? []).slice(0, MAX_WORDS);
  if (words.length === 0) return null;
  // Words are letters and digits only, so quoting them needs no escaping.
  return words.map((w) => `'${w.toLowerCase()}':*${weight}`).join(" & ");
}

/** The `query` filter of the message list: the subject's words, by prefix. */
export function messageSubjectFilter(text: string): SQL {
  const q = prefixQuery(text, "A");
  // Only punctuation ("%", "[x]") has no words to index: those few compare as a substring.
  if (!q) return sql`${messages.subject} ilike ${likeSubstring(text)}`;
  return sql`${messageVector} @@ to_tsquery(${SEARCH_CONFIG}, ${q})`;
}

/** The `query` filter of the thread list. */
export function threadSubjectFilter(text: string): SQL {
  const q = prefixQuery(text, "");
  if (!q) return sql`${threads.subject} ilike ${likeSubstring(text)}`;
  return sql`${threadSubjectVector} @@ to_tsquery(${SEARCH_CONFIG}, ${q})`;
}
