/**
 * The text part of a message's full-text vector, made here instead of by PostgreSQL.
 *
 * Migration 0006 indexes a message's text as `setweight(to_tsvector('english', left(text,
 * 200000)), 'C')`. Most of that cost is PostgreSQL's text-search parser walking the text a
 * character at a time (about 2 ms of backend CPU for 8 KiB of prose, against 0.2 ms for the
 * rest of the row), and it runs on the database, the one process every node shares. So we
 * split the text here, in the parser's worker, where we can name its tokens exactly as that
 * parser would; text-vector-pieces.ts makes the vector of the words from what the worker has
 * learned of their lexemes (a word's lexemes do not depend on its neighbours) and leaves the
 * pieces we cannot split, and the words not known yet, to PostgreSQL in the statement that
 * stores the message.
 *
 * "Exactly" is the point: search runs `websearch_to_tsquery('english', …)` against the vector,
 * so a vector that differs from what PostgreSQL would make is a search that silently misses.
 * Every rule here is checked against PostgreSQL itself (test/text-vector.test.ts).
 *
 * The parser starts afresh after whitespace (outside an HTML tag or comment, which is why a
 * text with `<` is left to PostgreSQL whole), so the text is taken a chunk (a run without
 * whitespace) at a time. A chunk is split here when it holds only words of ASCII letters,
 * numbers of digits, simple punctuation between them, and words joined by hyphens. Any other chunk (a non-ASCII
 * character, whose class depends on the database's locale; a dot or slash inside a token,
 * which makes hosts, paths, versions and numbers; `@`, `&`, `_`, `+`, signs) joins a segment
 * that PostgreSQL splits, and tells us how many positions it took.
 */

/** How much of the text the vector covers (migration 0006's `left(…, 200000)`). */
export const TEXT_VECTOR_LIMIT = 200_000;
/**
 * PostgreSQL skips a word of 2047 bytes or more without counting its position, which its
 * token count would not show: a text with a chunk that long is left to it whole.
 */
const MAX_CHUNK = 2_000;

/**
 * A text split as PostgreSQL's parser would number its tokens. A word is a run of ASCII
 * letters or of digits, or a hyphenated word (letters only in every part), which the parser
 * counts as the whole word and then each part. `words` are the distinct words, lower-cased;
 * word k begins at the positions starts[first[k]] up to starts[first[k + 1]] (ascending),
 * counting only the positions of words, and takes span[k] positions. `segments` are the pieces
 * left to PostgreSQL, in order; `after[i]` counts the word positions before segment i. A
 * word's position in the vector is its start plus the positions of the segments before it.
 */
export interface TextTokens {
  words: string[];
  starts: Int32Array;
  first: Int32Array;
  span: Int32Array;
  segments: string[];
  after: Int32Array;
}

// Character classes, by char code (ASCII only; 0 for anything else).
const LETTER = 1;
const DIGIT = 2;
const SEPARATOR = 4; // a blank between tokens
const DOT = 8; // a blank only before punctuation or whitespace
const HYPHEN = 16;
const SPACE = 32; // ends a chunk
const CLASS = new Uint8Array(128);
for (let c = 65; c <= 90; c++) CLASS[c] = LETTER;
for (let c = 97; c <= 122; c++) CLASS[c] = LETTER;
for (let c = 48; c <= 57; c++) CLASS[c] = DIGIT;
for (const ch of ",;:!?()\"'[]{}*=#%$^|`") CLASS[ch.charCodeAt(0)] = SEPARATOR;
for (const ch of " \t\n\r") CLASS[ch.charCodeAt(0)] = SPACE;
CLASS[46] = DOT;
CLASS[45] = HYPHEN;
const ALNUM = LETTER | DIGIT;
const classAt = (text: string, i: number): number => {
  const c = text.charCodeAt(i);
  return c < 128 ? CLASS[c]! : 0;
};

/**
 * The text's tokens, or null where only PostgreSQL can split it at all (a `<`, a NUL, a chunk
 * over MAX_CHUNK characters, a lone surrogate, which reaches the database as U+FFFD).
 */
export function tokenizeText(full: string): TextTokens | null {
  if (!full.isWellFormed()) return null;
  const text = leftCodePoints(full, TEXT_VECTOR_LIMIT);
  if (text.includes("<") || text.includes("\0")) return null;
  const index = new WordIndex(text);
  const words: string[] = [];
  const span: number[] = [];
  const segments: string[] = [];
  const after: number[] = [];
  // Each occurrence's word number, in order (at most one per two characters); grouped by word at the end.
  const occurrences = new Int32Array((text.length + 1) >> 1);
  let occurrenceCount = 0;
  let position = 0;
  // The segment being gathered: from the start of its first chunk to the end of its last.
  let segmentFrom = -1;
  let segmentTo = -1;
  // A chunk's words, kept until the whole chunk is known to be ours: [from, to, parts] each.
  // One buffer for all calls: tokenizing is synchronous.
  const found = FOUND;
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (classAt(text, i) === SPACE) {
      i++;
      continue;
    }
    const count = splitChunk(text, i, n, found);
    const end = chunkEnd;
    if (end - i > MAX_CHUNK) return null;
    if (count >= 0) {
      if (segmentFrom >= 0) {
        segments.push(text.slice(segmentFrom, segmentTo));
        after.push(position);
        segmentFrom = -1;
      }
      for (let f = 0; f < count; f += 4) {
        const from = found[f]!;
        const to = found[f + 1]!;
        const parts = found[f + 2]!;
        let k = index.find(from, to, found[f + 3]!);
        if (k < 0) {
          k = index.added;
          words.push(text.slice(from, to).toLowerCase());
          span.push(parts > 1 ? parts + 1 : 1);
        }
        occurrences[occurrenceCount++] = k;
        position += span[k]!;
      }
    } else {
      // A segment keeps the whitespace around it: the parser reads some tokens differently at
      // the very start of its input ("~18%" is a file name there, a number after a space).
      if (segmentFrom < 0) segmentFrom = i > 0 ? i - 1 : 0;
      segmentTo = end < n ? end + 1 : end;
    }
    i = end;
  }
  if (segmentFrom >= 0) {
    segments.push(text.slice(segmentFrom, segmentTo));
    after.push(position);
  }
  // Group the starts by word: count, then place each occurrence's start in order.
  const first = new Int32Array(words.length + 1);
  for (let o = 0; o < occurrenceCount; o++) first[occurrences[o]! + 1]!++;
  for (let k = 0; k < words.length; k++) first[k + 1]! += first[k]!;
  const starts = new Int32Array(occurrenceCount);
  const next = first.slice(0, words.length);
  position = 0;
  for (let o = 0; o < occurrenceCount; o++) {
    const k = occurrences[o]!;
    starts[next[k]!++] = position + 1;
    position += span[k]!;
  }
  // `new Int32Array(array)` copies; Int32Array.from iterates, a call per element.
  return { words, starts, first, span: new Int32Array(span), segments, after: new Int32Array(after) };
}

/** The first `limit` characters as PostgreSQL's left() counts them: code points, not UTF-16 units. */
function leftCodePoints(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let i = 0;
  for (let count = 0; count < limit && i < text.length; count++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
  }
  return text.slice(0, i);
}

/**
 * The distinct words of one text, found by where they occur: an open-addressing table of
 * word numbers, hashed and compared on the text itself, lower-cased (words are ASCII). A
 * word is cut out of the text only the first time it is seen: cutting and hashing a string
 * for every occurrence was most of what tokenizing cost. The hash is made as the word is
 * split (splitChunk), and a word not found is filed in the slot where the search ended.
 */
class WordIndex {
  private slots: Int32Array = new Int32Array(1024).fill(-1);
  private froms: Int32Array = new Int32Array(256);
  private lengths: Int32Array = new Int32Array(256);
  private hashes: Int32Array = new Int32Array(256);
  /** How many words are filed. */
  private count = 0;
  constructor(private readonly text: string) {}

  /** The number find() gave the word it filed last. */
  get added(): number {
    return this.count - 1;
  }

  /** The number of the word at text[from, to) of hash `hash`, or -1 when it is new (it is filed then, as number `added`). */
  find(from: number, to: number, hash: number): number {
    const length = to - from;
    const mask = this.slots.length - 1;
    const { slots, hashes, lengths, froms, text } = this;
    let slot = hash & mask;
    for (; ; slot = (slot + 1) & mask) {
      const k = slots[slot]!;
      if (k < 0) break;
      if (hashes[k] === hash && lengths[k] === length && sameLower(text, froms[k]!, from, length)) return k;
    }
    const k = this.count++;
    if (k === this.froms.length) this.widen();
    this.froms[k] = from;
    this.lengths[k] = length;
    this.hashes[k] = hash;
    if (2 * (k + 1) > this.slots.length) this.grow();
    else this.slots[slot] = k;
    return -1;
  }

  private widen(): void {
    this.froms = twice(this.froms);
    this.lengths = twice(this.lengths);
    this.hashes = twice(this.hashes);
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(-1);
    const mask = slots.length - 1;
    for (let k = 0; k < this.count; k++) {
      let slot = this.hashes[k]! & mask;
      while (slots[slot]! >= 0) slot = (slot + 1) & mask;
      slots[slot] = k;
    }
    this.slots = slots;
  }
}

/** `a` in an array twice as long. */
function twice(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/** Whether text[a, a + length) and text[b, b + length) are the same, ignoring ASCII case. */
function sameLower(text: string, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (lowerAt(text, a + i) !== lowerAt(text, b + i)) return false;
  return true;
}

/** The char code at i, lower-cased if an ASCII capital. */
const lowerAt = (text: string, i: number): number => {
  const c = text.charCodeAt(i);
  return c >= 65 && c <= 90 ? c + 32 : c;
};

/** Where the chunk splitChunk read last ends (the first whitespace after it, or the text's end). */
let chunkEnd = 0;

/**
 * Splits the chunk that starts at `from` (a run without whitespace, which ends where
 * splitChunk sets `chunkEnd`) into words, written to `found` as from, to, parts and the word's
 * hash (WordIndex: FNV-1a of its lower-cased char codes) each, in one pass that finds the
 * chunk's end, its words and their hashes together; answers how many numbers it wrote, or -1
 * when the chunk holds anything PostgreSQL's parser might read otherwise (or runs past
 * MAX_CHUNK, which the caller refuses).
 */
function splitChunk(text: string, from: number, n: number, found: Int32Array): number {
  let count = 0;
  let i = from;
  while (i < n) {
    const cls = classAt(text, i);
    if (cls === SPACE) break;
    // Past MAX_CHUNK the caller gives the text up; stopping here keeps `found` within bounds.
    if (i - from > MAX_CHUNK) return skipChunk(text, i, n);
    if (cls & ALNUM) {
      // One word, or a hyphenated word: runs of letters and digits joined by single hyphens.
      const start = i;
      let parts = 0;
      let seen = 0;
      let hash = FNV_OFFSET;
      for (;;) {
        while (i < n) {
          const c = text.charCodeAt(i);
          const k = c < 128 ? CLASS[c]! : 0;
          if (!(k & ALNUM)) break;
          seen |= k;
          hash = Math.imul(hash ^ (c >= 65 && c <= 90 ? c + 32 : c), FNV_PRIME);
          i++;
        }
        parts++;
        if (i + 1 < n && classAt(text, i) === HYPHEN && classAt(text, i + 1) & ALNUM) {
          hash = Math.imul(hash ^ 45, FNV_PRIME);
          i++;
          continue;
        }
        break;
      }
      // Letters with digits make numbers of several kinds ("1e5the" is a number and a word);
      // digits in a hyphenated word make dates and signed integers.
      if (seen === ALNUM || (parts > 1 && seen & DIGIT)) return skipChunk(text, i, n);
      found[count++] = start;
      found[count++] = i;
      found[count++] = parts;
      found[count++] = hash;
      continue;
    }
    if (cls === SEPARATOR) {
      i++;
      continue;
    }
    // What follows within the chunk (SPACE: the chunk ends here).
    const next = i + 1 < n ? classAt(text, i + 1) : SPACE;
    if (cls === DOT) {
      // A dot is a blank only at the end of a chunk or before punctuation: before a letter or
      // digit it makes hosts, files, versions and decimals, and dots together make a file name.
      if (next !== SPACE && next !== SEPARATOR) return skipChunk(text, i, n);
      i++;
      continue;
    }
    if (cls === HYPHEN) {
      // Before a letter or digit (and not inside a hyphenated word), a hyphen makes a signed integer.
      if (next & ALNUM) return skipChunk(text, i, n);
      i++;
      continue;
    }
    return skipChunk(text, i, n);
  }
  chunkEnd = i;
  return count;
}

/** A chunk only PostgreSQL splits: its end, from `i` within it, set as splitChunk's; -1. */
function skipChunk(text: string, i: number, n: number): number {
  while (i < n && classAt(text, i) !== SPACE) i++;
  chunkEnd = i;
  return -1;
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** A chunk's words (at most one per two characters of MAX_CHUNK), four numbers each. */
const FOUND = new Int32Array(4 * (MAX_CHUNK / 2 + 1));

/** The lexemes PostgreSQL makes of a word alone, each with its positions within it (1-based; a hyphenated word makes several). */
export type Lexemes = ReadonlyArray<readonly [lexeme: string, positions: readonly number[]]>;
