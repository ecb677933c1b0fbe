/**
 * A cheap pre-check for the language patterns. Most of them start with `\b` and literal
 * words (`\b(?:reveal|print|show|…) (?:your |the )?(?:system|hidden) …`); a regex engine tries
 * the first list at every position of the text, ~40 patterns over the same text. The words a
 * text has are collected once (a set), and a pattern runs only when the text has the words
 * every match of it must contain (gateOf). And where every match starts with one of a few
 * words (leadOf), the pattern is tried only where the text has them, not at every character.
 *
 * The gate is read from the pattern's source, so it cannot drift from the pattern: where the
 * source does not have the shape it understands, it knows less (down to no gate at all, when
 * the pattern always runs). It is a necessary condition by construction: a literal word the
 * pattern requires where a run of `\w` starts (after `\b`, a space, an apostrophe) is a word
 * of the set, or begins one when the literal is cut short by an optional character
 * (`llms?` → `llm…`).
 */

/**
 * Words a match must contain, as a formula over the text's word set: one of the branches
 * (top-level `|`), each a list of clauses that must all hold, each clause satisfied by one
 * of its words (or a word beginning with one of its prefixes).
 */
type Gate = readonly (readonly Clause[])[];
interface Clause {
  words: readonly string[];
  prefixes: readonly string[];
}

/** Below this many characters the regexes are cheaper than collecting the words. */
const MIN_GATED_CHARS = 512;

const gates = new WeakMap<RegExp, Gate | null>();

/**
 * Where a pattern's matches can start, when every one starts a word of the text: the words
 * (or word beginnings) it may start with, and the pattern made sticky, to be tried there only.
 */
interface Lead {
  clause: Clause;
  sticky: RegExp;
}
const leads = new WeakMap<RegExp, Lead | null>();

/**
 * `re.test(text)`, skipped when the text lacks words every match has; and for a pattern whose
 * matches start with one of a few words, tried only where the text has those words instead of
 * at every position (a regex engine tries a leading `\b(?:a|b|…)` at each character).
 */
export function testGated(re: RegExp, text: string): boolean {
  if (text.length < MIN_GATED_CHARS) return re.test(text);
  return gatedOn(re, text, text, 0);
}

/**
 * testGated of `text` where `text` is part of `host`, from `offset` on, between characters no
 * word holds (the triage reads the start of a message's new text, which the text every rule
 * reads holds too): the index of `host`, made for the patterns that read it, stands in for one
 * of `text`. It has every word of `text`, as no word of `text` runs on in `host`; the ones it
 * has besides can only let a pattern run that would have been skipped (the pattern itself
 * still decides, on `text`), and a match is tried only where one of `text`'s words starts, as
 * testGated tries it. Anywhere else, `text` gets an index of its own.
 */
export function testGatedWithin(re: RegExp, text: string, host: string, offset: number): boolean {
  if (text.length < MIN_GATED_CHARS) return re.test(text);
  return isWithin(text, host, offset) ? gatedOn(re, text, host, offset) : gatedOn(re, text, text, 0);
}

/** Whether `text` is `host` from `offset` on, with no word of it running on in `host` across either end. */
export function isWithin(text: string, host: string, offset: number): boolean {
  const end = offset + text.length;
  return (
    text.length > 0 &&
    offset >= 0 &&
    end <= host.length &&
    (offset === 0 || !isWordCode(host.charCodeAt(offset - 1)) || !isWordCode(text.charCodeAt(0))) &&
    (end === host.length || !isWordCode(host.charCodeAt(end)) || !isWordCode(text.charCodeAt(text.length - 1))) &&
    host.startsWith(text, offset)
  );
}

/**
 * The first `max` characters of `s`, less a word the cut would split (a run of `\w`, as the
 * patterns' `\b` sees words): a half word is no word the rules know, and a text that ends
 * between words is one whose words another text's index can stand for (testGatedWithin).
 */
export function cutAtWord(s: string, max: number): string {
  if (s.length <= max) return s;
  let end = max;
  while (end > 0 && isWordCode(s.charCodeAt(end)) && isWordCode(s.charCodeAt(end - 1))) end--;
  return s.slice(0, end > 0 ? end : max);
}

/** `re.test(text)`, gated by the words of `indexed`, of which `text` is the part from `offset` on. */
function gatedOn(re: RegExp, text: string, indexed: string, offset: number): boolean {
  let gate = gates.get(re);
  if (gate === undefined) gates.set(re, (gate = gateOf(re)));
  if (gate === null) return re.test(text);
  const words = wordsOf(indexed);
  if (!words.admits(gate)) return false;
  let lead = leads.get(re);
  if (lead === undefined) leads.set(re, (lead = leadOfPattern(re)));
  if (lead === null) return re.test(text);
  const end = offset + text.length;
  for (const at of words.startsOf(lead.clause)) {
    if (at < offset || at >= end) continue;
    lead.sticky.lastIndex = at - offset;
    if (lead.sticky.test(text)) return true;
  }
  return false;
}

/** `patterns.some((re) => re.test(text))`, each pattern gated. */
export const someGated = (patterns: readonly RegExp[], text: string): boolean => patterns.some((re) => testGated(re, text));

/**
 * The runs of `\w` (ASCII letters, digits, underscore) in a text, the words `\b` sees, indexed
 * from its character codes: each distinct word filed under a hash of its characters, with the
 * places it occurs. No word becomes a string of its own. A set of the words split out of the
 * text, as this was before, made a fresh string and a hash-table entry for each of its ~3,500
 * words (20 KiB of prose): three quarters of the content rules' CPU on a text not seen before
 * (bench/content-rules.ts, 2.0 ms a message then, 0.83 ms now). A look-up compares the
 * characters themselves, so words whose hashes collide are still told apart.
 */
export class TextWords {
  /** Open addressing: word id + 1 per slot, 0 when empty. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** Per distinct word: its hash, its length, and its first occurrence. */
  private readonly hashes: Int32Array;
  private readonly lengths: Int32Array;
  private readonly first: Int32Array;
  /** Per occurrence, in text order: where it starts, and the next occurrence of the same word (-1: none). */
  private readonly at: Int32Array;
  private readonly next: Int32Array;
  private words = 0;
  private pairs: { keys: Int32Array; heads: Int32Array; next: Int32Array; mask: number } | null = null;

  constructor(private readonly text: string) {
    // One pass, in arrays with room for the most runs a text of this length can have (a
    // character and a separator each: scratchFor), and locals in the loop, which a JIT keeps in
    // registers where fields it reloads. Counting the runs first, and filing each through a
    // method, took twice as long. `last` (each word's latest occurrence) is needed only here.
    const n = text.length;
    const room = (n + 1) >> 1;
    // The table grows with the distinct words, far fewer than the runs in prose: a table sized
    // for every run missed the cache.
    let slots: Int32Array = new Int32Array(1024);
    let mask = 1023;
    const { hashes, lengths, first, last, at, next } = scratchFor(room);
    let words = 0;
    let occurrence = 0;
    let from = -1;
    let hash = FNV_OFFSET;
    for (let i = 0; i <= n; i++) {
      const c = i < n ? text.charCodeAt(i) : 0;
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95) {
        if (from < 0) {
          from = i;
          hash = FNV_OFFSET;
        }
        hash = Math.imul(hash ^ c, FNV_PRIME);
        continue;
      }
      if (from < 0) continue;
      const length = i - from;
      at[occurrence] = from;
      next[occurrence] = -1;
      let slot = hash & mask;
      for (;;) {
        const held = slots[slot]!;
        if (held === 0) {
          // A word not seen before.
          slots[slot] = words + 1;
          hashes[words] = hash;
          lengths[words] = length;
          first[words] = occurrence;
          last[words] = occurrence;
          words++;
          if (words * 2 > mask) {
            slots = refile(hashes, words, mask * 2 + 1);
            mask = mask * 2 + 1;
          }
          break;
        }
        const id = held - 1;
        if (hashes[id] === hash && lengths[id] === length && sameRun(text, at[first[id]!]!, from, length)) {
          next[last[id]!] = occurrence;
          last[id] = occurrence;
          break;
        }
        slot = (slot + 1) & mask;
      }
      occurrence++;
      from = -1;
    }
    this.slots = slots;
    this.mask = mask;
    this.hashes = hashes.slice(0, words);
    this.lengths = lengths.slice(0, words);
    this.first = first.slice(0, words);
    this.at = at.slice(0, occurrence);
    this.next = next.slice(0, occurrence);
    this.words = words;
  }

  /** Where the words of a clause (whole, or beginning with one of its prefixes) start in the text. */
  startsOf(clause: Clause): number[] {
    const at: number[] = [];
    for (const w of clause.words) this.pushStarts(this.find(w), at);
    for (const p of clause.prefixes) {
      this.eachBeginning(p, (id) => {
        // A word already taken whole is not taken again.
        if (!clause.words.some((w) => this.isWord(id, w))) this.pushStarts(id, at);
        return false;
      });
    }
    return at;
  }

  admits(gate: Gate): boolean {
    return gate.some((clauses) => clauses.every((c) => this.satisfies(c)));
  }

  /** Whether the text has `word` as a whole run of `\w`. */
  has(word: string): boolean {
    return this.find(word) >= 0;
  }

  private satisfies(clause: Clause): boolean {
    for (const w of clause.words) if (this.find(w) >= 0) return true;
    for (const p of clause.prefixes) if (this.hasPrefix(p)) return true;
    return false;
  }

  /** The id of `word` in this text, or -1 (also for a "word" that is not a run of `\w`). */
  private find(word: string): number {
    const hash = wordHash(word);
    if (hash === null) return -1;
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const held = this.slots[slot]!;
      if (held === 0) return -1;
      const id = held - 1;
      if (this.hashes[id] === hash && this.isWord(id, word)) return id;
    }
  }

  private pushStarts(id: number, into: number[]): void {
    if (id < 0) return;
    for (let o = this.first[id]!; o >= 0; o = this.next[o]!) into.push(this.at[o]!);
  }

  private hasPrefix(prefix: string): boolean {
    return this.eachBeginning(prefix, () => true);
  }

  /** Whether word `id` is `word`. */
  private isWord(id: number, word: string): boolean {
    return this.lengths[id] === word.length && this.text.startsWith(word, this.at[this.first[id]!]!);
  }

  /**
   * Calls `visit` with each distinct word that begins with `prefix`, until it returns true;
   * true when one did. Words are filed by their first two characters on the first call (a
   * prefix is one character rarely, and then every word is looked at), so a prefix looks only
   * at the few words that begin as it does. Sorting the words instead, to search them, cost
   * more than the rest of the index.
   */
  private eachBeginning(prefix: string, visit: (id: number) => boolean): boolean {
    const pairs = (this.pairs ??= this.fileByPair());
    const matches = (id: number) => this.lengths[id]! >= prefix.length && this.text.startsWith(prefix, this.at[this.first[id]!]!);
    if (prefix.length < 2) {
      for (let id = 0; id < this.words; id++) if (matches(id) && visit(id)) return true;
      return false;
    }
    const key = pairKey(prefix.charCodeAt(0), prefix.charCodeAt(1));
    for (let slot = pairSlot(key, pairs.mask); pairs.heads[slot] !== 0; slot = (slot + 1) & pairs.mask) {
      if (pairs.keys[slot] !== key) continue;
      for (let id = pairs.heads[slot]! - 1; id >= 0; id = pairs.next[id]!) if (matches(id) && visit(id)) return true;
      return false;
    }
    return false;
  }

  private fileByPair(): { keys: Int32Array; heads: Int32Array; next: Int32Array; mask: number } {
    let size = 8;
    while (size < this.words * 2) size *= 2;
    const keys = new Int32Array(size);
    const heads = new Int32Array(size);
    const next = new Int32Array(this.words).fill(-1);
    const mask = size - 1;
    for (let id = 0; id < this.words; id++) {
      if (this.lengths[id]! < 2) continue;
      const start = this.at[this.first[id]!]!;
      const key = pairKey(this.text.charCodeAt(start), this.text.charCodeAt(start + 1));
      let slot = pairSlot(key, mask);
      while (heads[slot] !== 0 && keys[slot] !== key) slot = (slot + 1) & mask;
      keys[slot] = key;
      next[id] = heads[slot]! - 1;
      heads[slot] = id + 1;
    }
    return { keys, heads, next, mask };
  }
}

/** Two characters as one number (exact: each is one UTF-16 code unit), and its first slot in a table, spread so that nearby pairs fall apart. */
const pairKey = (a: number, b: number): number => (a << 16) | b;
const pairSlot = (key: number, mask: number): number => (Math.imul(key, 0x9e3779b1) >>> 8) & mask;

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** The key the index files a word under (32-bit FNV-1a of its code units), or null when it is not a run of `\w`. */
export function wordHash(word: string): number | null {
  if (word.length === 0) return null;
  let hash = FNV_OFFSET;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (!isWordCode(c)) return null;
    hash = Math.imul(hash ^ c, FNV_PRIME);
  }
  return hash;
}

/**
 * The arrays an index is made in, kept for the next (indexes are made one at a time, and the
 * constructor writes every entry it reads): room for every run of a text, allocated and zeroed
 * for each index, was a tenth of the content rules' time. Each index keeps a copy of what it used.
 */
let scratch = arrays(0);
/** What is kept at most: room for a text of 128 Ki characters (1.5 MiB); a longer one gets arrays of its own. */
const SCRATCH_ROOM = 64 * 1024;
function scratchFor(room: number): typeof scratch {
  if (room > SCRATCH_ROOM) return arrays(room);
  if (scratch.room < room) scratch = arrays(Math.max(room, 4096));
  return scratch;
}
function arrays(room: number) {
  const make = () => new Int32Array(room);
  return { room, hashes: make(), lengths: make(), first: make(), last: make(), at: make(), next: make() };
}

/** A table of mask + 1 (a power of two) slots with words 0 to count - 1 filed by their hashes. */
function refile(hashes: Int32Array, count: number, mask: number): Int32Array {
  const slots = new Int32Array(mask + 1);
  for (let id = 0; id < count; id++) {
    let slot = hashes[id]! & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = id + 1;
  }
  return slots;
}

/** Whether text[a, a + length) and text[b, b + length) are the same characters. */
function sameRun(text: string, a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (text.charCodeAt(a + k) !== text.charCodeAt(b + k)) return false;
  return true;
}

/** `\w` without the regex engine: ASCII letters, digits and underscore. */
const isWordCode = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;

// The texts of the message being assessed (its body, the triage's new text, the lure head):
// each is gated by ~10–40 patterns in a row, so the last few word indexes are kept.
const recent: { text: string; words: TextWords }[] = [];
const RECENT = 4;
function wordsOf(text: string): TextWords {
  for (const r of recent) if (r.text === text) return r.words;
  const words = new TextWords(text);
  recent.unshift({ text, words });
  if (recent.length > RECENT) recent.pop();
  return words;
}

/**
 * The gate of a pattern, or null when it has none: case-insensitive, global and sticky
 * patterns are left alone (their words or their lastIndex are not what the set holds), and
 * so is a pattern with a branch in which no word is certain.
 */
export function gateOf(re: RegExp): Gate | null {
  if (re.ignoreCase || re.global || re.sticky) return null;
  const gate: Clause[][] = [];
  try {
    for (const branch of splitTop(re.source)) {
      const { clauses } = walk(branch, false, false);
      if (clauses.length === 0) return null;
      gate.push(clauses);
    }
  } catch {
    // A source this reader trips on runs ungated: the gate may only ever save work.
    return null;
  }
  return gate;
}

/** The lead of a gated pattern and its sticky copy, or null when some match may start elsewhere. */
function leadOfPattern(re: RegExp): Lead | null {
  const clause = leadOf(re);
  return clause && { clause, sticky: new RegExp(re.source, `${re.flags}y`) };
}

/**
 * The words every match of a pattern starts with, or null when a match may start elsewhere:
 * each top-level branch must begin (after look-arounds, which consume nothing) with `\b` and a
 * literal word, or with a required group each of whose alternatives does. As with the gate, a
 * word is whole only when what follows it is certainly not `\w`, else it is a prefix; and
 * anything this reader does not know gives no lead, never a wrong one.
 */
export function leadOf(re: RegExp): Clause | null {
  if (re.ignoreCase || re.global || re.sticky) return null;
  try {
    const leads = splitTop(re.source).map((branch) => leadOfSequence(branch, false, false));
    return leads.every((l) => l !== null) ? union(leads as Clause[]) : null;
  } catch {
    return null;
  }
}

function leadOfSequence(source: string, start: boolean, breakAfter: boolean): Clause | null {
  let i = 0;
  for (;;) {
    if (source.startsWith("\\b", i)) {
      start = true;
      i += 2;
      continue;
    }
    if (source[i] !== "(") break;
    const end = groupEnd(source, i);
    if (end < 0) return null;
    const head = /^\((?:\?(?:<?[=!]|:|<[A-Za-z_]\w*>))?/.exec(source.slice(i))![0];
    const q = quantifierAt(source, end);
    if (/^\(\?<?[=!]$/.test(head)) {
      if (q.length > 0) return null;
      i = end;
      continue;
    }
    if (q.optional) return null;
    // A repeated group: what follows its first round may be another round.
    const groupBreak = q.length === 0 && breaksAt(source, end, breakAfter);
    const alts = splitTop(source.slice(i + head.length, end - 1)).map((alt) => leadOfSequence(alt, start, groupBreak));
    return alts.every((a) => a !== null) ? union(alts as Clause[]) : null;
  }
  if (!start) return null;
  let run = "";
  while (i < source.length) {
    const c = source[i]!;
    let ch = c;
    let length = 1;
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      if (/[A-Za-z0-9]/.test(next)) break;
      ch = next;
      length = 2;
    } else if ("()[]|.^$?*+{".includes(c)) break;
    if (!/\w/.test(ch)) break;
    const q = quantifierAt(source, i + length);
    if (q.length > 0) {
      // It may be absent or repeat: the word is certain only up to here.
      if (!q.optional) run += ch;
      return run ? { words: [], prefixes: [run] } : null;
    }
    run += ch;
    i += length;
  }
  if (!run) return null;
  return breaksAt(source, i, breakAfter) ? { words: [run], prefixes: [] } : { words: [], prefixes: [run] };
}

const union = (clauses: Clause[]): Clause => ({
  words: [...new Set(clauses.flatMap((c) => c.words))],
  prefixes: [...new Set(clauses.flatMap((c) => c.prefixes))],
});

/**
 * The clauses of a sequence (a branch, or one alternative of a group): each word it must
 * contain where a run of `\w` starts, that is at the start of the match after `\b`, or after
 * a character that is certainly not `\w` (a space, an apostrophe, `\s`). A required group
 * gives one clause: the first clause of each of its alternatives. Anything it does not read
 * (a class, `.`, an optional part) only makes it know less, never wrongly.
 *
 * `start`: a run of `\w` starts at the sequence's first character if that is `\w`.
 * `breakAfter`: what follows the sequence is not `\w`, so a run reaching its end is whole.
 * Returns the clauses and whether a run starts right after the sequence.
 */
function walk(source: string, start: boolean, breakAfter: boolean): { clauses: Clause[]; start: boolean } {
  const clauses: Clause[] = [];
  let run: string | null = null;
  const endRun = (whole: boolean) => {
    if (run) clauses.push(whole ? { words: [run], prefixes: [] } : { words: [], prefixes: [run] });
    run = null;
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      if (next === "b") {
        endRun(true);
        start = true;
        i += 2;
        continue;
      }
      if (/[A-Za-z0-9]/.test(next)) {
        const end = escapeEnd(source, i);
        const q = quantifierAt(source, end);
        // White space is never `\w`: a run before it is whole and one may start after it.
        const white = /^\\[snrtfv]$/.test(source.slice(i, i + 2));
        endRun(white && !q.optional);
        start = white && !q.optional;
        i = end + q.length;
        continue;
      }
      i = literal(next, i + 2);
      continue;
    }
    if (c === "(") {
      const end = groupEnd(source, i);
      if (end < 0) return { clauses, start: false };
      const head = /^\((?:\?(?:<?[=!]|:|<[A-Za-z_]\w*>))?/.exec(source.slice(i))![0];
      if (/^\(\?<?[=!]$/.test(head)) {
        // A look-around: nothing consumed.
        i = end;
        continue;
      }
      endRun(false);
      const q = quantifierAt(source, end);
      const after = end + q.length;
      const groupBreak = !q.optional && breaksAt(source, after, breakAfter);
      const alts = splitTop(source.slice(i + head.length, end - 1)).map((alt) => walk(alt, start, groupBreak));
      const endsStart = alts.every((a) => a.start);
      if (!q.optional && alts.every((a) => a.clauses.length > 0)) {
        clauses.push({
          words: [...new Set(alts.flatMap((a) => a.clauses[0]!.words))],
          prefixes: [...new Set(alts.flatMap((a) => a.clauses[0]!.prefixes))],
        });
      }
      start = q.optional ? start && endsStart : endsStart;
      i = after;
      continue;
    }
    if ("[.^$".includes(c)) {
      endRun(false);
      const end = c === "[" ? classEnd(source, i) : i + 1;
      i = end + quantifierAt(source, end).length;
      start = false;
      continue;
    }
    i = literal(c, i + 1);
  }
  endRun(breakAfter);
  return { clauses, start };

  /** A literal character at `end - 1` (its escape included), and its quantifier. */
  function literal(ch: string, end: number): number {
    const q = quantifierAt(source, end);
    if (/\w/.test(ch)) {
      if (q.length > 0) {
        // It may be absent or repeat: the run is certain only up to here.
        if (run !== null && !q.optional) run += ch;
        endRun(false);
      } else if (run !== null) run += ch;
      else if (start) run = ch;
      start = false;
    } else {
      // An optional separator may be absent ("log ?in" is also "login").
      endRun(!q.optional);
      start = !q.optional;
    }
    return end + q.length;
  }
}

/** Whether the character at `i` (or the end, per `atEnd`) is certainly not `\w`. */
function breaksAt(source: string, i: number, atEnd: boolean): boolean {
  if (i >= source.length) return atEnd;
  const c = source[i]!;
  if (c === "\\") {
    const next = source[i + 1] ?? "";
    if (next === "b" || /[snrtfv]/.test(next) || !/[A-Za-z0-9]/.test(next)) return !quantifierAt(source, escapeEnd(source, i)).optional || next === "b";
    return false;
  }
  if ("()[]|.^$?*+{".includes(c) || /\w/.test(c)) return false;
  return !quantifierAt(source, i + 1).optional;
}

/** The quantifier at `i`, if any (with its lazy mark), and whether it allows zero. */
function quantifierAt(source: string, i: number): { length: number; optional: boolean } {
  const m = /^(?:[?*+]|\{(\d+)(?:,\d*)?\})\??/.exec(source.slice(i, i + 16));
  if (!m) return { length: 0, optional: false };
  const optional = m[0][0] === "?" || m[0][0] === "*" || (m[1] !== undefined && Number(m[1]) === 0);
  return { length: m[0].length, optional };
}

/** The index just past an escape that starts at `i` (`\d`, `\u00e9`, `\u{1f600}`, `\p{L}`, `\x41`, `\k<n>`, `\12`). */
function escapeEnd(source: string, i: number): number {
  const rest = source.slice(i + 1, i + 24);
  const m = /^(?:u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|[pP]\{[^}]*\}|c[A-Za-z]|k<[^>]*>|\d+|.)/s.exec(rest);
  return i + 1 + (m ? m[0].length : 1);
}

/** The index just past the group that opens at `start`, or -1 when it does not close. */
function groupEnd(source: string, start: number): number {
  let depth = 0;
  for (let i = start; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "[") i = classEnd(source, i) - 1;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i + 1;
  }
  return -1;
}

function classEnd(source: string, start: number): number {
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === "]") return i + 1;
  }
  return source.length;
}

/** Splits a source at its top-level `|`. */
function splitTop(source: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "[") i = classEnd(source, i) - 1;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      parts.push(source.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(source.slice(from));
  return parts;
}
