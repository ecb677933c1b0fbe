/**
 * Telephone numbers, found by libphonenumber; national numbers are read as the sender's
 * country's (see locale.ts; the US when nothing says otherwise).
 *
 * Mail is full of digit runs that libphonenumber would happily read as numbers: order and
 * invoice numbers, tracking numbers, dates, sums. Those found by the other extractors are
 * claimed before this runs; of the rest, a run counts as a phone only when it is written
 * like one (a "+", brackets or separators) or a word such as "call" or "tel" stands before it.
 */
import { type CountryCode, findPhoneNumbersInText } from "libphonenumber-js";
import type { Span } from "./spans.ts";

export interface FoundPhone extends Span {
  text: string;
  e164: string | null;
}

/**
 * A stretch that could hold a phone number: digits with only the characters phone numbers
 * are written with between them. Bounded, so each start costs at most its length.
 */
const RUN = /[+(]?\d[\d \t().\-\u00a0]{5,30}\d/g;
/** An extension after a run ("ext. 4"), handed to libphonenumber with it. */
const EXTENSION_AFTER = /^[ \t,;]*(?:ext\.?|extension|x)[ \t]*\d{1,6}/i;
/** Runs looked at per message: more is a table of figures, not a message with phone numbers. */
const MAX_RUNS = 300;
const PHONE_LEAD = /\b(?:phone|tel|telephone|call|calling|mobile|cell|fax|ph|mob|text|sms|whatsapp|reach (?:me|us)|dial|number is|contact)\b[^\n\d]{0,12}$|\b[TMFP]\s?:\s?$/i;
/** Words that make a digit run an identifier, not a phone number. */
const ID_LEAD = /(?:#|\bno\.?|\bnumber|\bnr\.?|\border|\binvoice|\binv|\baccount|\bacct|\bref|\breference|\bid|\bticket|\bcase|\bpo|\bsku|\btracking|\bconfirmation|\bcode|\bpin|\bcustomer)\s*[:#]?\s*$/i;
const EXTENSION = /[\s,;]*(?:ext\.?|extension|x|#|,|;)?\s*\d{1,6}$/i;
/** A date written with separators: "2024-03-15", "03/15/2024", "15.03.2024". */
const DATE_SHAPE = /^\d{1,4}[-./]\d{1,2}[-./]\d{1,4}$/;

/** Phone numbers in the text, each once, outside the spans `inside` reports as taken. */
export function findPhones(text: string, country: CountryCode, inside: (s: Span) => boolean): FoundPhone[] {
  const out: FoundPhone[] = [];
  const seen = new Set<string>();
  let runs = 0;
  RUN.lastIndex = 0;
  for (let run = RUN.exec(text); run && runs < MAX_RUNS; run = RUN.exec(text)) {
    if ((run[0].match(/\d/g)?.length ?? 0) < 7) continue;
    runs++;
    // libphonenumber sees only the run (and its extension), so its cost is bounded by the
    // runs, not the text: it is slow on long stretches of digit groups.
    const from = run.index;
    const runEnd = run.index + run[0].length;
    const ext = EXTENSION_AFTER.exec(text.slice(runEnd, runEnd + 24));
    const to = runEnd + (ext ? ext[0].length : 0);
    for (const f of findPhoneNumbersInText(text.slice(from, to), { defaultCountry: country, extended: true })) {
      const start = from + f.startsAt;
      // libphonenumber reads ", 24" after a number as an extension ("613-555-0199, 24/7"):
      // the number proper ends before it, and only that part is judged.
      const whole = text.slice(start, from + f.endsAt);
      const raw = f.number.ext ? whole.replace(EXTENSION, "") : whole;
      const span = { start, end: start + raw.length };
      if (inside(span) || !looksLikePhone(raw, text.slice(Math.max(0, span.start - 40), span.start))) continue;
      if (isGlued(text, span)) continue;
      // Possible, not only valid: fictional ranges (UK 07700 900xxx) are still written as phones.
      const e164 = f.number.isPossible() ? f.number.number : null;
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

/**
 * Part of a longer token: a letter or digit right next to the run, or joined to one by a
 * hyphen, slash or dot ("SH-260715-0093", "112-5550123-4412331").
 */
function isGlued(text: string, span: Span): boolean {
  const alnum = (c: string | undefined) => c !== undefined && /[\p{L}\d]/u.test(c);
  const joiner = (c: string | undefined) => c === "-" || c === "/" || c === "." || c === "_";
  const before = text[span.start - 1];
  const after = text[span.end];
  return (
    alnum(before) || alnum(after) ||
    (joiner(before) && alnum(text[span.start - 2])) ||
    (joiner(after) && alnum(text[span.end + 1]))
  );
}
