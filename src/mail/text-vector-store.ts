import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import { type Lexemes, type SegmentVector, type TextTokens, textVectorLiteral, tokenizeText } from "./text-vector.ts";

/** Who makes the text part of a message's full-text vector (config SEARCH_VECTOR, README "Search"). */
export type TextVectorBy = "service" | "database";

/**
 * Words' lexemes as this database's `english` configuration makes them, asked for once per
 * word. A word's lexemes depend only on the word, so they are kept; the set of words mail uses
 * is small next to the words it contains (8 KiB of prose is ~1,400 words, ~450 distinct). The
 * cache forgets everything when full rather than tracking use: refilling costs one statement.
 * Its bound keeps a flood of made-up words to a few MiB; asking for them costs PostgreSQL
 * about what parsing the whole text did (30,000 new words: 60 ms, against 37-80 ms).
 */
const CACHE_LIMIT = 50_000;
const caches = new WeakMap<Db, Map<string, Lexemes>>();

/** At most this many words per statement, so a hostile text's new words cost bounded statements. */
const WORDS_PER_STATEMENT = 5_000;

/**
 * The `setweight(to_tsvector('english', …), 'C')` literal of `text`, or null where only
 * PostgreSQL can make it (see tokenizeText); the message trigger of migration 0018 computes
 * it then, as it would have anyway. One statement when the text has new words or segments
 * only PostgreSQL can split, none otherwise. `split` is tokenizeText(text) when the caller has
 * it already (the parser's worker makes it).
 */
export async function textVectorOf(db: Db, text: string, split?: TextTokens | null): Promise<string | null> {
  const tokens = split === undefined ? tokenizeText(text) : split;
  // A segment with the end marker's word in it is left to PostgreSQL: the marker must be its last.
  if (!tokens || tokens.segments.some((segment) => segment.toLowerCase().includes(END))) return null;
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  // This text's lexemes, taken from the cache before any await: another text's look-up may
  // clear the cache while this one waits for its own.
  const lexemes: Lexemes[] = new Array(tokens.words.length);
  const missing: number[] = [];
  for (let k = 0; k < tokens.words.length; k++) {
    const known = cache.get(tokens.words[k]!);
    if (known) lexemes[k] = known;
    else missing.push(k);
  }
  // A number is its own lexeme (below): made here, and not kept, so that the order numbers and
  // amounts every message brings neither cost a look-up nor crowd the cache.
  if (missing.length > 0 && numbersRule(db).plain === true) {
    let kept = 0;
    for (const k of missing) {
      const word = tokens.words[k]!;
      if (isNumber(word)) lexemes[k] = [[word, ONE]];
      else missing[kept++] = k;
    }
    missing.length = kept;
  }
  if (cache.size + missing.length > CACHE_LIMIT) cache.clear();
  let segments: SegmentVector[] = [];
  if (missing.length > 0 || tokens.segments.length > 0) {
    // The segments go with the first statement; further ones only when a text has many new words.
    for (let i = 0; i === 0 || i < missing.length; i += WORDS_PER_STATEMENT) {
      const asked = missing.slice(i, i + WORDS_PER_STATEMENT);
      const answer = await lookUp(db, asked.map((k) => tokens.words[k]!), i === 0 ? tokens.segments : []);
      if (!answer) return null;
      for (const k of asked) {
        const made = answer.words.get(tokens.words[k]!) ?? NONE;
        lexemes[k] = made;
        cache.set(tokens.words[k]!, made);
      }
      if (i === 0) segments = answer.segments;
    }
  }
  return textVectorLiteral(tokens, lexemes, segments);
}

const NONE: Lexemes = [];
const ONE: readonly number[] = [1];

/** A word of digits only (tokenizeText's words are letters only, digits only, or hyphenated letters). */
const isNumber = (word: string): boolean => word.charCodeAt(0) >= 48 && word.charCodeAt(0) <= 57;

/**
 * Whether this database's `english` configuration reads a word of digits as the stock one
 * does: a `uint` token, through the `simple` dictionary, whose lexeme is the word itself. Read
 * once per database by a probe. Until it has answered (and for good if it says otherwise, or
 * for now if it fails), numbers are looked up like any other word, so a changed configuration
 * is honoured and no text waits for the probe.
 */
export interface NumbersRule {
  /** The probe's answer; undefined until it has answered. */
  plain: boolean | undefined;
  answered: Promise<boolean>;
}
const numbersRules = new WeakMap<Db, NumbersRule>();

/** The rule of `db`, probed on first use (again after a failed probe). */
export function numbersRule(db: Db): NumbersRule {
  let rule = numbersRules.get(db);
  if (rule === undefined) {
    const made: NumbersRule = { plain: undefined, answered: probeNumbers(db) };
    made.answered.then(
      (plain) => (made.plain = plain),
      () => numbersRules.delete(db),
    );
    numbersRules.set(db, (rule = made));
  }
  return rule;
}

/** Numbers of several shapes (a zero, leading zeros, more digits than any integer type holds), each its own lexeme at its own position. */
const PROBE = ["0", "007", "12345678901234567890123456789", "2024"];
async function probeNumbers(db: Db): Promise<boolean> {
  const rows = rowsOf<{ lexeme: string; positions: string }>(
    await db.execute(sql`select lexeme, array_to_string(positions, ',') as positions from unnest(to_tsvector('english', ${PROBE.join(" ")}::text))`),
  );
  return rows.length === PROBE.length && PROBE.every((word, i) => rows.some((r) => r.lexeme === word && r.positions === String(i + 1)));
}

type Row = { kind: "w" | "s"; key: string; lexeme: string | null; positions: string | null };

/**
 * Ends every segment: its position, less one, is how many positions the segment took
 * (PostgreSQL counts stop words, which leave no lexeme, so the lexemes alone cannot tell).
 * A word no dictionary changes; were it in a segment's own text, only its last position is the
 * marker's.
 */
const END = "mailroomend";

/**
 * Each word's lexemes and their positions within it (a hyphenated word makes several); each
 * segment's lexemes and how many positions it takes. Null when the marker did not come back as
 * itself (a changed `english` configuration): the text is then left to PostgreSQL.
 */
async function lookUp(db: Db, words: string[], segments: string[]): Promise<{ words: Map<string, Lexemes>; segments: SegmentVector[] } | null> {
  // Words are letters, digits and hyphens: a space separates them safely in one parameter.
  const rows = rowsOf<Row>(
    await db.execute(sql`
      select 'w' as kind, w.word as key, t.lexeme, array_to_string(t.positions, ',') as positions
      from unnest(string_to_array(${words.join(" ")}::text, ' ')) as w(word)
      left join lateral unnest(to_tsvector('english', w.word)) as t on true
      union all
      select 's', s.ord::text, t.lexeme, array_to_string(t.positions, ',')
      from jsonb_array_elements_text(${JSON.stringify(segments)}::text::jsonb) with ordinality as s(seg, ord)
      cross join lateral unnest(to_tsvector('english', s.seg || ${` ${END}`}::text)) as t`),
  );
  const found = new Map<string, Array<readonly [string, number[]]>>();
  for (const word of words) found.set(word, []);
  const vectors: Array<{ lexemes: Array<readonly [string, number[]]>; count: number }> = segments.map(() => ({ lexemes: [], count: -1 }));
  for (const row of rows) {
    if (row.lexeme === null || row.positions === null) continue;
    const positions = row.positions.split(",").map(Number);
    if (row.kind === "w") {
      found.get(row.key)?.push([row.lexeme, positions]);
      continue;
    }
    const vector = vectors[Number(row.key) - 1]!;
    if (row.lexeme === END) {
      vector.count = positions.pop()! - 1;
      if (positions.length === 0) continue;
    }
    vector.lexemes.push([row.lexeme, positions]);
  }
  if (vectors.some((v) => v.count < 0)) return null;
  return { words: found, segments: vectors };
}
