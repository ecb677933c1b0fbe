import { simpleParser, type AddressObject, type EmailAddress, type ParsedMail as MpParsed, type SimpleParserOptions } from "mailparser";
import { normalizeAddress } from "../../domain/email.ts";
import type { HeaderField, MailAddress, ParsedAttachment, ParsedMail } from "../types.ts";
import { clean, decodeFieldValue, scanHead } from "./head.ts";
import { MAX_HEAD_BYTES, MAX_PARTS, WORKER_HEAD_LIMITS } from "./limits.ts";
import { repair } from "./repair.ts";

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

/** Parses in the calling thread, with no budget: the worker pool (index.ts) wraps this. */
export async function parseInline(raw: Uint8Array): Promise<ParsedMail> {
  const head = scanHead(raw, WORKER_HEAD_LIMITS);
  const input = repair(raw, head);
  const parsed = await simpleParser(Buffer.from(input.buffer, input.byteOffset, input.byteLength), OPTIONS);
  const mail = toParsedMail(parsed);
  // The headers as the sender wrote them, not as repair() may have rewritten them.
  mail.headers = head.fields;
  mail.subject = subjectOf(head.fields);
  return mail;
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
function ownBytes(b: Buffer): Uint8Array {
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
