/**
 * The LLM-safe view of a message: only what the sender wrote this time, as plain text.
 * Quoted history and signatures are noise to a model at best and prompt-injection surface at
 * worst (text the sender never wrote, e.g. hidden HTML), so they are cut by simple, line-based
 * rules; the full text and HTML stay stored for anyone who needs them. All work is linear
 * and the input is capped, because this runs on the main thread.
 */
import { compile } from "html-to-text";

/** Characters of a text part looked at. */
export const MAX_TEXT_INPUT = 1024 * 1024;
/**
 * Characters of HTML converted. Smaller than the text cap because parsing HTML costs far
 * more per character: 256 KiB of dense markup converts in tens of milliseconds.
 */
export const MAX_HTML_INPUT = 256 * 1024;
/**
 * Nesting beyond this is cut off before parsing: htmlparser2 is quadratic in nesting depth
 * (100,000 nested <div>s take a second), and html-to-text drops what is below 256 anyway.
 */
const MAX_HTML_DEPTH = 512;
/** Sum of the nesting depth over all tags: what htmlparser2's stack handling costs. */
const MAX_HTML_WORK = 4_000_000;
/** Reply-header patterns are tried only on lines this short (they are bounded regexes anyway). */
const MAX_HEADER_LINE = 600;

// Only unambiguous ones: "opacity:0" or "font-size:0" would also match "opacity:0.5".
const HIDDEN = ["display:none", "display: none", "visibility:hidden", "visibility: hidden", "mso-hide:all", "mso-hide: all"];

const htmlToText = compile({
  wordwrap: false,
  // We cap the input ourselves: html-to-text's own cap writes a warning to stderr.
  limits: { maxInputLength: undefined, maxDepth: 256, ellipsis: "" },
  selectors: [
    { selector: "a", options: { ignoreHref: true } },
    { selector: "img", format: "skip" },
    { selector: "style", format: "skip" },
    { selector: "script", format: "skip" },
    { selector: "template", format: "skip" },
    { selector: "head", format: "skip" },
    // Quoted history as mail clients mark it up, and their signature blocks.
    { selector: "blockquote", format: "skip" },
    { selector: "div.gmail_quote", format: "skip" },
    { selector: "div.gmail_signature", format: "skip" },
    { selector: "div.yahoo_quoted", format: "skip" },
    { selector: "div.moz-cite-prefix", format: "skip" },
    { selector: "div.moz-signature", format: "skip" },
    { selector: "div#appendonsend", format: "skip" },
    // Text a reader never sees must not reach the model either.
    { selector: "[hidden]", format: "skip" },
    ...HIDDEN.map((h) => ({ selector: `[style*="${h}" i]`, format: "skip" })),
    ...["h1", "h2", "h3", "h4", "h5", "h6"].map((h) => ({ selector: h, options: { uppercase: false } })),
  ],
});

// "On <date>, <name> wrote:" and its translations, as Gmail, Apple Mail, Thunderbird and
// Outlook write it. Each is anchored and bounded, so a line costs O(its length).
const REPLY_HEADERS = [
  /^On\s.{1,400}\swrote:$/,
  /^Le\s.{1,400}\sa\sécrit\s?:$/,
  /^Am\s.{1,400}\sschrieb\s?.{0,400}:$/,
  /^.{1,400}\sschrieb am\s.{1,200}:$/,
  /^El\s.{1,400}\sescribió:$/,
  /^Op\s.{1,400}\sschreef\s?.{0,400}:$/,
  /^Il\s.{1,400}\sha scritto:$/,
  /^Em\s.{1,400}\sescreveu:$/,
];
const ORIGINAL_MESSAGE =
  /^-{2,}\s*(?:Original Message|Ursprüngliche Nachricht|Message d'origine|Mensaje original|Messaggio originale|Oorspronkelijk bericht|Mensagem original)\s*-{2,}$/i;
// Where a forwarded message starts (Gmail, Apple Mail, Outlook and Thunderbird wordings).
const FORWARDED = [
  /^-{2,}\s*(?:Forwarded message|Weitergeleitete Nachricht|Message transféré|Mensaje reenviado|Messaggio inoltrato|Doorgestuurd bericht)\s*-{2,}$/i,
  /^(?:Begin forwarded message|Anfang der weitergeleiteten Nachricht|Début du message réexpédié|Inicio del mensaje reenviado)\s?:$/i,
];
// Outlook's reply header: "From: …" followed within a few lines by "Sent: …" (or "Date:").
const OUTLOOK_FROM = /^\*?(?:From|Von|De|Van|Da)\s?\*?\s?:\s?\*?\s*\S/;
const OUTLOOK_SENT = /^\*?(?:Sent|Date|Gesendet|Datum|Envoyé|Date d'envoi|Enviado|Fecha|Verzonden|Inviato|Data)\s?\*?\s?:/;
const UNDERSCORES = /^_{8,}$/;

const MOBILE_SIGNATURES = [
  /^Sent from my \S.{0,40}$/i,
  /^Sent from (?:Mail|Outlook|Yahoo Mail|Gmail|Proton Mail|ProtonMail)(?: for .{1,40}| on .{1,40})?$/i,
  /^Sent (?:via|with|using) .{1,40}$/i,
  /^Get Outlook for .{1,40}$/i,
  /^Envoyé de mon .{1,40}$/i,
  /^Von meinem .{1,40} gesendet$/i,
  /^Enviado desde mi .{1,40}$/i,
  /^Verzonden vanaf mijn .{1,40}$/i,
  /^Inviato da .{1,40}$/i,
];

const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff\u00ad\u034f]/g;
const SPACES = /[\t\f\v\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g;
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f]/g;

/**
 * The new text of a message, for a model: quoted lines, everything from the first reply
 * header on, and the signature removed; HTML (when there is no text part) rendered to text
 * without images, link targets, quoted blocks or hidden elements. "" when nothing is left.
 */
export function extractText(mail: { text: string | null; html: string | null }): string {
  const source = mail.text?.trim()
    ? mail.text.slice(0, MAX_TEXT_INPUT)
    : mail.html
      ? htmlToText(clipDeepNesting(mail.html.slice(0, MAX_HTML_INPUT)))
      : "";
  const lines = normaliseLines(source.slice(0, MAX_TEXT_INPUT));
  let end = lines.length;
  let forwarded = -1;
  for (let i = 0; i < lines.length; i++) {
    if (isQuoted(lines[i]!)) continue;
    if (FORWARDED.some((re) => re.test(lines[i]!.trim()))) {
      forwarded = end = i;
      break;
    }
    if (isReplyHeader(lines, i)) {
      end = i;
      break;
    }
  }
  // Interleaved replies keep the answers; only the quoted lines go.
  const own = lines.slice(0, end).filter((l) => !isQuoted(l));
  const sig = signatureAt(own);
  // A forwarded message is what the sender is passing on: kept whole, headers and all.
  const passedOn = forwarded >= 0 ? lines.slice(forwarded).filter((l) => !isQuoted(l)) : [];
  return [...(sig >= 0 ? own.slice(0, sig) : own), ...passedOn]
    .map((l) => l.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** One line of at most `max` characters (code points), white space collapsed, "…" when cut. */
export function snippetOf(text: string, max = 200): string {
  if (!(max >= 1)) return "";
  // A preview needs only the head of the text; white space can shrink it, so take plenty.
  const flat = text
    .slice(0, Math.max(4096, max * 8))
    .replace(ZERO_WIDTH, "")
    .replace(/[\s\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+/g, " ")
    .replace(CONTROLS, "")
    .trim();
  const chars = Array.from(flat);
  if (chars.length <= max) return flat;
  let cut = chars.slice(0, max - 1).join("");
  // End on a word boundary when one is near, so the preview does not stop mid-word.
  const space = cut.lastIndexOf(" ");
  if (space >= 0 && cut.length - space <= 30) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}

const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);
const CELL = new Set(["td", "th"]);
const ROW = new Set(["tr", "td", "th"]);
const CLOSES_P = new Set(["address", "article", "aside", "blockquote", "div", "dl", "fieldset", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "main", "nav", "ol", "p", "pre", "section", "table", "ul"]);
/** Start tags that close an open element (a subset of the HTML rules htmlparser2 follows). */
function impliedClose(tag: string, open: string): boolean {
  if (tag === "li" || tag === "option") return open === tag;
  if (tag === "dt" || tag === "dd") return open === "dt" || open === "dd";
  if (CELL.has(tag)) return CELL.has(open);
  if (tag === "tr") return ROW.has(open);
  return open === "p" && CLOSES_P.has(tag);
}

/**
 * Cuts the HTML where its nesting gets deeper than MAX_HTML_DEPTH, or where the parser's
 * stack work would pass MAX_HTML_WORK (many stray end tags deep down), since htmlparser2's
 * per-tag cost is linear in the depth. The depth is tracked roughly the way the
 * parser does (void elements, the usual implied end tags), at constant cost per tag.
 */
function clipDeepNesting(html: string): string {
  const stack: string[] = [];
  let work = 0;
  for (const m of html.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/g)) {
    const tag = m[2]!.toLowerCase();
    // The parser's stack handling costs about the depth per tag, start or end.
    if ((work += stack.length) > MAX_HTML_WORK) return html.slice(0, m.index);
    if (m[1]) {
      // An end tag closes the nearest open element of its name, if one is close by.
      for (let i = stack.length - 1; i >= 0 && i >= stack.length - 8; i--) {
        if (stack[i] === tag) {
          stack.length = i;
          break;
        }
      }
    } else if (!VOID_ELEMENTS.has(tag)) {
      while (stack.length > 0 && impliedClose(tag, stack[stack.length - 1]!)) stack.pop();
      if (stack.push(tag) > MAX_HTML_DEPTH) return html.slice(0, m.index);
    }
  }
  return html;
}

function normaliseLines(text: string): string[] {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(ZERO_WIDTH, "")
    .replace(SPACES, " ")
    .replace(CONTROLS, "")
    .split("\n")
    .map((l) => l.replace(/(\S) {2,}/g, "$1 "));
}

const isQuoted = (line: string) => line.trimStart().startsWith(">");

function isReplyHeader(lines: string[], i: number): boolean {
  const line = lines[i]!.trim();
  if (!line || line.length > MAX_HEADER_LINE) return false;
  // Gmail wraps a long "On … wrote:" over two or three lines.
  let joined = line;
  for (let k = 0; k < 3 && i + k < lines.length; k++) {
    if (k > 0) joined += ` ${lines[i + k]!.trim()}`;
    if (joined.length > MAX_HEADER_LINE) break;
    // Every reply header ends in ":"; most lines are ruled out without a regex.
    if (joined.endsWith(":") && REPLY_HEADERS.some((re) => re.test(joined))) return true;
    if (!/^(?:On|Le|Am|El|Op|Il|Em)\s/.test(line)) break;
  }
  if (line.endsWith("-") && ORIGINAL_MESSAGE.test(line)) return true;
  if (UNDERSCORES.test(line)) return nextNonEmpty(lines, i + 1, (l) => OUTLOOK_FROM.test(l));
  if (OUTLOOK_FROM.test(line)) {
    for (let k = 1; k <= 4 && i + k < lines.length; k++) if (OUTLOOK_SENT.test(lines[i + k]!.trim())) return true;
  }
  return false;
}

/**
 * Where the signature starts, or -1. RFC 3676 section 4.3: "-- " alone on a line marks one
 * wherever it is. Clients that strip trailing white space leave "--", and the mobile footers
 * are phrases a message may also contain, so those count only with at most 10 non-empty
 * lines after them.
 */
function signatureAt(lines: string[]): number {
  const strict = lines.indexOf("-- ");
  let tail = lines.length;
  for (let n = 0; tail > 0 && n <= 10; ) if (lines[--tail]!.trim()) n++;
  for (let i = tail; i < lines.length && (strict < 0 || i < strict); i++) {
    const t = lines[i]!.trim();
    if (lines[i] === "--" || (t.length <= 80 && MOBILE_SIGNATURES.some((re) => re.test(t)))) {
      if (countNonEmpty(lines, i + 1) <= 10) return i;
    }
  }
  return strict;
}

function nextNonEmpty(lines: string[], from: number, test: (line: string) => boolean): boolean {
  for (let k = from; k < lines.length && k < from + 3; k++) {
    const l = lines[k]!.trim();
    if (l) return test(l);
  }
  return false;
}

function countNonEmpty(lines: string[], from: number): number {
  let n = 0;
  for (let k = from; k < lines.length && n <= 10; k++) if (lines[k]!.trim()) n++;
  return n;
}
