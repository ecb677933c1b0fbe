/**
 * A cheap, bounded reader of a message's header block. The main thread runs it when a parse
 * fails (so a failure still carries the headers), and the worker runs it with wider limits
 * for the headers of a parsed message, so both outcomes report headers the same way.
 */
import type { HeaderField } from "../types.ts";
import { FALLBACK_HEAD_LIMITS } from "./limits.ts";
import { decodeUndeclared, decodeWords } from "./words.ts";

export interface HeadLimits {
  /** Bytes of the message looked at; a field not finished within them is dropped. */
  maxBytes: number;
  /** Fields kept; the scan stops at the next one. */
  maxFields: number;
}


export interface Head {
  fields: HeaderField[];
  /** [start, end) of each field in the input, folded lines included; parallel to `fields`. */
  ranges: Array<[number, number]>;
  /** Where the body starts (after the blank line); -1 when a limit stopped the scan. */
  bodyStart: number;
  /** Where the blank line ending the head starts (the input's length when there is none). */
  headEnd: number;
  /** The first line is not a header field: the message is all body. */
  headerless: boolean;
}

// CR, LF and NUL never leave the parser in a header key or value: they could reach a header
// we write, or a database column that cannot hold NUL.
const CONTROL = /[\r\n\0]+/g;
export const clean = (s: string) => s.replace(CONTROL, " ").trim();

const LF = 0x0a;
const CR = 0x0d;
const isWsp = (c: number | undefined) => c === 0x20 || c === 0x09;

/** End of the field name (RFC 5322 ftext, then the obsolete white space before the colon), or -1. */
function nameEnd(raw: Uint8Array, pos: number, end: number): number {
  let i = pos;
  while (i < end && raw[i]! >= 0x21 && raw[i]! <= 0x7e && raw[i] !== 0x3a) i++;
  if (i === pos) return -1;
  let j = i;
  while (j < end && isWsp(raw[j])) j++;
  return raw[j] === 0x3a && j < end ? i : -1;
}

const startsWithFrom = (raw: Uint8Array) =>
  raw.length >= 5 && raw[0] === 0x46 && raw[1] === 0x72 && raw[2] === 0x6f && raw[3] === 0x6d && raw[4] === 0x20;

export function decodeFieldValue(bytes: Uint8Array): string {
  // Unfolding removes only the line break in front of white space (RFC 5322 section 2.2.3).
  return clean(decodeWords(decodeUndeclared(bytes).replace(/\r?\n(?=[ \t])/g, "")));
}

export function scanHead(raw: Uint8Array, limits: HeadLimits): Head {
  const head: Head = { fields: [], ranges: [], bodyStart: -1, headEnd: raw.length, headerless: false };
  const end = Math.min(raw.length, limits.maxBytes);
  let pos = 0;
  // An mbox "From " separator line in front of the head (mailparser skips it as well).
  if (startsWithFrom(raw)) {
    const lf = raw.indexOf(LF);
    if (lf < 0 || lf >= end) return head;
    pos = lf + 1;
  }
  let cur: { start: number; name: number; end: number } | null = null;
  let first = true;
  const finish = () => {
    if (!cur) return;
    const colon = raw.indexOf(0x3a, cur.name);
    head.fields.push({
      key: Buffer.from(raw.buffer, raw.byteOffset + cur.start, cur.name - cur.start).toString("latin1"),
      value: decodeFieldValue(raw.subarray(colon + 1, cur.end)),
    });
    head.ranges.push([cur.start, cur.end]);
    cur = null;
  };
  // At a limit, the open field is complete only if the next line does not continue it.
  const stopped = (next: number) => {
    if (next < raw.length && !isWsp(raw[next])) finish();
    return head;
  };
  while (pos < end) {
    let lf = raw.indexOf(LF, pos);
    if (lf < 0 || lf >= end) {
      // The last line counts only if the message itself ends there, not a limit.
      if (end < raw.length) return stopped(pos);
      lf = raw.length;
    }
    const contentEnd = lf > pos && raw[lf - 1] === CR ? lf - 1 : lf;
    const next = Math.min(lf + 1, raw.length);
    if (contentEnd === pos) {
      finish();
      head.headEnd = pos;
      head.bodyStart = next;
      return head;
    }
    const name = isWsp(raw[pos]) ? -1 : nameEnd(raw, pos, contentEnd);
    if (first && name < 0) {
      // Text with no head at all (or a body pasted without its blank line): all of it is body.
      head.headerless = true;
      head.headEnd = pos;
      head.bodyStart = pos;
      return head;
    }
    if (isWsp(raw[pos])) {
      if (cur) cur.end = contentEnd;
    } else {
      finish();
      if (name >= 0) {
        if (head.fields.length >= limits.maxFields) return head; // finish() ran above
        cur = { start: pos, name, end: contentEnd };
      }
      // A line that is neither a field nor a continuation is skipped, with its continuations.
    }
    first = false;
    pos = next;
  }
  if (end < raw.length) return stopped(pos);
  finish();
  head.headEnd = raw.length;
  head.bodyStart = raw.length;
  return head;
}

/** The header fields of a message, as far as the limits allow. Never throws. */
export function readHead(raw: Uint8Array, limits: HeadLimits = FALLBACK_HEAD_LIMITS): HeaderField[] {
  try {
    return scanHead(raw, limits).fields;
  } catch {
    return [];
  }
}
