/**
 * Shared plumbing for the local extractors: the input cap, a record of which characters
 * another extractor already claimed, and a way to cut text into bounded pieces.
 *
 * Extractors run in a fixed order and each claims what it found, so a phone-shaped run of
 * digits inside a URL or a tracking number is never reported twice as something else.
 */

/** Characters of a message looked at: more is never needed, and this runs on the main thread. */
export const MAX_INPUT = 200_000;

/** A found thing's place in the text: [start, end). */
export interface Span {
  start: number;
  end: number;
}

/**
 * One flag per character. Checking a span costs its length, so claiming and checking every
 * match stays linear in the text, however many matches there are.
 */
export class Claims {
  private readonly taken: Uint8Array;

  constructor(length: number) {
    this.taken = new Uint8Array(length);
  }

  claim(s: Span): void {
    this.taken.fill(1, Math.max(0, s.start), Math.min(this.taken.length, s.end));
  }

  /** Whether any character of the span is already claimed. */
  overlaps(s: Span): boolean {
    const end = Math.min(this.taken.length, s.end);
    for (let i = Math.max(0, s.start); i < end; i++) if (this.taken[i]) return true;
    return false;
  }
}

/** A piece of the text and where it starts. */
export interface Piece {
  offset: number;
  text: string;
}

/**
 * The text as paragraphs (runs of lines between blank lines) of at most `max` characters;
 * longer ones are cut at the last white space before the limit. Parsers that are
 * superlinear on long runs (chrono is quadratic on "1/1/1/…") only ever see one piece.
 */
export function pieces(text: string, max: number): Piece[] {
  const out: Piece[] = [];
  const blankLine = /\n[ \t]*\n/g;
  let start = 0;
  for (;;) {
    blankLine.lastIndex = start;
    const m = blankLine.exec(text);
    const end = m ? m.index : text.length;
    let at = start;
    while (end - at > max) {
      const window = text.slice(at, at + max);
      const space = Math.max(window.lastIndexOf(" "), window.lastIndexOf("\n"));
      // No white space in the second half (one long token): cut hard.
      const cut = space > max / 2 ? at + space : at + max;
      out.push({ offset: at, text: text.slice(at, cut) });
      at = cut;
    }
    if (end > at) out.push({ offset: at, text: text.slice(at, end) });
    if (!m) return out;
    start = m.index + m[0].length;
  }
}

/**
 * The sentence around [start, end), at most `reach` characters either side: what words
 * like "due" or "by" are looked for in. Stops at a sentence end or a blank line, and after
 * the span also at the line's end (what follows on the next line is usually another item).
 */
export function around(text: string, s: Span, reach: number): { before: string; after: string } {
  const from = Math.max(0, s.start - reach);
  let before = text.slice(from, s.start);
  const stopBefore = lastBoundary(before);
  if (stopBefore >= 0) before = before.slice(stopBefore);
  let after = text.slice(s.end, Math.min(text.length, s.end + reach));
  const stopAfter = firstBoundary(after);
  if (stopAfter >= 0) after = after.slice(0, stopAfter);
  const newline = after.indexOf("\n");
  if (newline >= 0) after = after.slice(0, newline);
  return { before, after };
}

// A sentence ends at ". ", "! ", "? " or a blank line; single newlines are hard wraps.
const BOUNDARY = /[.!?](?=\s)|\n[ \t]*\n/g;

function lastBoundary(s: string): number {
  let last = -1;
  BOUNDARY.lastIndex = 0;
  for (let m = BOUNDARY.exec(s); m; m = BOUNDARY.exec(s)) last = m.index + m[0].length;
  return last;
}

function firstBoundary(s: string): number {
  BOUNDARY.lastIndex = 0;
  const m = BOUNDARY.exec(s);
  return m ? m.index : -1;
}
