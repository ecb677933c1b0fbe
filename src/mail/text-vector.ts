/**
 * The text part of a message's full-text vector, made here instead of by PostgreSQL.
 *
 * Migration 0006 indexes a message's text as `setweight(to_tsvector('english', left(text,
 * 200000)), 'C')`. Most of that cost is PostgreSQL's text-search parser walking the text a
 * character at a time (about 2 ms of backend CPU for 8 KiB of prose, against 0.2 ms for the
 * rest of the row), and it runs on the database, the one process every node shares. So for
 * text whose tokens we can name exactly as that parser would, we split it here and ask
 * PostgreSQL only for the lexemes of words it has not been asked about before (a word's
 * lexemes do not depend on its neighbours), then hand it the finished vector.
 *
 * "Exactly" is the point: search runs `websearch_to_tsquery('english', …)` against the vector,
 * so a vector that differs from what PostgreSQL would make is a search that silently misses.
 * Tokens are split only where the parser's rules are plain, checked against PostgreSQL itself
 * (test/text-vector.test.ts): ASCII letters and digits, with spaces and simple punctuation
 * between them, and words joined by hyphens. Anything else (any non-ASCII character, whose
 * class depends on the database's locale; a dot or slash inside a token, which makes hosts,
 * paths, versions and numbers; `@`, `<`, `&`, `_`, `+`, signs) makes `tokenizeText` give up
 * with null, and PostgreSQL indexes that text itself, as before.
 */

/** How much of the text the vector covers (migration 0006's `left(…, 200000)`). */
export const TEXT_VECTOR_LIMIT = 200_000;
/** PostgreSQL's tsvector limits: positions stop at 16383, and a lexeme keeps at most 255 of them. */
const MAX_POSITION = 16_383;
const MAX_POSITIONS = 255;
/** Longer words are skipped by PostgreSQL (with a notice); we leave such texts to it. */
const MAX_WORD = 1_000;

/**
 * The words of a text in the order PostgreSQL's parser numbers them. A word is a run of ASCII
 * letters and digits, or a hyphenated word (letters only in every part), which the parser
 * counts as the whole word and then each part. `starts[i]` lists the positions where `words[i]`
 * (lower-cased) begins; `span[i]` is how many positions it takes.
 */
export interface TextTokens {
  words: string[];
  starts: number[][];
  span: number[];
}

// Character classes, by char code (ASCII only; anything else is unsafe).
const LETTER = 1;
const DIGIT = 2;
const SEPARATOR = 4; // always a blank between tokens
const DOT = 8; // a blank unless a letter or digit follows
const HYPHEN = 16;
const CLASS = new Uint8Array(128);
for (let c = 65; c <= 90; c++) CLASS[c] = LETTER;
for (let c = 97; c <= 122; c++) CLASS[c] = LETTER;
for (let c = 48; c <= 57; c++) CLASS[c] = DIGIT;
for (const ch of " \t\n\r,;:!?()\"'[]{}*=#%$^|`") CLASS[ch.charCodeAt(0)] = SEPARATOR;
CLASS[46] = DOT;
CLASS[45] = HYPHEN;
const ALNUM = LETTER | DIGIT;

const NON_ASCII = /[^\x00-\x7f]/;

/** The text's words as PostgreSQL's default parser would number them, or null where we cannot be sure. */
export function tokenizeText(full: string): TextTokens | null {
  const text = full.length > TEXT_VECTOR_LIMIT ? full.slice(0, TEXT_VECTOR_LIMIT) : full;
  // Any non-ASCII character's class depends on the database's locale. Checked first, so that
  // the lower-cased copy has the same characters at the same offsets.
  if (NON_ASCII.test(text)) return null;
  const lower = text.toLowerCase();
  const index = new Map<string, number>();
  const words: string[] = [];
  const starts: number[][] = [];
  const span: number[] = [];
  let position = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const cls = CLASS[text.charCodeAt(i)]!;
    if (cls & ALNUM) {
      // One word, or a hyphenated word: runs of letters and digits joined by single hyphens.
      let j = i;
      let parts = 0;
      let digits = false;
      for (;;) {
        const from = j;
        let c = 0;
        while (j < n && (c = CLASS[text.charCodeAt(j)]!) & ALNUM) {
          if (c === DIGIT) digits = true;
          j++;
        }
        if (j - from > MAX_WORD) return null;
        parts++;
        if (j + 1 < n && CLASS[text.charCodeAt(j)] === HYPHEN && CLASS[text.charCodeAt(j + 1)]! & ALNUM) {
          j++;
          continue;
        }
        break;
      }
      // Digits in a hyphenated word make numbers, dates and signed integers; a dot followed by
      // a letter or digit makes hosts, files, versions and decimals.
      if (parts > 1 && digits) return null;
      if (j + 1 < n && CLASS[text.charCodeAt(j)] === DOT && CLASS[text.charCodeAt(j + 1)]! & ALNUM) return null;
      const word = lower.slice(i, j);
      let k = index.get(word);
      if (k === undefined) {
        k = words.length;
        index.set(word, k);
        words.push(word);
        starts.push([position + 1]);
        span.push(parts > 1 ? parts + 1 : 1);
      } else starts[k]!.push(position + 1);
      position += span[k]!;
      i = j;
      continue;
    }
    if (cls === SEPARATOR) {
      i++;
      continue;
    }
    if (cls === DOT || cls === HYPHEN) {
      // Before a letter or digit, a dot or hyphen starts a number, a signed integer or a file name.
      if (i + 1 < n && CLASS[text.charCodeAt(i + 1)]! & ALNUM) return null;
      i++;
      continue;
    }
    return null;
  }
  return { words, starts, span };
}

const QUOTED = /['\\]/g;

/** The lexemes PostgreSQL makes of a word alone, each with its positions within the word (1-based). */
export type WordLexemes = ReadonlyArray<readonly [lexeme: string, positions: readonly number[]]>;

/**
 * The `setweight(…, 'C')` tsvector literal of tokenized text, given each word's lexemes.
 * Positions are PostgreSQL's: clamped at 16383, then the first 255 distinct per lexeme.
 */
export function textVectorLiteral(tokens: TextTokens, lexemesOf: (word: string) => WordLexemes): string {
  const positions = new Map<string, number[]>();
  for (let k = 0; k < tokens.words.length; k++) {
    const lexemes = lexemesOf(tokens.words[k]!);
    if (lexemes.length === 0) continue;
    const starts = tokens.starts[k]!;
    for (const [lexeme, local] of lexemes) {
      let list = positions.get(lexeme);
      if (!list) positions.set(lexeme, (list = []));
      for (const start of starts) for (const p of local) list.push(start + p - 1);
    }
  }
  const out: string[] = [];
  for (const [lexeme, list] of positions) {
    if (list.length > 1) list.sort((a, b) => a - b);
    let entry = `'${lexeme.replace(QUOTED, (c) => (c === "'" ? "''" : "\\\\"))}':`;
    let last = 0;
    let kept = 0;
    for (const p of list) {
      const q = p > MAX_POSITION ? MAX_POSITION : p;
      if (q === last) continue;
      entry += kept === 0 ? `${q}C` : `,${q}C`;
      last = q;
      if (++kept === MAX_POSITIONS) break;
    }
    out.push(entry);
  }
  return out.join(" ");
}
