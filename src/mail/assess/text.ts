/**
 * Budgets and text normalisation shared by every matcher. Everything a matcher reads went
 * through here, so the caps below bound the work whatever the message size.
 */

/** Text or HTML scanned per body part: a phishing lure or an injection sits near the top. */
export const MAX_SCAN_CHARS = 512 * 1024;
/** Links looked at (anchors first, then URLs in plain text). */
export const MAX_LINKS = 500;
/** Per text attachment read for injection: an agent may open it, a human rarely reads it all. */
export const MAX_ATTACHMENT_TEXT = 64 * 1024;
/** Attachments looked at (names, types, first bytes). */
export const MAX_ATTACHMENTS = 100;
/** Header values are short in real mail; a 1 MB Subject is an attack on us, not a subject. */
export const MAX_HEADER_CHARS = 8 * 1024;

export const cap = (s: string | null | undefined, max = MAX_SCAN_CHARS): string => (s ? (s.length > max ? s.slice(0, max) : s) : "");

// Characters that render as nothing. Stripped before matching so "ig\u200bnore previous
// instructions" still reads as what a model sees once it tokenises the text.
const INVISIBLE = /[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff]/g;
// A zero-width character between two Latin letters: padding between words is common in
// newsletter preheaders, inside a word it only serves to split it for filters. Latin only,
// as ZWJ/ZWNJ are ordinary spelling in Indic and Persian scripts.
const ZW_IN_WORD = /[a-z][\u200b-\u200d\u2060\ufeff]+[a-z]/gi;
const ZW_CHAR = /[\u200b-\u200d\u2060\ufeff]/;
// Subdivision flags (England, Scotland, Wales) are the one legitimate use of tag characters.
const TAG_FLAG = /\u{1f3f4}[\u{e0020}-\u{e007e}]{1,8}\u{e007f}/gu;
const TAG_CHARS = /[\u{e0000}-\u{e007f}]+/gu;
const NON_ASCII = /[^\x00-\x7f]/;
/**
 * What `.replace(/\s+/g, " ")` changes, without matching the single spaces it would replace
 * by themselves: prose has one every few characters, and replacing each one cost 0.8 ms per
 * 20 KiB, a third of a message's rules. Runs still match whole (greedy, leftmost first).
 */
export const WHITE_RUNS = /\s{2,}|[^\S ]/g;

/** Zero-width characters used inside words, counted (a few are needed to spell a hidden phrase). */
export function zeroWidthInWords(s: string): number {
  // Most text has none: one scan for the character alone is far cheaper than the pattern,
  // which tries every letter.
  if (!ZW_CHAR.test(s)) return 0;
  let n = 0;
  ZW_IN_WORD.lastIndex = 0;
  while (ZW_IN_WORD.exec(s) && n < 100) n++;
  return n;
}

/**
 * Unicode tag characters (U+E0020–E007E) mirror ASCII and are invisible in every client, but
 * models read them ("ASCII smuggling"). Returns the smuggled ASCII, "" when there is none.
 */
export function smuggledAscii(s: string): string {
  if (!/[\u{e0000}-\u{e007f}]/u.test(s)) return "";
  let out = "";
  for (const m of s.replace(TAG_FLAG, "").matchAll(TAG_CHARS)) {
    for (const ch of m[0]) {
      const cp = ch.codePointAt(0)! - 0xe0000;
      if (cp >= 0x20 && cp <= 0x7e) out += String.fromCharCode(cp);
    }
    out += " ";
    if (out.length > MAX_ATTACHMENT_TEXT) break;
  }
  return out.trim();
}

/**
 * The form every language rule matches against: smuggled ASCII decoded, invisible characters
 * dropped, NFKC (full-width and styled letters become plain ones), lower case, typographic
 * quotes made plain and all white space one space. Rules can then be written with literal
 * single spaces, which keeps them linear.
 */
export function normalizeForMatch(s: string): string {
  // ASCII has no tag, invisible or typographic characters and is its own NFKC form: only the
  // case and the white space change, and the five scans for the others are skipped.
  if (!NON_ASCII.test(s)) return s.toLowerCase().replace(WHITE_RUNS, " ");
  const smuggled = smuggledAscii(s);
  const base = smuggled ? `${s.replace(TAG_CHARS, "")} ${smuggled}` : s;
  return base
    .replace(INVISIBLE, "")
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(WHITE_RUNS, " ");
}

/** Decodes the HTML character references mail actually uses; unknown names stay as written. */
const NAMED: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", zwnj: "\u200c", zwj: "\u200d", shy: "\u00ad",
  ensp: " ", emsp: " ", thinsp: " ", lrm: "\u200e", rlm: "\u200f", hellip: "…", mdash: "—", ndash: "–",
  lsquo: "'", rsquo: "'", ldquo: '"', rdquo: '"', copy: "©", reg: "®", trade: "™", euro: "€", pound: "£",
};
const ENTITY = /&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});?/g;

export function decodeEntities(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(ENTITY, (whole, body: string) => {
    if (body[0] === "#") {
      const cp = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return cp > 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : whole;
    }
    return NAMED[body.toLowerCase()] ?? whole;
  });
}
