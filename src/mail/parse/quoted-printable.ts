/**
 * Quoted-printable decoding, byte for byte what the parser's own decoder gives (libqp 2.1.x,
 * as mailsplit runs it on a part's bytes), in one loop over bytes instead of its two regular
 * expressions over a string and a loop of `charAt`, `substr` and a regex test per character:
 * about a tenth of the parse of a message whose 20 KiB text is quoted-printable, as most mail
 * clients send text.
 *
 * libqp reads the bytes as latin1 (one character per byte) and then:
 * 1. drops each run of tabs and spaces that ends a line (`/[\t ]+$/gm`: followed by CR, LF or
 *    the end of the input);
 * 2. drops each soft line break, `=` followed by CRLF or LF, and an `=` that ends the input
 *    (`/=(?:\r?\n|$)/g`, on what step 1 left: `= \r\n` is a soft break too);
 * 3. turns each `=` followed by two hex digits (either case) into that byte, left to right, on
 *    what step 2 left (so `=4=\r\n1` is `A`); every other byte stays as it is.
 * Step 1 changes nothing in most bodies (encoders write a blank that ends a line as `=20`), so
 * native scans look for a blank before a line break first, and it runs only when there is one.
 * Steps 2 and 3 run as one loop: step 3 reads each byte step 2 lets through as it comes.
 */
import { createRequire } from "node:module";

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const EQUALS = 0x3d;

/** The decoded bytes of a quoted-printable body (a new buffer; `input` is left alone). */
export function decodeQuotedPrintable(input: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(input.byteLength);
  if (!endsLineWithBlank(input)) return out.subarray(0, softBreaksAndEscapes(input, input.length, out));
  // Step 1 into `out`, and the rest in place: each step writes no further than it has read.
  return out.subarray(0, softBreaksAndEscapes(out, dropTrailingBlanks(input, out), out));
}

const BLANK_BEFORE_BREAK = [" \r", " \n", "\t\r", "\t\n"].map((s) => Buffer.from(s, "latin1"));

/** Whether step 1 would drop anything: a blank before a line break, or at the very end. */
function endsLineWithBlank(input: Uint8Array): boolean {
  const last = input[input.length - 1];
  if (last === SPACE || last === TAB) return true;
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  return BLANK_BEFORE_BREAK.some((pair) => bytes.includes(pair));
}

/** Step 1: `input` into `out` without the blanks that end a line; the length written. */
function dropTrailingBlanks(input: Uint8Array, out: Uint8Array): number {
  const len = input.length;
  let w = 0;
  for (let i = 0; i < len; ) {
    const c = input[i]!;
    if (c !== SPACE && c !== TAB) {
      out[w++] = c;
      i++;
      continue;
    }
    let end = i + 1;
    while (end < len && (input[end] === SPACE || input[end] === TAB)) end++;
    // A run the line goes on after is kept whole.
    if (end < len && input[end] !== LF && input[end] !== CR) for (let k = i; k < end; k++) out[w++] = input[k]!;
    i = end;
  }
  return w;
}

/**
 * Steps 2 and 3 on `src[0, len)` into `out` (which may be `src`: it never writes past what it
 * has read); the length written. Step 3 is a small machine over the bytes step 2 lets through:
 * after an `=` (state 1), and after an `=` and a hex digit (state 2, the digit in `hi`).
 */
function softBreaksAndEscapes(src: Uint8Array, len: number, out: Uint8Array): number {
  let w = 0;
  let state = 0;
  let hi = 0;
  let i = 0;
  while (i < len) {
    const c = src[i]!;
    // Step 2: a soft line break lets nothing through, and an `=` that ends the input ends it.
    if (c === EQUALS) {
      if (i + 1 === len) break;
      const next = src[i + 1];
      if (next === LF) {
        i += 2;
        continue;
      }
      if (next === CR && i + 2 < len && src[i + 2] === LF) {
        i += 3;
        continue;
      }
    }
    i++;
    // Step 3 on `c`.
    if (state === 0) {
      if (c === EQUALS) state = 1;
      else out[w++] = c;
    } else if (state === 1) {
      if (HEX_VALUE[c]! >= 0) {
        hi = c;
        state = 2;
      } else {
        // An `=` that escapes nothing stays; the byte after it starts afresh.
        out[w++] = EQUALS;
        if (c === EQUALS) state = 1;
        else {
          out[w++] = c;
          state = 0;
        }
      }
    } else {
      const lo = HEX_VALUE[c]!;
      if (lo >= 0) {
        out[w++] = (HEX_VALUE[hi]! << 4) | lo;
        state = 0;
      } else {
        out[w++] = EQUALS;
        out[w++] = hi;
        if (c === EQUALS) state = 1;
        else {
          out[w++] = c;
          state = 0;
        }
      }
    }
  }
  // An escape the input ends in the middle of stays as written.
  if (state === 1) out[w++] = EQUALS;
  else if (state === 2) {
    out[w++] = EQUALS;
    out[w++] = hi;
  }
  return w;
}

/** Each byte's value as a hex digit, -1 for a byte that is not one. */
const HEX_VALUE = new Int8Array(256).fill(-1);
for (let d = 0; d < 10; d++) HEX_VALUE[0x30 + d] = d;
for (let d = 0; d < 6; d++) HEX_VALUE[0x41 + d] = HEX_VALUE[0x61 + d] = 10 + d;

/** libqp as the parser's splitter loads it: its Decoder stream and its own `decode`. */
interface Libqp {
  decode(input: Buffer): Buffer;
  Decoder: { prototype: { _flush(this: QpDecoderState, done: () => void): void } };
}
interface QpDecoderState {
  inputBytes: number;
  outputBytes: number;
  qpChunks: Buffer[];
  push(chunk: Buffer): boolean;
}

/** The copy of libqp that mailparser's splitter (mailsplit) requires, whichever one it is. */
export function parserLibqp(): Libqp {
  const fromHere = createRequire(import.meta.url);
  const fromMailparser = createRequire(fromHere.resolve("mailparser"));
  const fromSplitter = createRequire(fromMailparser.resolve("@zone-eu/mailsplit"));
  return fromSplitter("libqp") as Libqp;
}

let installed = false;

/**
 * Makes the parser's quoted-printable decoder use decodeQuotedPrintable: its stream gathers a
 * part's bytes and decodes them at the end (`_flush`), which is the step replaced. Done once per
 * thread, by the module that runs the parser (convert.ts). Returns whether it is in place: a
 * libqp that cannot be found, or whose Decoder is not the shape this replaces, is left as it is
 * (test/quoted-printable fails then, so an upgrade that changes it is noticed; the service
 * still starts, with the slower decoder).
 */
export function useFastQuotedPrintable(given?: Libqp): boolean {
  if (installed) return true;
  let libqp = given;
  try {
    libqp ??= parserLibqp();
  } catch {
    return false; // a parser that no longer loads libqp through mailsplit: its own decoder stays
  }
  const proto = libqp.Decoder?.prototype;
  if (typeof proto?._flush !== "function" || !/qpChunks/.test(String(proto._flush))) return false;
  proto._flush = function (this: QpDecoderState, done: () => void) {
    if (this.inputBytes) {
      const decoded = decodeQuotedPrintable(this.qpChunks.length === 1 ? this.qpChunks[0]! : Buffer.concat(this.qpChunks, this.inputBytes));
      this.outputBytes += decoded.length;
      this.push(decoded);
    }
    done();
  };
  installed = true;
  return true;
}
