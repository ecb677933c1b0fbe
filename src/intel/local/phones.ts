/**
 * Telephone numbers, found by libphonenumber with the US as the default country.
 *
 * Mail is full of digit runs that libphonenumber would happily read as numbers: order and
 * invoice numbers, tracking numbers, dates, sums. Those found by the other extractors are
 * claimed before this runs; of the rest, a run counts as a phone only when it is written
 * like one (a "+", brackets or separators) or a word such as "call" or "tel" stands before it.
 */
import { findPhoneNumbersInText } from "libphonenumber-js";
import { type Span, pieces } from "./spans.ts";

export interface FoundPhone extends Span {
  text: string;
  e164: string | null;
}

/** libphonenumber runs per line; no phone number is longer than this. */
const MAX_PIECE = 400;
/** Seven digits with at most three other characters between each: anything shorter is no phone. */
const SEVEN_DIGITS = /\d(?:\D{0,3}\d){6}/;
const PHONE_LEAD = /\b(?:phone|tel|telephone|call|calling|mobile|cell|fax|ph|mob|text|sms|whatsapp|reach (?:me|us)|dial|number is|contact)\b[^\n\d]{0,12}$|\b[TMFP]\s?:\s?$/i;
/** Words that make a digit run an identifier, not a phone number. */
const ID_LEAD = /(?:#|\bno\.?|\bnumber|\bnr\.?|\border|\binvoice|\binv|\baccount|\bacct|\bref|\breference|\bid|\bticket|\bcase|\bpo|\bsku|\btracking|\bconfirmation|\bcode|\bpin|\bcustomer)\s*[:#]?\s*$/i;
/** A date written with separators: "2024-03-15", "03/15/2024", "15.03.2024". */
const DATE_SHAPE = /^\d{1,4}[-./]\d{1,2}[-./]\d{1,4}$/;

/** Phone numbers in the text, each once, outside the spans `inside` reports as taken. */
export function findPhones(text: string, inside: (s: Span) => boolean): FoundPhone[] {
  const out: FoundPhone[] = [];
  const seen = new Set<string>();
  for (const piece of pieces(text, MAX_PIECE)) {
    if (!SEVEN_DIGITS.test(piece.text)) continue;
    for (const f of findPhoneNumbersInText(piece.text, { defaultCountry: "US" })) {
      const span = { start: piece.offset + f.startsAt, end: piece.offset + f.endsAt };
      const raw = text.slice(span.start, span.end);
      if (inside(span) || !looksLikePhone(raw, text.slice(Math.max(0, span.start - 40), span.start))) continue;
      // A letter or digit glued on either side means the run is part of a longer token.
      if (/[\p{L}\d]/u.test(text[span.start - 1] ?? "") || /[\p{L}\d]/u.test(text[span.end] ?? "")) continue;
      const e164 = f.number.isValid() ? f.number.number : null;
      const key = e164 ?? raw.replace(/\D/g, "");
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ ...span, text: raw, e164 });
    }
  }
  return out;
}

function looksLikePhone(raw: string, before: string): boolean {
  const digits = raw.replace(/\D/g, "").length;
  if (digits < 7 || digits > 15 || DATE_SHAPE.test(raw)) return false;
  // "Phone number: …" names a phone even though "number" usually names an identifier.
  if (PHONE_LEAD.test(before)) return true;
  if (ID_LEAD.test(before) || /[$€£¥₹]\s*$/.test(before)) return false;
  return /^\+|\(|\d[\s.\-\u00a0]\d/.test(raw);
}
