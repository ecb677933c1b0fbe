/**
 * Identifiers that are none of the things extracted but look like them: account and
 * routing numbers, IBANs, sort codes, order and case numbers, PINs, references, IP addresses. They are
 * not reported; they are found only so that their digits are claimed before the date,
 * amount and phone finders run ("Acc 1234 5678" is no phone, "Reference: 2026/0311" no date).
 */
import type { Span } from "./spans.ts";

// The label, an optional "number"/"no."/"#"/"id", an optional colon. All gaps are bounded.
const LABEL =
  /\b(?:iban|bic|swift|account|acct|acc|a\/c|routing|aba|sort code|bsb|abn|acn|ein|tin|vat(?: reg(?:istration)?)?|pin|passcode|meeting id|order|purchase order|po|reference|ref|case|ticket|serial|s\/n|sku|rma|booking|confirmation|customer|member|membership|policy|claim|incident|request|transaction|receipt|agreement|contract|model|part|item|article)\b\.?[ \t]{0,3}(?:(?:number|no\.?|nr\.?|#|id|code)[ \t]{0,3})?[:#]?[ \t]{0,3}#?/gi;
/** An IBAN written with or without its groups of four ("DE89 3704 0044 0532 0130 00"). */
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g;
/** An IPv4 address ("185.220.101.4"): four numbers a phone or date finder would misread. */
const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}\b/g;
/** Longest identifier claimed after a label. */
const MAX_VALUE = 40;

/** Where such identifiers are, to be claimed. */
export function findIdentifiers(text: string): Span[] {
  const out: Span[] = [];
  LABEL.lastIndex = 0;
  for (let m = LABEL.exec(text); m; m = LABEL.exec(text)) {
    const start = m.index + m[0].length;
    const end = valueEnd(text, start);
    // A value carries a digit; "Order date" or "Reference Guide" are not identifiers.
    if (end > start && /\d/.test(text.slice(start, end))) out.push({ start, end });
  }
  IBAN.lastIndex = 0;
  for (let m = IBAN.exec(text); m; m = IBAN.exec(text)) {
    if (/\d{8}/.test(m[0].replace(/ /g, ""))) out.push({ start: m.index, end: m.index + m[0].length });
  }
  IPV4.lastIndex = 0;
  for (let m = IPV4.exec(text); m; m = IPV4.exec(text)) out.push({ start: m.index, end: m.index + m[0].length });
  return out;
}

/**
 * Where a value starting at `start` ends: uppercase letters and digits, joined by single
 * spaces, hyphens, slashes or dots that are followed by another such character.
 */
function valueEnd(text: string, start: number): number {
  const word = (c: string | undefined) => c !== undefined && /[A-Z0-9]/.test(c);
  let i = start;
  while (i < text.length && i - start < MAX_VALUE) {
    const c = text[i];
    if (word(c)) i++;
    else if ((c === " " || c === "-" || c === "/" || c === ".") && word(text[i + 1]) && i > start) {
      // A space joins only digit groups: "Order 10482 ETA" stops before "ETA".
      if (c === " " && !(/\d/.test(text[i - 1]!) && /\d/.test(text[i + 1]!))) break;
      i++;
    } else break;
  }
  return i;
}
