/**
 * Reference numbers: parcel tracking numbers and invoice numbers.
 *
 * A long digit run is a tracking number only when the text around it talks about shipping
 * or names a carrier; the carrier comes from that text when it names one, else from the
 * number's shape. An invoice number is the token after "invoice" (or "inv", "invoice no.",
 * "Rechnung Nr.", "bill number" …) that carries a digit, or a token that itself starts
 * with "INV".
 */
import { Claims, type Span } from "./spans.ts";

export interface FoundTracking extends Span {
  value: string;
  carrier: string | null;
}

export interface FoundInvoice extends Span {
  value: string;
}

type Shape = "ups" | "amazon" | "s10" | "digits" | "labelled";

// Each shape is a bounded run of one character class, so no pattern can backtrack.
const CANDIDATES: [Shape, RegExp][] = [
  ["ups", /\b1Z(?: ?[0-9A-Z]){16}\b/gi],
  ["amazon", /\bTBA\d{12}\b/gi],
  // Universal Postal Union S10: two letters, nine digits, the country (Royal Mail "…GB"),
  // sometimes printed in groups ("RM 4052 8817 9 GB").
  ["s10", /\b[A-Z]{2} ?(?:\d ?){9}[A-Z]{2}\b/g],
  // USPS prints its 22 digits in groups of four, FedEx its 12 in groups of four.
  ["digits", /\b\d{2,}(?: \d{2,}){0,7}\b/g],
  // "Tracking number: …", "shipment 4812739050": the label says what the token is. The
  // token is case-sensitive (uppercase and digits) so a following word is not swallowed.
  [
    "labelled",
    /\b(?:[Tt]rack(?:ing)?|TRACKING|[Ss]hipment|[Cc]onsignment|(?:[Aa]ir )?[Ww]aybill|AWB)(?: (?:[Nn]umber|[Nn]o\.?|#|ID|[Ii]d|[Cc]ode))?[ \t]{0,3}[:#]?[ \t]{0,3}([A-Z0-9]+(?: [A-Z0-9]+){0,7})/g,
  ],
];

const CARRIERS: [RegExp, string][] = [
  [/\bups\b/i, "UPS"],
  [/\bfed ?ex\b/i, "FedEx"],
  [/\busps\b|\bpostal service\b/i, "USPS"],
  [/\bdhl\b/i, "DHL"],
  [/\broyal mail\b/i, "Royal Mail"],
  [/\bparcelforce\b/i, "Parcelforce"],
  [/\bamazon\b/i, "Amazon"],
  [/\bcanada post\b/i, "Canada Post"],
  [/\baustralia post\b/i, "Australia Post"],
  [/\bontrac\b/i, "OnTrac"],
  [/\b(?:evri|hermes)\b/i, "Evri"],
  [/\bdpd\b/i, "DPD"],
  [/\bgls\b/i, "GLS"],
  [/\bla poste\b|\bcolissimo\b/i, "La Poste"],
  [/\bdeutsche post\b/i, "Deutsche Post"],
];
/** Words that make a digit run near them a tracking number. */
const TRACKING_WORDS = /\b(?:track|tracking|tracked|waybill|awb|consignment|sendungsnummer|suivi)\b/i;
/** Weaker hints, enough for numbers whose shape is already distinctive. */
const SHIPPING_WORDS = /\b(?:ship|shipped|shipping|shipment|package|parcel|delivery|delivered|courier|dispatched|on its way|in transit)\b/i;
/** An identifier of another kind: "Order 123456789012", "Account 1234567890". */
const OTHER_ID = /\b(?:order|invoice|inv|account|acct|customer|phone|tel|fax|ref|reference|case|ticket|po|sku|iban|routing|card)\b\.?\s{0,3}(?:number|no\.?|#|id)?\s{0,3}[:#]?\s{0,3}$/i;
/** More per message is a data dump, not mail about parcels or bills. */
const MAX_FOUND = 100;
/** Lengths of bare digit runs carriers use, with the carrier when the length alone says. */
const DIGIT_LENGTHS = new Map<number, string | null>([
  [10, "DHL"], [12, "FedEx"], [15, "FedEx"], [20, null], [22, "USPS"], [26, "USPS"], [30, "USPS"], [34, "FedEx"],
]);

/**
 * Tracking numbers, each once, in order, leaving out those inside spans `inside` reports
 * taken (a link's "?awb=…" is part of the link).
 */
export function findTrackingNumbers(text: string, inside: (s: Span) => boolean = () => false): FoundTracking[] {
  const found: FoundTracking[] = [];
  const seen = new Set<string>();
  const taken = new Claims(text.length);
  for (const [shape, re] of CANDIDATES) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m && found.length < MAX_FOUND; m = re.exec(text)) {
      const token = m[1] ?? m[0];
      const start = m.index + m[0].length - token.length;
      const span = { start, end: start + token.length };
      const value = token.replace(/ /g, "").toUpperCase();
      // A digit run of a length no carrier uses is skipped before its context is read.
      if (shape === "digits" && !DIGIT_LENGTHS.has(value.length)) continue;
      if (seen.has(value) || inside(span) || taken.overlaps(span)) continue;
      const carrier = judge(shape, value, text, span);
      if (carrier === undefined) continue;
      seen.add(value);
      taken.claim(span);
      found.push({ ...span, value, carrier });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** The carrier (null when unknown) when the candidate is a tracking number, else undefined. */
function judge(shape: Shape, value: string, text: string, span: Span): string | null | undefined {
  const before = text.slice(Math.max(0, span.start - 150), span.start);
  const after = text.slice(span.end, span.end + 60);
  const window = before + " " + after;
  const named = carrierIn(before) ?? carrierIn(after);
  const strong = TRACKING_WORDS.test(window) || named !== null;
  const weak = strong || SHIPPING_WORDS.test(window);
  switch (shape) {
    case "ups":
      return weak ? "UPS" : undefined;
    case "amazon":
      return weak ? "Amazon" : undefined;
    case "s10":
      if (!weak) return undefined;
      return named ?? (value.endsWith("GB") ? "Royal Mail" : value.endsWith("US") ? "USPS" : null);
    case "digits": {
      if (!DIGIT_LENGTHS.has(value.length) || !strong || OTHER_ID.test(before)) return undefined;
      // Spaced groups are how USPS prints its long numbers; a spaced short run is a phone.
      if (span.end - span.start !== value.length && value.length < 20 && !/^\d{4}(?: \d{4})+$/.test(text.slice(span.start, span.end))) {
        return undefined;
      }
      const byShape = value.length === 22 && !/^9[1-5]/.test(value) ? null : DIGIT_LENGTHS.get(value.length)!;
      return named ?? byShape;
    }
    case "labelled":
      // The label says what it is; it still needs a digit, and a known shape when it was
      // written in groups (so "Tracking: 12345678 ABC" does not take the "ABC").
      if (!/\d/.test(value) || value.length < 8 || value.length > 34) return undefined;
      if (/ /.test(text.slice(span.start, span.end)) && shapeCarrier(value) === undefined) return undefined;
      return named ?? shapeCarrier(value) ?? null;
  }
}

/** The carrier a known shape belongs to (null: known shape, carrier unknown); undefined: no known shape. */
function shapeCarrier(value: string): string | null | undefined {
  if (/^1Z[0-9A-Z]{16}$/.test(value)) return "UPS";
  if (/^TBA\d{12}$/.test(value)) return "Amazon";
  if (/^[A-Z]{2}\d{9}GB$/.test(value)) return "Royal Mail";
  if (/^[A-Z]{2}\d{9}US$/.test(value)) return "USPS";
  if (/^[A-Z]{2}\d{9}[A-Z]{2}$/.test(value)) return null;
  if (/^\d+$/.test(value) && DIGIT_LENGTHS.has(value.length)) return DIGIT_LENGTHS.get(value.length)!;
  return undefined;
}

/** The carrier named closest to the number in this stretch of text, if any. */
function carrierIn(s: string): string | null {
  let best: { at: number; name: string } | null = null;
  for (const [re, name] of CARRIERS) {
    const m = re.exec(s);
    if (m && (!best || m.index > best.at)) best = { at: m.index, name };
  }
  return best?.name ?? null;
}

// --- invoices ------------------------------------------------------------------------

// The keyword, an optional "#", "No.", "number" …, an optional colon, then the token. All
// gaps are bounded and the token class excludes white space, so nothing backtracks far.
const INVOICE =
  /\b(?:invoice|inv|rechnung(?:snummer)?|facture|factura|fattura)\b\.?[ \t]{0,3}((?:#|no\.?|nr\.?|number|num\.?|n°|n\.|id)[ \t]{0,3})?([:#])?\s{0,4}([A-Z0-9][A-Z0-9\-/_.]{0,40})/gi;
/** "Bill" is too common a word to stand alone: it needs "number", "no." or "#". */
const BILL = /\bbill[ \t]{0,3}(?:#|no\.?|number|num\.?)[ \t]{0,3}:?\s{0,4}([A-Z0-9][A-Z0-9\-/_.]{0,40})/gi;
/** "Invoice numbers from the receipts: A and B": a list after a plural label. */
const INVOICE_LIST = /\b(?:invoice|bill) (?:numbers|nos\.?|#s)\b[^:\n]{0,60}:[ \t]*/gi;
const LIST_ITEM = /^(?:,|and|&|;)?[ \t]*([A-Z0-9][A-Z0-9\-/_.]{1,40})[ \t]*/i;
const INV_TOKEN = /\bINV[-_/]?\d[A-Z0-9\-/_]{0,40}/g;
const YEAR = /^(?:19|20)\d{2}$/;

/** Invoice numbers as written (without "#" or "No."), each once, in order, outside `inside`. */
export function findInvoiceNumbers(text: string, inside: (s: Span) => boolean = () => false): FoundInvoice[] {
  const found: FoundInvoice[] = [];
  const seen = new Set<string>();
  const taken = new Claims(text.length);
  const add = (start: number, token: string, marked: boolean) => {
    const value = token.replace(/[.\-/_]+$/, "");
    // "invoice 2024" is a year; "invoice #2024" is a number.
    if (found.length >= MAX_FOUND || value.length < 2 || !/\d/.test(value) || (!marked && YEAR.test(value))) return;
    const span = { start, end: start + value.length };
    const key = value.toUpperCase();
    if (seen.has(key) || inside(span) || taken.overlaps(span)) return;
    seen.add(key);
    taken.claim(span);
    found.push({ ...span, value });
  };
  const tokenAt = (m: RegExpExecArray, token: string) => m.index + m[0].length - token.length;
  for (const m of execAll(INVOICE, text)) add(tokenAt(m, m[3]!), m[3]!, m[1] !== undefined || m[2] !== undefined);
  for (const m of execAll(BILL, text)) add(tokenAt(m, m[1]!), m[1]!, true);
  for (const m of execAll(INVOICE_LIST, text)) {
    let at = m.index + m[0].length;
    // At most a handful of items, each a bounded match at a known position.
    for (let k = 0; k < 10; k++) {
      const item = LIST_ITEM.exec(text.slice(at, at + 60));
      if (!item) break;
      add(at + item[0].indexOf(item[1]!), item[1]!, true);
      at += item[0].length;
    }
  }
  for (const m of execAll(INV_TOKEN, text)) add(m.index, m[0], true);
  return found.sort((a, b) => a.start - b.start);
}

function execAll(re: RegExp, text: string): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m);
  return out;
}
