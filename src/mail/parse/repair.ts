/**
 * Rewrites of the top-level Content-Type that make mailparser read what a person would
 * read, for three common kinds of broken mail. Only the input handed to mailparser changes:
 * the headers reported are read from the original bytes.
 *
 * - no head at all: the whole message is body;
 * - a multipart without a boundary parameter, or whose boundary never occurs: the first
 *   delimiter-looking line is taken as the boundary, and without one the body is plain text;
 * - an unencoded text body with 8-bit bytes that are not valid UTF-8, and no charset, one
 *   nobody knows ("unknown-8bit", "x-foo"), or a UTF-8/ASCII the bytes contradict: read as
 *   Windows-1252, since mailparser would decode it as UTF-8 and turn each such byte into U+FFFD.
 *
 * Only single-part bodies without transfer encoding are checked for the charset; a legacy
 * body inside a multipart, or in quoted-printable/base64, still decodes as UTF-8 with U+FFFD.
 */
import { isUtf8 } from "node:buffer";
import type { Head } from "./head.ts";
import { knowsCharset } from "./words.ts";

/** Delimiter lines are looked for only near the start of the body. */
const GUESS_WINDOW = 64 * 1024;
// RFC 2046 bchars, so the guess can be written back quoted.
const BCHARS = /^[0-9A-Za-z'()+_,\-./:=?]{1,70}$/;

const latin1 = (s: string) => Buffer.from(s, "latin1");

function param(value: string, name: string): string | null {
  const m = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^\\s;]+))`, "i").exec(value);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

function guessBoundary(body: Uint8Array): string | null {
  const text = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, GUESS_WINDOW)).toString("latin1");
  for (const m of text.matchAll(/^--(\S+?)[ \t]*\r?$/gm)) {
    const b = m[1]!.endsWith("--") ? m[1]!.slice(0, -2) : m[1]!;
    if (BCHARS.test(b) && /[^-]/.test(b)) return b;
  }
  return null;
}

function hasDelimiter(body: Uint8Array, boundary: string): boolean {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).includes(latin1(`--${boundary}`));
}

// Pure ASCII is valid UTF-8, so this is true only for 8-bit bytes in some legacy charset.
const notUtf8 = (body: Uint8Array) => !isUtf8(body);

/** The Content-Type to parse with instead of the one written, or null to keep it. */
function newContentType(head: Head, body: Uint8Array): string | null {
  const i = head.fields.findIndex((f) => f.key.toLowerCase() === "content-type");
  const written = i >= 0 ? head.fields[i]!.value : "";
  const type = written.split(";")[0]!.trim().toLowerCase();
  if (type.startsWith("multipart/")) {
    const boundary = param(written, "boundary");
    if (boundary && hasDelimiter(body, boundary)) return null;
    const guess = guessBoundary(body);
    if (guess) return `${type}; boundary="${guess}"`;
    return notUtf8(body) ? "text/plain; charset=windows-1252" : "text/plain; charset=utf-8";
  }
  if (type && !type.startsWith("text/")) return null;
  const charset = param(written, "charset");
  // A declared UTF-8 or ASCII that the bytes contradict is the same mistake as none at all.
  if (charset && knowsCharset(charset) && !/^(?:utf-?8|(?:us-)?ascii)$/i.test(charset)) return null;
  const cte = (head.fields.find((f) => f.key.toLowerCase() === "content-transfer-encoding")?.value ?? "").toLowerCase();
  if (!["", "7bit", "8bit", "binary"].includes(cte)) return null;
  if (!notUtf8(body)) return null;
  if (!written) return "text/plain; charset=windows-1252";
  const rest = written.split(";").slice(1).filter((p) => !/^\s*charset\s*=/i.test(p));
  return [type || "text/plain", ...rest.map((p) => p.trim()), "charset=windows-1252"].join("; ");
}

/** The bytes to hand to mailparser: `raw` itself when nothing needs repair. */
export function repair(raw: Uint8Array, head: Head): Uint8Array {
  if (head.bodyStart < 0 || head.bodyStart >= raw.length) return raw;
  const body = raw.subarray(head.bodyStart);
  const contentType = newContentType(head, body);
  if (head.headerless) {
    return Buffer.concat([latin1(contentType ? `Content-Type: ${contentType}\r\n\r\n` : "\r\n"), body]);
  }
  if (!contentType) return raw;
  // Drop every written Content-Type field, line breaks included, and put ours last in the head.
  const pieces: Uint8Array[] = [];
  let at = 0;
  head.fields.forEach((f, i) => {
    if (f.key.toLowerCase() !== "content-type") return;
    const [start, end] = head.ranges[i]!;
    let e = end;
    if (raw[e] === 0x0d) e++;
    if (raw[e] === 0x0a) e++;
    pieces.push(raw.subarray(at, start));
    at = e;
  });
  pieces.push(raw.subarray(at, head.headEnd), latin1(`Content-Type: ${contentType}\r\n`), raw.subarray(head.headEnd));
  return Buffer.concat(pieces);
}
