/**
 * The text part of a message's full-text vector in pieces that PostgreSQL joins in the very
 * statement that stores the message (migrations 0020 and 0021, `mailroom_text_vector`), so that making it
 * costs no statement of its own and no round trip.
 *
 * The text is split as PostgreSQL's parser would split it (tokenizeText, in the parser's
 * worker). The words between two segments (the pieces only PostgreSQL splits: hosts, URLs,
 * addresses, dates, non-ASCII words) make one *part*, written here as a tsvector literal whose
 * positions count from the start of the part, from the lexemes this thread knows (`Lexicon`).
 * Each segment is parsed by PostgreSQL where the statement runs, and `tsvector || tsvector`
 * joins them in order: it moves every position of its right side past the largest position
 * of its left side. So each piece must end on the position it took last: a part (and a
 * segment, in the function) carries the marker lexeme `mailroomend` at its last position,
 * however many stop words, which leave no lexeme, close it. The function deletes the marker
 * once the pieces are joined, and gives the whole weight C (the literals spell no weight: on
 * every position it was a seventh of what the database parsed). Words this thread does not know yet go to the function with
 * their positions, which makes their lexemes there (`to_tsvector` of the word alone: a word's
 * lexemes do not depend on its neighbours); the statement also answers them, so that the
 * lexicon learns them (see LexiconFeed).
 *
 * The result must be the vector PostgreSQL makes of the whole text, not a similar one: search
 * compares `websearch_to_tsquery('english', …)` with it. Where joining could differ from what
 * `to_tsvector` does (near its limits of 16,383 positions and 255 positions a lexeme, which
 * `||` keeps differently) or the marker could meet a real word, the row's trigger makes the text
 * part itself, as it does with SEARCH_VECTOR=database: there are no pieces, or (for a lexeme
 * that may reach 255 positions) the function checks the joined vector and declines.
 */
import type { Lexemes, TextTokens } from "./text-vector.ts";

/** What the statement gets: parts' literals, the segments between them, and words to make there. */
export interface TextVectorPieces {
  /**
   * JSON of {p: part literals (one more than segments), s: segments, m: [word, part,
   * "positions"][], c: 1 to check the limit of a lexeme's positions}; null where the trigger
   * makes the text part itself.
   */
  json: string | null;
  /** Words not known yet, to be learned from the statement's answer (at most LEARN_BUDGET). */
  missing: string[];
}

/** A word's lexemes as this thread knows them; undefined for a word not known yet. */
export type Lexicon = { get(word: string): Lexemes | undefined };

/** The marker lexeme; a text whose segments, unknown words or lexemes hold it is left to the trigger. */
export const PIECE_END = "mailroomend";

/**
 * Joining stays exact below these: `||` clamps positions at 16,383 as `to_tsvector` does but
 * keeps 256 positions of a lexeme where `to_tsvector` keeps 255, and stops adding to a lexeme
 * whose last position is the clamp.
 */
const POSITION_BUDGET = 16_000;
const LEXEME_BUDGET = 250;
/**
 * What the function may be given, so that it never costs the database more than parsing the
 * text would, whatever the text (measured on PostgreSQL: each word it makes alone costs about
 * 7 µs, and each segment about 35 µs, a loop of statements that also copies the vector joined so
 * far; 256 segments took 9.3 ms where `to_tsvector` took 1.2 ms). Beyond either, the trigger
 * parses the whole text. Mail has few of both once a thread has learned its words: the fixtures
 * have 2 segments at the median and 15 at most.
 */
const MISSING_BUDGET = 64;
const SEGMENT_BUDGET = 16;
/**
 * At most this many words are learned from one text (each costs the statement's answer about
 * 4 µs): a thread that has just started learns ordinary prose (~450 distinct words per 8 KiB)
 * over a few messages, and a flood of made-up words costs a bounded answer.
 */
const LEARN_BUDGET = 256;

/**
 * The pieces of `tokens` (their `json` null where the trigger must make the text part itself),
 * and the words to learn. `numbersPlain`: the database reads a word of digits as its own lexeme
 * (text-vector-rules.ts numbersRule), so numbers are made here and never sent to be made.
 */
export function textVectorPieces(tokens: TextTokens, lexicon: Lexicon, numbersPlain: boolean): TextVectorPieces {
  const segments = tokens.segments;
  // The words not known yet, the first of them to be learned whether or not there are pieces.
  const unknown: string[] = [];
  // Each word's lexemes, looked up once (a word is a fresh string per text: the look-up hashes it).
  const lexemesOf: (Lexemes | undefined)[] = new Array(tokens.words.length);
  for (let k = 0; k < tokens.words.length; k++) {
    const word = tokens.words[k]!;
    const known = lexicon.get(word) ?? (numbersPlain && isNumber(word) ? numberLexemes(word) : undefined);
    lexemesOf[k] = known;
    if (known === undefined) unknown.push(word);
  }
  const toTrigger: TextVectorPieces = { json: null, missing: unknown.length > LEARN_BUDGET ? unknown.slice(0, LEARN_BUDGET) : unknown };
  if (unknown.length > MISSING_BUDGET || segments.length > SEGMENT_BUDGET) return toTrigger;
  // The marker must be nothing but the marker: in a segment it would end it early, as a word's
  // lexeme it would be deleted with the marker.
  for (const s of segments) if (s.toLowerCase().includes(PIECE_END)) return toTrigger;
  const after = tokens.after;
  // What the segments can take at most: no more positions than twice their characters (a
  // hyphenated word or a URL makes a token of the whole and one of each part).
  let segmentBound = 0;
  for (const s of segments) segmentBound += 2 * s.length + 2;
  // Every word's occurrences are at starts[first[k]] … starts[first[k + 1] - 1], ascending.
  let total = 0;
  for (let k = 0; k < tokens.words.length; k++) {
    const last = tokens.starts[tokens.first[k + 1]! - 1];
    if (last !== undefined) total = Math.max(total, last + tokens.span[k]! - 1);
  }
  if (total + segmentBound > POSITION_BUDGET) return toTrigger;

  const partCount = segments.length + 1;
  // The word positions before part k (after[k - 1]), so a position relative to its part is start - base[k].
  const base = new Int32Array(partCount);
  for (let k = 1; k < partCount; k++) base[k] = after[k - 1]!;
  const partOf = (start: number): number => {
    // The number of segments before this word: those with after[s] < start (after ascends).
    let lo = 0;
    let hi = after.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (after[mid]! < start) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  // Per part, each lexeme's positions; the words not known (`unknown`), with their positions per part.
  const parts: Map<string, Positions>[] = Array.from({ length: partCount }, () => new Map());
  const missingEntries: [string, number, string][] = [];
  // Positions the missing words take (a lexeme of theirs could take all of them).
  let missingSpan = 0;
  const starts = tokens.starts;
  for (let k = 0; k < tokens.words.length; k++) {
    const word = tokens.words[k]!;
    const from = tokens.first[k]!;
    const to = tokens.first[k + 1]!;
    const known = lexemesOf[k];
    if (known === undefined && word.includes(PIECE_END)) return toTrigger;
    // The word's occurrences a run per part: they ascend, so the parts do too.
    let i = from;
    while (i < to) {
      const part = partCount === 1 ? 0 : partOf(starts[i]!);
      let j = i + 1;
      while (j < to && (partCount === 1 || partOf(starts[j]!) === part)) j++;
      const shift = base[part]!;
      if (known === undefined) {
        let list = String(starts[i]! - shift);
        for (let x = i + 1; x < j; x++) list += "," + (starts[x]! - shift);
        missingEntries.push([word, part, list]);
        missingSpan += (j - i) * tokens.span[k]!;
      } else {
        const map = parts[part]!;
        for (const [lexeme, local] of known) {
          let entry = map.get(lexeme);
          if (!entry) {
            if (lexeme === PIECE_END) return toTrigger;
            map.set(lexeme, (entry = { list: [], sorted: true }));
          }
          const list = entry.list;
          for (let x = i; x < j; x++) {
            const at = starts[x]! - shift - 1;
            for (let l = 0; l < local.length; l++) {
              const p = at + local[l]!;
              if (entry.sorted && list.length > 0 && p < list[list.length - 1]!) entry.sorted = false;
              list.push(p);
            }
          }
        }
      }
      i = j;
    }
  }
  // A lexeme's positions, with all that missing words and segments could add to it, stay below the limit.
  let mostOfOne = 0;
  if (partCount === 1) {
    for (const entry of parts[0]!.values()) if (entry.list.length > mostOfOne) mostOfOne = entry.list.length;
  } else {
    const counts = new Map<string, number>();
    for (const map of parts) {
      for (const [lexeme, entry] of map) {
        const n = (counts.get(lexeme) ?? 0) + entry.list.length;
        counts.set(lexeme, n);
        if (n > mostOfOne) mostOfOne = n;
      }
    }
  }
  // Else the function checks the joined vector, and leaves the text to the trigger if a lexeme reached it.
  const check = mostOfOne + missingSpan + segmentBound > LEXEME_BUDGET;

  const literals: string[] = [];
  literalsPlain = true;
  for (let k = 0; k < partCount; k++) {
    // The positions part k took: up to the next segment, or to the end of the words.
    const end = (k < segments.length ? after[k]! : total) - base[k]!;
    literals.push(partLiteral(parts[k]!, end));
  }
  // The literals are most of the JSON, and JSON.stringify would scan and copy them to escape
  // nothing: they are written here as they are unless a lexeme has a character JSON escapes.
  const p = literalsPlain ? `["${literals.join('","')}"]` : JSON.stringify(literals);
  return { json: `{"p":${p},"s":${JSON.stringify(segments)},"m":${JSON.stringify(missingEntries)}${check ? ',"c":1' : ""}}`, missing: unknown };
}

/** Whether the literals partLiteral wrote since it was last set are JSON strings' contents as they are. */
let literalsPlain = true;

/** A lexeme's positions in a part, in the order found, and whether that order ascends. */
type Positions = { list: number[]; sorted: boolean };

/**
 * A part's lexemes (no weight: the function sets C on the whole), and the marker at `end`, its
 * last position (none for a part that took none). Written as bytes (a literal of lower-case
 * ASCII lexemes is ASCII) into a buffer kept for the next part, and read as one string: as
 * strings, each position was a concatenation, thousands a message.
 */
function partLiteral(lexemes: Map<string, Positions>, end: number): string {
  // Room for each lexeme quoted, each position's digits (fewer than eight: a text is at most
  // 200,000 characters) and a comma, and the marker.
  let room = PIECE_END.length + 10;
  for (const [lexeme, { list }] of lexemes) {
    // A lexeme a literal or JSON quotes (none of the lexicon's ASCII words has one) is spelled as text.
    if (!PLAIN_LEXEME.test(lexeme)) return partLiteralText(lexemes, end);
    room += lexeme.length + 4 + 8 * list.length;
  }
  if (spelling.length < room) spelling = Buffer.allocUnsafe(Math.max(room, 2 * spelling.length));
  const out = spelling;
  let w = 0;
  for (const [lexeme, entry] of lexemes) {
    const list = entry.list;
    if (!entry.sorted) list.sort((a, b) => a - b);
    if (w > 0) out[w++] = SPACE;
    out[w++] = APOSTROPHE;
    for (let i = 0; i < lexeme.length; i++) out[w++] = lexeme.charCodeAt(i);
    out[w++] = APOSTROPHE;
    out[w++] = COLON;
    let last = list[0]!;
    w = writeNumber(out, w, last);
    for (let i = 1; i < list.length; i++) {
      const p = list[i]!;
      if (p === last) continue;
      out[w++] = COMMA;
      w = writeNumber(out, w, p);
      last = p;
    }
  }
  if (end > 0) {
    if (w > 0) out[w++] = SPACE;
    w += out.write(PIECE_END, w, "latin1");
    out[w++] = COLON;
    w = writeNumber(out, w, end);
  }
  return out.toString("latin1", 0, w);
}

/** The buffer partLiteral writes into. */
let spelling = Buffer.allocUnsafe(16 * 1024);
const SPACE = 0x20;
const APOSTROPHE = 0x27;
const COLON = 0x3a;
const COMMA = 0x2c;

/** `n` in decimal at `out[w]` (a position is at most 16,383 where pieces are made); where it ends. */
function writeNumber(out: Buffer, w: number, n: number): number {
  if (n >= 100_000) return w + out.write(String(n), w, "latin1");
  if (n >= 10_000) out[w++] = 48 + ((n / 10_000) | 0);
  if (n >= 1_000) out[w++] = 48 + (((n / 1_000) | 0) % 10);
  if (n >= 100) out[w++] = 48 + (((n / 100) | 0) % 10);
  if (n >= 10) out[w++] = 48 + (((n / 10) | 0) % 10);
  out[w++] = 48 + (n % 10);
  return w;
}

/** partLiteral as strings, for lexemes that need quoting in the literal or in JSON. */
function partLiteralText(lexemes: Map<string, Positions>, end: number): string {
  let out = "";
  for (const [lexeme, { list, sorted }] of lexemes) {
    if (!sorted) list.sort((a, b) => a - b);
    let last = list[0]!;
    let spelled = positionText(last);
    for (let i = 1; i < list.length; i++) {
      const p = list[i]!;
      if (p === last) continue;
      spelled += "," + positionText(p);
      last = p;
    }
    let name = lexeme;
    if (!PLAIN_LEXEME.test(lexeme)) {
      if (QUOTED_ANY.test(lexeme)) name = lexeme.replace(QUOTED, (c) => (c === "'" ? "''" : "\\\\"));
      if (JSON_ESCAPED.test(name)) literalsPlain = false;
    }
    out += (out ? " '" : "'") + name + "':" + spelled;
  }
  if (end > 0) out += `${out ? " " : ""}${PIECE_END}:${end}`;
  return out;
}

/** A position as text, made once per position: a vector spells thousands of them. */
const POSITIONS: string[] = [];
const positionText = (p: number): string => (POSITIONS[p] ??= String(p));
const PLAIN_LEXEME = /^[a-z0-9-]*$/;
/** What JSON.stringify would escape: quotes, backslashes, control characters, lone surrogates. */
const JSON_ESCAPED = /["\\\x00-\x1f\ud800-\udfff]/;
const QUOTED_ANY = /['\\]/;
const QUOTED = /['\\]/g;
/** A word of digits only (tokenizeText's words are letters only, digits only, or hyphenated letters). */
export const isNumber = (word: string): boolean => word.charCodeAt(0) >= 48 && word.charCodeAt(0) <= 57;
const numberLexemes = (word: string): Lexemes => [[word, ONE]];
const ONE: readonly number[] = [1];

/** A word and its lexemes, as the statement that stored a message answered them (an empty list for a stop word). */
export type LearnedWord = readonly [word: string, lexemes: Lexemes];

/**
 * The lexemes of the words a parser thread has learned. A word's lexemes depend only on the
 * word, so they are kept; the words mail uses are few next to the words it holds (8 KiB of
 * prose is ~1,400 words, ~450 distinct). Forgets everything when full rather than tracking
 * use: relearning costs the function a `to_tsvector` per word of the next texts. The bound
 * keeps a flood of made-up words to a few MiB per thread.
 */
export class WordLexicon implements Lexicon {
  private readonly words = new Map<string, Lexemes>();
  constructor(private readonly limit = 50_000) {}

  get(word: string): Lexemes | undefined {
    return this.words.get(word);
  }

  learn(entries: readonly LearnedWord[]): void {
    if (this.words.size + entries.length > this.limit) this.words.clear();
    for (const [word, lexemes] of entries) if (this.words.size < this.limit) this.words.set(word, lexemes);
  }

  get size(): number {
    return this.words.size;
  }
}
