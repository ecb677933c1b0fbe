import { simpleParser, type AddressObject, type EmailAddress, type ParsedMail as MpParsed, type SimpleParserOptions } from "mailparser";
import { normalizeAddress } from "../../domain/email.ts";
import type { HeaderField, MailAddress, ParsedAttachment, ParsedMail } from "../types.ts";
import { clean, decodeFieldValue, scanHead } from "./head.ts";
import { MAX_HEAD_BYTES, MAX_PARTS, WORKER_HEAD_LIMITS } from "./limits.ts";
import { repair } from "./repair.ts";
import { cleanBase64, decodeBody, inlineTextOf, splitLeaves, type Leaf } from "./body-ranges.ts";
import { useFastQuotedPrintable } from "./quoted-printable.ts";

// The parser decodes quoted-printable parts with ours: the same bytes in about a quarter of libqp's time.
useFastQuotedPrintable();

const OPTIONS = {
  // Our own work happens elsewhere: extract.ts renders HTML for the model, and nothing
  // downstream wants linkified text or data: URLs, which only cost time on hostile input.
  skipHtmlToText: true,
  skipImageLinks: true,
  skipTextToHtml: true,
  skipTextLinks: true,
  keepCidLinks: true,
  // Passed through to mailsplit's splitter (not in @types/mailparser); see limits.ts.
  maxHeadSize: MAX_HEAD_BYTES,
  maxChildNodes: MAX_PARTS,
} as SimpleParserOptions;

/**
 * Parses in the calling thread, with no budget: the worker pool (index.ts) wraps this. Each
 * attachment whose encoded body is found in `raw` carries its range (ParsedAttachment.raw).
 * Large bodies are cut out of what mailparser reads (see cutBodies): base64 attachments and
 * UTF-8 text and HTML bodies are decoded natively here, and mailparser, which decodes in
 * JavaScript and line by line, parses the rest. `cut: false` parses the whole message with
 * mailparser (the tests compare the two).
 */
export async function parseInline(raw: Uint8Array, { cut = true }: { cut?: boolean } = {}): Promise<ParsedMail> {
  const head = scanHead(raw, WORKER_HEAD_LIMITS);
  const input = repair(raw, head);
  const leaves = splitLeaves(raw);
  // Only an unrepaired message: the cut input must be the raw bytes with bodies left out.
  let mail = cut && input === raw && leaves ? await parseCut(raw, leaves) : null;
  mail ??= await mailparse(input);
  if (leaves) locateAttachments(raw, leaves, mail.attachments);
  // The headers as the sender wrote them, not as repair() may have rewritten them.
  mail.headers = head.fields;
  mail.subject = subjectOf(head.fields);
  return mail;
}

/**
 * mailparser's parse of the message with its large bodies cut out (cutBodies) and put back; null
 * when there is nothing worth cutting, or when mailparser read the cut message otherwise (the
 * caller then parses it whole).
 */
export async function parseCut(raw: Uint8Array, leaves: Leaf[]): Promise<ParsedMail | null> {
  const plan = cutBodies(raw, leaves);
  return plan ? restoreCut(await mailparse(plan.input), plan) : null;
}

const mailparse = async (input: Uint8Array) => toParsedMail(await simpleParser(Buffer.from(input.buffer, input.byteOffset, input.byteLength), OPTIONS));

/** Bodies smaller than this are left to mailparser: cutting them saves nothing. */
const CUT_MIN_BYTES = 1024;
const MARKER_MAGIC = Buffer.from("\0MRCUT", "latin1");

interface CutPlan {
  input: Uint8Array;
  nonce: Buffer;
  /** Leaf indexes of the cut attachments, by marker number. */
  cut: number[];
  /** The cut attachments, decoded (cleanBase64 checks and decodes in one pass), by marker number. */
  decoded: Uint8Array[];
  /** The cut text bodies: the word mailparser reports in place of each, where (text or HTML), and the text itself. */
  texts: { marker: string; in: "text" | "html"; text: string }[];
  leaves: Leaf[];
  raw: Uint8Array;
}

/**
 * Replaces bodies mailparser would only decode with markers it reports in their place:
 * - every large, cleanly base64-encoded non-text leaf: 18 bytes (magic, a nonce of this parse,
 *   the marker's number), base64, which mailparser reports as that attachment's content;
 * - every large inline UTF-8 text or HTML leaf (Leaf.inlineText): a word of letters and digits
 *   (with the nonce), in the leaf's transfer encoding, which mailparser reports as that part's
 *   text; its own text is what mailparser would have made of its bytes (inlineTextOf).
 * Other text, message and multipart parts are never cut. Null when nothing is worth cutting.
 */
function cutBodies(raw: Uint8Array, leaves: Leaf[]): CutPlan | null {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(8)));
  const pieces: Uint8Array[] = [];
  const cut: number[] = [];
  const decoded: Uint8Array[] = [];
  const texts: CutPlan["texts"] = [];
  let at = 0;
  leaves.forEach((leaf, i) => {
    if (leaf.bodyEnd - leaf.bodyStart < CUT_MIN_BYTES) return;
    const body = raw.subarray(leaf.bodyStart, leaf.bodyEnd);
    let replacement: Buffer;
    if (leaf.inlineText) {
      const marker = `MRCUT${nonce.toString("hex")}T${texts.length}X`;
      texts.push({ marker, in: leaf.type === "text/html" ? "html" : "text", text: inlineTextOf(body, leaf.encoding) });
      replacement = Buffer.from(leaf.encoding === "base64" ? Buffer.from(marker, "latin1").toString("base64") : marker, "latin1");
    } else {
      if (leaf.encoding !== "base64") return;
      if (!leaf.type || /^(?:text|message|multipart)\//.test(leaf.type)) return;
      const bytes = cleanBase64(body);
      if (bytes === null) return;
      const marker = Buffer.alloc(18);
      MARKER_MAGIC.copy(marker, 0);
      nonce.copy(marker, 6);
      marker.writeUInt32BE(cut.length, 14);
      replacement = Buffer.from(marker.toString("base64"), "latin1");
      cut.push(i);
      decoded.push(bytes);
    }
    pieces.push(raw.subarray(at, leaf.bodyStart), replacement);
    at = leaf.bodyEnd;
  });
  if (cut.length === 0 && texts.length === 0) return null;
  pieces.push(raw.subarray(at));
  return { input: Buffer.concat(pieces), nonce, cut, decoded, texts, leaves, raw };
}

/**
 * Puts the cut bodies back in place of their markers. Null (parse the whole message instead)
 * unless every attachment marker came back exactly once, as an attachment, and every text
 * marker exactly once, in the text or HTML it was cut from.
 */
function restoreCut(mail: ParsedMail, plan: CutPlan): ParsedMail | null {
  const found = new Set<number>();
  for (const a of mail.attachments) {
    const c = a.content;
    if (c.byteLength !== 18 || !MARKER_MAGIC.equals(c.subarray(0, 6)) || !plan.nonce.equals(c.subarray(6, 14))) continue;
    const n = Buffer.from(c.buffer, c.byteOffset, 18).readUInt32BE(14);
    const leaf = plan.leaves[plan.cut[n] ?? -1];
    if (!leaf || found.has(n)) return null;
    found.add(n);
    // Decoded when cut, into a buffer of its own (ownBytes then keeps it rather than copying).
    a.content = ownBytes(plan.decoded[n]!);
    a.size = a.content.byteLength;
    a.raw = { offset: leaf.bodyStart, length: leaf.bodyEnd - leaf.bodyStart, encoding: "base64" };
  }
  if (found.size !== plan.cut.length) return null;
  if (plan.texts.length === 0) return mail;
  // Each marker holds this parse's nonce, so it shows where mailparser put that part's text
  // and nowhere else; anywhere but once there, and mailparser read the parts otherwise.
  let { text, html } = mail;
  for (const t of plan.texts) {
    const within = t.in === "text" ? text : html;
    const at = within?.indexOf(t.marker) ?? -1;
    if (within == null || at < 0 || within.indexOf(t.marker, at + 1) >= 0) return null;
    // As toParsedMail leaves any text: no NUL (PostgreSQL's text cannot hold it).
    const restored = within.slice(0, at) + noNul(t.text) + within.slice(at + t.marker.length);
    if (t.in === "text") text = restored;
    else html = restored;
  }
  // What toParsedMail makes of an empty text or HTML: none.
  mail.text = text || null;
  mail.html = html || null;
  return mail;
}

/**
 * Gives each attachment not placed yet the range of the first later leaf whose decoded body
 * equals its content; one with no such leaf keeps no range (its bytes are stored apart).
 */
function locateAttachments(raw: Uint8Array, leaves: Leaf[], attachments: ParsedAttachment[]): void {
  const leafAt = new Map(leaves.map((l, i) => [l.bodyStart, i]));
  const used = new Set(attachments.filter((a) => a.raw).map((a) => leafAt.get(a.raw!.offset)));
  const decoded = new Map<number, Uint8Array>();
  let next = 0;
  for (const a of attachments) {
    if (a.raw) {
      next = (leafAt.get(a.raw.offset) ?? -1) + 1;
      continue;
    }
    for (let i = next; i < leaves.length; i++) {
      if (used.has(i)) continue;
      const leaf = leaves[i]!;
      const body = raw.subarray(leaf.bodyStart, leaf.bodyEnd);
      // Decoding only ever shrinks a body: one shorter than the content cannot hold it.
      if (body.byteLength < a.content.byteLength || (leaf.encoding === "identity" && body.byteLength !== a.content.byteLength)) continue;
      let bytes = decoded.get(i);
      if (!bytes) decoded.set(i, (bytes = decodeBody(body, leaf.encoding)));
      if (Buffer.compare(bytes, a.content) !== 0) continue;
      a.raw = { offset: leaf.bodyStart, length: body.byteLength, encoding: leaf.encoding };
      used.add(i);
      next = i + 1;
      break;
    }
  }
}

export function toParsedMail(p: MpParsed): ParsedMail {
  const headers = p.headerLines.map((h) => fieldOf(h.line)).filter((f): f is HeaderField => f !== null);
  return {
    headers,
    messageId: p.messageId ? clean(p.messageId) : null,
    inReplyTo: p.inReplyTo ? clean(p.inReplyTo) : null,
    references: (Array.isArray(p.references) ? p.references : p.references ? [p.references] : []).map(clean).filter(Boolean),
    subject: subjectOf(headers),
    from: first(addresses(p.from)),
    replyTo: addresses(p.replyTo),
    to: addresses(p.to),
    cc: addresses(p.cc),
    date: p.date && !Number.isNaN(p.date.getTime()) ? p.date : null,
    // "" is what mailparser reports for an HTML-only message; null says "no text part".
    text: p.text ? noNul(p.text) : null,
    html: typeof p.html === "string" && p.html ? noNul(p.html) : null,
    attachments: p.attachments.map(
      (a): ParsedAttachment => ({
        filename: a.filename ? clean(a.filename) : null,
        contentType: clean(a.contentType || "application/octet-stream").toLowerCase(),
        contentId: a.contentId ? clean(a.contentId) : null,
        disposition: a.contentDisposition === "attachment" || a.contentDisposition === "inline" ? a.contentDisposition : null,
        content: ownBytes(a.content),
        size: a.content.length,
      }),
    ),
  };
}

// Postgres text cannot hold NUL, and a body full of binary garbage has plenty.
const noNul = (s: string) => (s.includes("\0") ? s.replace(/\0/g, "") : s);

/** mailparser's header lines are binary strings (one char per byte), folds included. */
function fieldOf(line: string): HeaderField | null {
  const colon = line.indexOf(":");
  if (colon <= 0) return null;
  return { key: clean(line.slice(0, colon)), value: decodeFieldValue(Buffer.from(line.slice(colon + 1), "latin1")) };
}

function subjectOf(headers: HeaderField[]): string | null {
  return headers.find((h) => h.key.toLowerCase() === "subject")?.value ?? null;
}

/**
 * The worker transfers attachment buffers to the main thread instead of copying them, so
 * each attachment must own its whole ArrayBuffer (a small Buffer may be a slice of a pool).
 */
function ownBytes(b: Uint8Array): Uint8Array {
  const whole = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer;
  return whole ? new Uint8Array(b.buffer, 0, b.byteLength) : new Uint8Array(b);
}

function addresses(field: AddressObject | AddressObject[] | undefined): MailAddress[] {
  if (!field) return [];
  const out: MailAddress[] = [];
  const visit = (list: EmailAddress[]) => {
    for (const a of list) {
      if (a.group) visit(a.group);
      else {
        const checked = a.address ? normalizeAddress(a.address) : undefined;
        out.push({ address: checked?.ok ? checked.address : "", name: clean(a.name ?? "") });
      }
    }
  };
  for (const obj of Array.isArray(field) ? field : [field]) visit(obj.value);
  return out;
}

const first = <T>(xs: T[]): T | null => xs[0] ?? null;

export type { HeaderField };
