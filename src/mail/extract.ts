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

/** A line that stands for a signature delimiter in HTML rendered to text (private use, never typed). */
const SIGNATURE_MARK = "\ue000--";
/** Outlook's text rendering of the rule above its reply header; <hr> renders as this too. */
const RULE_LINE = "________________________________";

/** Open quote formatters of the conversion running now (it is synchronous, so one counter serves). */
let quoteDepth = 0;

const htmlToText = compile({
  wordwrap: false,
  // We cap the input ourselves: html-to-text's own cap writes a warning to stderr.
  limits: { maxInputLength: undefined, maxDepth: 256, ellipsis: "" },
  formatters: {
    // A signature block becomes a delimiter line and its text, so the line rules cut it and
    // keep it in the removed part instead of dropping it unseen.
    signatureBlock: (elem, walk, builder) => {
      builder.openBlock({ leadingLineBreaks: 2 });
      builder.addLiteral(SIGNATURE_MARK);
      builder.closeBlock({ trailingLineBreaks: 1 });
      walk(elem.children, builder);
    },
    // Quoted history gets "> " once, on the outermost quote: the line rules only need to know a
    // line is quoted, and prefixing at every level costs depth × size on deeply nested quotes.
    quote: (elem, walk, builder) => {
      if (quoteDepth > 0) {
        builder.openBlock({ leadingLineBreaks: 1 });
        walk(elem.children, builder);
        builder.closeBlock({ trailingLineBreaks: 1 });
        return;
      }
      quoteDepth++;
      try {
        builder.openBlock({ leadingLineBreaks: 2, reservedLineLength: 2 });
        walk(elem.children, builder);
        builder.closeBlock({
          trailingLineBreaks: 2,
          blockTransform: (s: string) =>
            s
              .replace(/^\n+|\n+$/g, "")
              .split("\n")
              .map((l) => `> ${l}`)
              .join("\n"),
        });
      } finally {
        quoteDepth--;
      }
    },
    rule: (_elem, _walk, builder) => {
      builder.openBlock({ leadingLineBreaks: 2 });
      builder.addLiteral(RULE_LINE);
      builder.closeBlock({ trailingLineBreaks: 1 });
    },
  },
  selectors: [
    { selector: "a", options: { ignoreHref: true } },
    { selector: "img", format: "skip" },
    { selector: "style", format: "skip" },
    { selector: "script", format: "skip" },
    { selector: "template", format: "skip" },
    { selector: "head", format: "skip" },
    { selector: "hr", format: "rule" },
    // Quoted history as mail clients mark it up: rendered with "> " like a text reply, so one
    // set of line rules splits both and the quote is kept in the removed part.
    { selector: "blockquote", format: "quote" },
    { selector: "div.yahoo_quoted", format: "quote" },
    { selector: "div.gmail_signature", format: "signatureBlock" },
    { selector: "div.moz-signature", format: "signatureBlock" },
    // Text a reader never sees must not reach the model either.
    { selector: "[hidden]", format: "skip" },
    ...HIDDEN.map((h) => ({ selector: `[style*="${h}" i]`, format: "skip" })),
    ...["h1", "h2", "h3", "h4", "h5", "h6"].map((h) => ({ selector: h, options: { uppercase: false } })),
  ],
});

// The verb of "On <date>, <name> wrote:" in the languages mail clients write it in.
const WROTE = String.raw`(?:wrote|writes|has written|schrieb|hat geschrieben|a écrit|a ecrit|escribió|escribio|ha escrito|escreveu|ha scritto|scrisse|schreef|heeft geschreven|skrev|skrevet|kirjoitti|napisał\(a\)|napisała|napisał|napisal\(a\)|napisal|pisze|написал\(а\)|написала|написал|пишет|napsal\(a\)|napsal|napísal|yazdı|írta|a scris|έγραψε|写道|寫道|님이 작성|작성)`;
/** A line (or a few joined lines) that ends in the verb: the usual reply header. */
const WROTE_END = new RegExp(String.raw`(?:^|[\s,>)\]"'])(?:${WROTE}\s?[:：]?\s?(?:-{2,})?|(?:schrieb|skrev|schreef)\s.{1,300}[:：])$`, "i");
// Words a reply header starts with ("On …", "Le …", "Am …", "Den …", "W dniu …").
const LEADS = ["On", "Le", "Am", "El", "Op", "Il", "Il giorno", "Em", "Den", "På", "W dniu", "Dnia", "Dne", "Dňa", "Kun", "Ar", "În", "Στις", "Vào", "---- On", "----- On"];
const LEAD_START = new RegExp(`^(?:${LEADS.map(escapeRe).join("|")})\\s`);
const LEAD_INSIDE = new RegExp(`(?:^|\\s|-{2,})(?:${LEADS.filter((l) => !l.startsWith("-")).map(escapeRe).join("|")})\\s`, "g");
// A date, a time of day, or an address in a header line (a sentence ending in "wrote:" has none).
const HAS_TIME = /\d{1,2}[:.h]\d{2}(?!\d)/;
const HAS_DATE = /\d{1,4}[-/.年년]\s?\d{1,2}[-/.月월]\s?\d{1,4}|\d{4}年|\b\d{1,2}\.?\s\p{L}{3,}\.?\s\d{4}\b|\b\p{L}{3,}\.?\s\d{1,2},?\s\d{4}\b/u;
const DIGIT = /\d/;
const COLON_OR_RULE = /[:：_=-]/;
const HAS_ADDRESS = /[^\s<>()[\]@]+@[^\s<>()[\]@]+\.[^\s<>()[\]@]+/;
const ENDS_WITH_ADDRESS = /(?:[>)\]]|@[^\s@]+\.[a-z]{2,})\s?[:：]$/i;

const ORIGINAL_MESSAGE = new RegExp(
  String.raw`^[-=_*\s]{0,4}-{2,}\s*(?:Original Message|Original message|Reply Message|Reply message|Ursprüngliche Nachricht|Original-Nachricht|Originalnachricht|Message d'origine|Message original|Mensaje original|Messaggio originale|Messaggio originale|Oorspronkelijk bericht|Origineel bericht|Mensagem original|Oprindelig meddelelse|Original meddelelse|Opprinnelig melding|Originalmelding|Ursprungligt meddelande|Originalmeddelande|Alkuperäinen viesti|Oryginalna wiadomość|Wiadomość oryginalna|Исходное сообщение|Původní zpráva|Pôvodná správa|Eredeti üzenet|Orijinal mesaj|Mesaj original|原始邮件|原始郵件|元のメッセージ|원본 메시지)\s*-{2,}[-=_*\s]{0,4}$`,
  "i",
);
// Where a forwarded message starts (Gmail, Apple Mail, Outlook and Thunderbird wordings).
const FORWARDED = [
  /^-{2,}\s*(?:Forwarded message|Forwarded Message|Weitergeleitete Nachricht|Message transféré|Mensaje reenviado|Messaggio inoltrato|Doorgestuurd bericht|Mensagem encaminhada|Videresendt meddelelse|Videresendt melding|Vidarebefordrat meddelande|Välitetty viesti|Przekazana wiadomość|Wiadomość przekazana|Пересылаемое сообщение|Přeposlaná zpráva|Továbbított üzenet|转发的邮件|轉寄的郵件|転送されたメッセージ)\s*-{2,}$/i,
  /^(?:Begin forwarded message|Anfang der weitergeleiteten Nachricht|Début du message réexpédié|Inicio del mensaje reenviado|Início da mensagem reencaminhada|Inizio messaggio inoltrato|Begin doorgestuurd bericht|Start på videresendt besked|Vidarebefordrat brev)\s?:$/i,
];
// The fields of an Outlook-style reply header ("From: … / Sent: … / To: … / Subject: …"), localised.
const FIELD_FROM = ["From", "Von", "De", "Van", "Da", "Fra", "Från", "Od", "От", "Lähettäjä", "Feladó", "Kimden", "Afzender", "Remitente", "Expéditeur", "Mittente", "Nadawca", "Отправитель", "De la", "差出人", "发件人", "寄件者", "寄件人", "보낸 사람"];
const FIELD_SENT = ["Sent", "Date", "Gesendet", "Datum", "Envoyé", "Date d'envoi", "Enviado", "Enviada", "Enviado el", "Fecha", "Verzonden", "Verstuurd", "Inviato", "Data", "Sendt", "Skickat", "Wysłano", "Wysłane", "Отправлено", "Дата", "Lähetetty", "Päivämäärä", "Elküldve", "Dátum", "Gönderildi", "Tarih", "Odesláno", "Trimis", "送信日時", "日付", "发送时间", "發送時間", "日期", "傳送時間", "보낸 날짜"];
const FIELD_TO = ["To", "An", "À", "A", "Para", "Aan", "Til", "Till", "Do", "Кому", "Vastaanottaja", "Címzett", "Kime", "Komu", "Către", "宛先", "收件人", "收件者", "받는 사람", "Cc", "CC", "Kopie", "Kopia", "Копия", "Kopio"];
const FIELD_SUBJECT = ["Subject", "Betreff", "Objet", "Asunto", "Assunto", "Oggetto", "Onderwerp", "Emne", "Ämne", "Temat", "Тема", "Aihe", "Tárgy", "Konu", "Předmět", "Predmet", "Subiect", "件名", "主题", "主旨", "제목"];
const fieldRe = (names: string[]) => new RegExp(String.raw`^[*_]{0,2}(?:${names.map(escapeRe).join("|")})[*_]{0,2}\s?[*_]{0,2}\s?[:：][*_]{0,2}(?:\s|$)`, "i");
const IS_FROM = fieldRe(FIELD_FROM);
const IS_SENT = fieldRe(FIELD_SENT);
const IS_TO = fieldRe(FIELD_TO);
const IS_SUBJECT = fieldRe(FIELD_SUBJECT);
const isField = (l: string) => IS_FROM.test(l) || IS_SENT.test(l) || IS_TO.test(l) || IS_SUBJECT.test(l);
// All four fields run together on one line, as some HTML renders them.
const ONE_LINE_FIELDS = new RegExp(String.raw`^[*_]{0,2}(?:${FIELD_FROM.map(escapeRe).join("|")})[*_]{0,2}\s?[:：].{1,300}\s(?:${FIELD_SENT.map(escapeRe).join("|")})[*_]{0,2}\s?[:：]`, "i");
const RULE = /^(?:_{8,}|-{8,}|={8,})$/;

const MOBILE_SIGNATURES = [
  /^Sent from my \S.{0,40}$/i,
  /^Sent from (?:Mail|Outlook|Yahoo Mail|Gmail|Proton Mail|ProtonMail|AOL Mobile Mail|Samsung Email|my Galaxy)(?: for .{1,40}| on .{1,40})?\.?$/i,
  /^Sent (?:via|with|using) .{1,40}$/i,
  /^Get Outlook for .{1,40}$/i,
  /^Envoyé (?:de|depuis) mon .{1,40}$/i,
  /^Von meinem .{1,40} gesendet\.?$/i,
  /^Gesendet (?:von|mit) .{1,40}$/i,
  /^Enviado (?:desde|do|de) (?:mi|meu|o meu) .{1,40}$/i,
  /^Verzonden (?:vanaf|met) .{1,40}$/i,
  /^Verstuurd vanaf (?:mijn )?.{1,40}$/i,
  /^Inviato da .{1,40}$/i,
  /^(?:Sendt|Skickat|Skickad) (?:fra|från) (?:min|mitt|min nya) .{1,40}$/i,
  /^Lähetetty .{1,40}(?:sta|stä|lta|ltä)$/i,
  /^(?:Wysłane|Wysłano) (?:z|ze) .{1,40}$/i,
  /^Отправлено (?:с|из) .{1,40}$/i,
  /^\S{1,20}から送信$/,
  /^发自我的.{1,20}$|^從我的.{1,20}傳送$/,
];

const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff\u00ad\u034f]/g;
const SPACES = /[\t\f\v\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g;
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f]/g;

/** A message split for a model: what the sender wrote now, and what was left out of it. */
export interface ReplySplit {
  /** The new text: quoted lines, quoted history and the signature removed. */
  text: string;
  /** What `text` leaves out: reply headers with the quoted lines and history, then the signature. */
  quoted: string;
}

/**
 * The new text of a message, for a model: quoted lines, everything from the first reply
 * header on, and the signature removed; HTML (when there is no text part) rendered to text
 * without images, link targets, quoted blocks or hidden elements. "" when nothing is left.
 */
export function extractText(mail: { text: string | null; html: string | null }): string {
  return splitReply(mail).text;
}

/**
 * extractText() and what it removed. Lines are classified in one pass: a reply header (in one
 * of many languages and client styles, see isReplyHeader) followed by ">" lines starts a
 * quote that ends with them, so answers written below (bottom posting) or between quoted
 * lines stay, in order; a header followed by unquoted history (Outlook) ends the new text.
 */
export function splitReply(mail: { text: string | null; html: string | null }): ReplySplit {
  const fromText = !!mail.text?.trim();
  const input = fromText ? mail.text! : (mail.html ?? "");
  if (lastSplit?.fromText === fromText && lastSplit.input === input) return lastSplit.split;
  const split = splitFresh(mail);
  lastSplit = { fromText, input, split };
  return split;
}

/**
 * The last split, kept for the same body split again: the parser's worker splits a message's
 * body for extracted_text, and the triage reads the same body's new text, a tenth of the
 * worker's time for an 8 KiB text.
 */
let lastSplit: { fromText: boolean; input: string; split: ReplySplit } | null = null;

/** The split of `text` (a plain-text body) when it is the one kept, else undefined: nothing is split. */
export function keptSplit(text: string): ReplySplit | undefined {
  return lastSplit?.fromText && lastSplit.input === text ? lastSplit.split : undefined;
}

function splitFresh(mail: { text: string | null; html: string | null }): ReplySplit {
  const fromHtml = !mail.text?.trim() && !!mail.html;
  const source = mail.text?.trim()
    ? mail.text.slice(0, MAX_TEXT_INPUT)
    : mail.html
      ? htmlToText(clipDeepNesting(mail.html.slice(0, MAX_HTML_INPUT)))
      : "";
  const lines = normaliseLines(source.slice(0, MAX_TEXT_INPUT));
  const own: string[] = [];
  const removed: string[] = [];
  let passedOn: string[] = [];
  let historyAt = -1;
  let topHeader = false;
  let sawHeader = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (isQuoted(line)) {
      removed.push(line);
      continue;
    }
    const t = line.trim();
    if (t && FORWARDED.some((re) => re.test(t))) {
      // A forwarded message is what the sender is passing on: kept whole, headers and all.
      passedOn = lines.slice(i).filter((l) => !isQuoted(l));
      break;
    }
    const header = t ? replyHeaderAt(lines, i) : null;
    if (!header) {
      own.push(line);
      continue;
    }
    sawHeader = true;
    if (header.before) own.push(header.before);
    const after = nextNonEmptyIndex(lines, i + header.span);
    if (after >= 0 && isQuoted(lines[after]!)) {
      // The quote is the ">" lines that follow; text after them is an answer.
      removed.push(header.before ? t.slice(header.before.length).trim() : line, ...lines.slice(i + 1, i + header.span));
      i += header.span - 1;
      continue;
    }
    topHeader = !own.some((l) => l.trim());
    historyAt = i;
    removed.push(header.before ? t.slice(header.before.length).trim() : line, ...lines.slice(i + 1));
    break;
  }
  const sig = signatureAt(own);
  let kept = sig >= 0 ? own.slice(0, sig) : own;
  const signature = sig >= 0 ? own.slice(sig).filter((l) => l !== SIGNATURE_MARK) : [];
  let quotedLines = [...removed, ...signature];
  // History with nothing above it and no quote marks is a message passed on without a
  // forward marker (or a header we mistook): the text is all there is, so it stays.
  if (historyAt >= 0 && topHeader && passedOn.length === 0 && !removed.some(isQuoted)) {
    kept = [...kept, ...lines.slice(historyAt)];
    quotedLines = signature;
  }
  const text = tidy([...kept, ...passedOn].filter((l) => l !== SIGNATURE_MARK));
  // HTML that is all <blockquote> with no reply header anywhere uses the element for layout
  // (a pull quote, an indented letter), not for history: its text is the message.
  if (!text && fromHtml && !sawHeader && removed.length > 0) {
    return { text: tidy(removed.map((l) => l.replace(/^\s*>\s?/, ""))), quoted: tidy(signature) };
  }
  return { text, quoted: tidy(quotedLines) };
}

function tidy(lines: string[]): string {
  return lines
    .map((l) => l.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** One line of at most `max` characters (code points), white space collapsed, "…" when cut. */
export function snippetOf(text: string, max = 200): string {
  if (!(max >= 1)) return "";
  // A preview needs only the head of the text; white space can shrink it, so take plenty.
  const flat = text
    .slice(0, Math.max(4096, max * 8))
    .replace(ZERO_WIDTH, "")
    // \s covers the Unicode spaces; single spaces are left alone rather than replaced one by one.
    .replace(/\s{2,}|[^\S ]/g, " ")
    .replace(CONTROLS, "")
    .trim();
  // Counted in code points (as Array.from splits a string), without splitting the whole head.
  if (afterCodePoints(flat, max) >= flat.length) return flat;
  let cut = flat.slice(0, afterCodePoints(flat, max - 1));
  // End on a word boundary when one is near, so the preview does not stop mid-word.
  const space = cut.lastIndexOf(" ");
  if (space >= 0 && cut.length - space <= 30) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}

/** Where the first `count` code points of `s` end (a surrogate pair is one, a lone surrogate too). */
function afterCodePoints(s: string, count: number): number {
  let i = 0;
  for (let n = 0; n < count && i < s.length; n++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return i;
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
    .map((l) => (l.includes("  ") ? l.replace(DOUBLE_SPACES, "$1 ") : l));
}
/** Runs of spaces after text, made one; most lines have none, and looking for two spaces costs less than the pattern. */
const DOUBLE_SPACES = /(\S) {2,}/g;

const isQuoted = (line: string) => line.trimStart().startsWith(">");

/**
 * The reply header starting at line i, over `span` lines, with the reply text written before
 * it on the same line (`before`), or null. Most lines are ruled out by their last character
 * or their first word before any regex runs; every pattern is bounded.
 */
function replyHeaderAt(lines: string[], i: number): { span: number; before: string } | null {
  const line = lines[i]!.trim();
  if (line.length > MAX_HEADER_LINE) return null;
  const quotedNext = () => {
    const k = nextNonEmptyIndex(lines, i + 1);
    return k >= 0 && isQuoted(lines[k]!);
  };
  // "On … wrote:", wrapped by Gmail over up to three lines.
  let joined = line;
  for (let k = 0; k < 3 && i + k < lines.length; k++) {
    if (k > 0) {
      const next = lines[i + k]!.trim();
      if (!next || isQuoted(next)) break;
      joined += ` ${next}`;
    }
    if (joined.length > MAX_HEADER_LINE) break;
    if (endsWithWrote(joined)) {
      const before = textBeforeHeader(joined);
      if (before === null) break;
      const head = joined.slice(before.length);
      if (LEAD_START.test(head.trim()) || HAS_TIME.test(head) || HAS_DATE.test(head) || HAS_ADDRESS.test(head) || (k === 0 && quotedNext())) {
        return { span: k + 1, before };
      }
      break;
    }
    if (k === 0 && !(LEAD_START.test(line) || (DIGIT.test(line) && (HAS_TIME.test(line) || HAS_DATE.test(line))))) break;
  }
  // Every rule below needs a colon or a dash in the line.
  if (!COLON_OR_RULE.test(line)) return null;
  // A date-only header: "2024/01/08 9:14 Bob <bob@example.com>:" (Gmail in several languages).
  if ((line.endsWith(":") || line.endsWith("：")) && (HAS_TIME.test(line) || HAS_DATE.test(line))) {
    if ((ENDS_WITH_ADDRESS.test(line) && HAS_ADDRESS.test(line)) || (line.length <= 200 && quotedNext())) return { span: 1, before: textBeforeHeader(line) ?? "" };
  }
  if (line.endsWith("-") && ORIGINAL_MESSAGE.test(line)) return { span: 1, before: "" };
  if (RULE.test(line)) {
    const k = nextNonEmptyIndex(lines, i + 1);
    return k >= 0 && k <= i + 3 && (isField(lines[k]!.trim()) || ORIGINAL_MESSAGE.test(lines[k]!.trim())) ? { span: 1, before: "" } : null;
  }
  if (ONE_LINE_FIELDS.test(line)) return { span: 1, before: "" };
  if (isField(line)) return fieldBlock(lines, i) ? { span: 1, before: "" } : null;
  return null;
}

/** WROTE_END on the end of the line only: the header's verb and name sit in its last few hundred characters. */
const endsWithWrote = (s: string) => {
  // Most lines end in neither a colon, a dash nor a verb: a look at the last characters rules them out.
  const last = s[s.length - 1];
  if (last !== ":" && last !== "：" && last !== "-" && !VERB_TAIL.test(s.length > 24 ? s.slice(-24) : s)) return false;
  return WROTE_END.test(s.length > 320 ? s.slice(-320) : s);
};
const VERB_TAIL = new RegExp(String.raw`${WROTE}$`, "i");

/**
 * The text before a header that shares its line ("Sounds good. On Mon, … wrote:"), "" when
 * the header starts the line, null when no header start is found in it.
 */
function textBeforeHeader(joined: string): string | null {
  if (LEAD_START.test(joined)) return "";
  LEAD_INSIDE.lastIndex = 0;
  let tries = 0;
  for (const m of joined.matchAll(LEAD_INSIDE)) {
    // A few candidates are plenty for a real line; a line made of lead words must stay linear.
    if (++tries > 4) break;
    const at = m.index + (m[0].length - m[0].trimStart().length);
    const head = joined.slice(at);
    if (!HAS_TIME.test(head) && !HAS_DATE.test(head) && !HAS_ADDRESS.test(head)) continue;
    return joined.slice(0, at).replace(/[\s-]+$/, "");
  }
  // No lead word: the header is the whole line ("Bob <bob@example.com> napisał(a):").
  return "";
}

/** An Outlook-style block: From (or Date) and at least one more field in the next lines. */
function fieldBlock(lines: string[], i: number): boolean {
  const first = lines[i]!.trim();
  let from = IS_FROM.test(first);
  let sent = IS_SENT.test(first);
  let other = IS_TO.test(first) || IS_SUBJECT.test(first);
  let fields = 1;
  for (let k = i + 1; k < lines.length && k <= i + 6; k++) {
    const l = lines[k]!.trim();
    if (!l) {
      if (fields >= 2) break;
      continue;
    }
    if (!isField(l)) {
      // A wrapped value (a long To: list) continues the block.
      if (l.length < 200 && fields >= 1 && !/[.!?]$/.test(l)) continue;
      break;
    }
    fields++;
    from ||= IS_FROM.test(l);
    sent ||= IS_SENT.test(l);
    other ||= IS_TO.test(l) || IS_SUBJECT.test(l);
  }
  return from && (sent || (other && fields >= 3));
}

/**
 * Where the signature starts, or -1. RFC 3676 section 4.3: "-- " alone on a line marks one
 * wherever it is. Clients that strip trailing white space leave "--", and the mobile footers
 * are phrases a message may also contain, so those count only with at most 10 non-empty
 * lines after them.
 */
function signatureAt(lines: string[]): number {
  const strict = lines.findIndex((l) => l === "-- " || l === SIGNATURE_MARK);
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

function nextNonEmptyIndex(lines: string[], from: number): number {
  for (let k = from; k < lines.length && k < from + 4; k++) if (lines[k]!.trim()) return k;
  return -1;
}

function countNonEmpty(lines: string[], from: number): number {
  let n = 0;
  for (let k = from; k < lines.length && n <= 10; k++) if (lines[k]!.trim()) n++;
  return n;
}
