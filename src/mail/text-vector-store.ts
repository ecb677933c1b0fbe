import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import { textVectorLiteral, tokenizeText, type WordLexemes } from "./text-vector.ts";

/**
 * Words' lexemes as this database's `english` configuration makes them, asked for once per
 * word. A word's lexemes depend only on the word, so they are kept; the set of words mail uses
 * is small next to the words it contains (8 KiB of prose is ~1,400 words, ~450 distinct). The
 * cache forgets everything when full rather than tracking use: refilling costs one statement.
 */
const CACHE_LIMIT = 200_000;
const caches = new WeakMap<Db, Map<string, WordLexemes>>();

/** At most this many words per statement, so a hostile text's new words cost bounded statements. */
const WORDS_PER_STATEMENT = 5_000;

/**
 * The `setweight(to_tsvector('english', …), 'C')` literal of `text`, or null where only
 * PostgreSQL can make it (see tokenizeText); the message trigger of migration 0018 computes
 * it then, as it would have anyway.
 */
export async function textVectorOf(db: Db, text: string): Promise<string | null> {
  const tokens = tokenizeText(text);
  if (!tokens) return null;
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  const missing = tokens.words.filter((w) => !cache.has(w));
  if (missing.length) {
    if (cache.size + missing.length > CACHE_LIMIT) cache.clear();
    for (let i = 0; i < missing.length; i += WORDS_PER_STATEMENT) await lookUp(db, missing.slice(i, i + WORDS_PER_STATEMENT), cache);
  }
  return textVectorLiteral(tokens, (w) => cache.get(w) ?? NONE);
}

const NONE: WordLexemes = [];

/** Each word's lexemes and their positions within it (a hyphenated word makes several). */
async function lookUp(db: Db, words: string[], cache: Map<string, WordLexemes>): Promise<void> {
  // Words are letters, digits and hyphens: a space separates them safely in one parameter.
  const rows = rowsOf<{ word: string; lexeme: string | null; positions: string | null }>(
    await db.execute(sql`
      select w.word, t.lexeme, array_to_string(t.positions, ',') as positions
      from unnest(string_to_array(${words.join(" ")}::text, ' ')) as w(word)
      left join lateral unnest(to_tsvector('english', w.word)) as t on true`),
  );
  const found = new Map<string, Array<readonly [string, number[]]>>();
  for (const word of words) found.set(word, []);
  for (const row of rows) {
    if (row.lexeme === null || row.positions === null) continue;
    found.get(row.word)?.push([row.lexeme, row.positions.split(",").map(Number)]);
  }
  for (const [word, lexemes] of found) cache.set(word, lexemes);
}
