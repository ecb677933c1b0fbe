/**
 * A cheap pre-check for the language patterns. Most of them start with `\b` and literal
 * words (`\b(?:reveal|print|show|…) (?:your |the )?(?:system|hidden) …`); a regex engine tries
 * the first list at every position of the text, ~40 patterns over the same text. The words a
 * text has are collected once (a set), and a pattern runs only when the text has the words
 * every match of it must contain (gateOf).
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

/** `re.test(text)`, skipped when the text lacks words every match has. */
export function testGated(re: RegExp, text: string): boolean {
  if (text.length >= MIN_GATED_CHARS) {
    let gate = gates.get(re);
    if (gate === undefined) gates.set(re, (gate = gateOf(re)));
    if (gate !== null && !wordsOf(text).admits(gate)) return false;
  }
  return re.test(text);
}

/** `patterns.some((re) => re.test(text))`, each pattern gated. */
export const someGated = (patterns: readonly RegExp[], text: string): boolean => patterns.some((re) => testGated(re, text));

/** The runs of `\w` (ASCII letters, digits, underscore) in a text: the words `\b` sees. */
class TextWords {
  private readonly set: Set<string>;
  private sorted: string[] | null = null;
  constructor(text: string) {
    this.set = new Set(text.split(/[^A-Za-z0-9_]+/));
  }
  admits(gate: Gate): boolean {
    return gate.some((clauses) => clauses.every((c) => this.satisfies(c)));
  }
  private satisfies(clause: Clause): boolean {
    for (const w of clause.words) if (this.set.has(w)) return true;
    for (const p of clause.prefixes) if (this.hasPrefix(p)) return true;
    return false;
  }
  private hasPrefix(prefix: string): boolean {
    const sorted = (this.sorted ??= [...this.set].sort());
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    return lo < sorted.length && sorted[lo]!.startsWith(prefix);
  }
}

// The texts of the message being assessed (its body, the triage's new text, the lure head):
// each is gated by ~10–40 patterns in a row, so the last few word sets are kept.
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
