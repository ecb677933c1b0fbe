/**
 * Sums of money: a number with a currency symbol or ISO code before or after it.
 *
 * A number without a currency is never money here (quantities, years, percentages), and
 * "$" alone means US dollars. Both the US ("1,234.56") and the continental ("1.234,56",
 * "1 234,56") ways of writing numbers are read; a separator followed by one or two digits
 * at the end is the decimal point, any other is a thousands separator.
 */
import { Claims, type Span } from "./spans.ts";

export interface FoundAmount extends Span {
  text: string;
  value: number;
  currency: string;
}

/** Symbols and prefixes written before the number, longest first so "US$" beats "$". */
const PREFIX: [string, string][] = [
  ["US$", "USD"], ["U.S.$", "USD"], ["CA$", "CAD"], ["C$", "CAD"], ["AU$", "AUD"], ["A$", "AUD"],
  ["NZ$", "NZD"], ["HK$", "HKD"], ["S$", "SGD"], ["SG$", "SGD"], ["R$", "BRL"], ["MX$", "MXN"],
  ["CN¥", "CNY"], ["RMB", "CNY"], ["Rs.", "INR"], ["Rs", "INR"],
  ["$", "USD"], ["€", "EUR"], ["£", "GBP"], ["¥", "JPY"], ["₹", "INR"], ["₩", "KRW"], ["₽", "RUB"],
  ["₺", "TRY"], ["₪", "ILS"], ["₱", "PHP"], ["฿", "THB"], ["₫", "VND"], ["₦", "NGN"], ["₴", "UAH"],
];
/** Written after the number: symbols as continental Europe places them, and currency words. */
const SUFFIX: [string, string][] = [
  ["€", "EUR"], ["$", "USD"], ["£", "GBP"], ["¥", "JPY"], ["₹", "INR"], ["zł", "PLN"], ["Kč", "CZK"],
  ["₽", "RUB"], ["₺", "TRY"], ["₴", "UAH"],
  ["euros", "EUR"], ["euro", "EUR"], ["dollars", "USD"], ["bucks", "USD"], ["yen", "JPY"], ["rupees", "INR"],
  ["francs", "CHF"], ["pounds sterling", "GBP"],
];
/**
 * ISO 4217 codes read on either side of the number. Uppercase only: "eur" is not a code.
 * PHP is left out: "PHP 8.3" is the language far more often than the peso.
 */
const CODES = [
  "USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "NZD", "CNY", "HKD", "SGD", "INR", "SEK", "NOK", "DKK",
  "PLN", "CZK", "HUF", "RON", "BGN", "ISK", "MXN", "BRL", "ARS", "CLP", "COP", "PEN", "ZAR", "KRW", "RUB",
  "TRY", "ILS", "AED", "SAR", "QAR", "KWD", "EGP", "NGN", "KES", "THB", "IDR", "MYR", "VND", "TWD",
  "PKR", "BDT", "UAH",
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const alternation = (xs: string[]) =>
  [...xs].sort((a, b) => b.length - a.length).map(escape).join("|");

// Thousands groups and a one- or two-digit decimal part; every repetition is bounded and
// separated by a character the digits cannot match, so there is nothing to backtrack into.
const NUMBER = String.raw`\d{1,3}(?:[,.'\u00a0\u202f ]\d{3}){1,6}(?:[.,]\d{1,2})?|\d{1,12}(?:[.,]\d{1,2})?`;
const SCALE = String.raw`(?:(k|K|m|M|mm|MM|bn|b|B)(?![\p{L}\d])|\s(thousand|million|billion|mn|bn)\b)`;

// A digit may stand right before a symbol: tables flattened to text run cells together
// ("Qty: 1$34.99"), and a symbol followed by digits is read as the prefix of those.
const PREFIX_RE = new RegExp(
  String.raw`(?<![\p{L}$€£¥])(${alternation([...PREFIX.map(([s]) => s), ...CODES])})\s?(${NUMBER})(?![\d])${SCALE}?`,
  "gu",
);
const SUFFIX_RE = new RegExp(
  String.raw`(?<![\p{L}\d.,$€£¥])(${NUMBER})(?![\d])${SCALE}?\s?(${alternation([...SUFFIX.map(([s]) => s), ...CODES])})(?![\p{L}\d])`,
  "gu",
);

const CURRENCY = new Map<string, string>([...PREFIX, ...SUFFIX, ...CODES.map((c): [string, string] => [c, c])]);
const MULTIPLIER: Record<string, number> = {
  k: 1e3, K: 1e3, thousand: 1e3,
  m: 1e6, M: 1e6, mm: 1e6, MM: 1e6, mn: 1e6, million: 1e6,
  b: 1e9, B: 1e9, bn: 1e9, billion: 1e9,
};

/** Every sum of money in the text, in order. */
export function findAmounts(text: string): FoundAmount[] {
  const found: FoundAmount[] = [];
  PREFIX_RE.lastIndex = 0;
  for (let m = PREFIX_RE.exec(text); m; m = PREFIX_RE.exec(text)) {
    const amount = build(m, m[1]!, m[2]!, m[3] ?? m[4]);
    if (amount) found.push(amount);
  }
  const taken = new Claims(text.length);
  found.forEach((a) => taken.claim(a));
  SUFFIX_RE.lastIndex = 0;
  for (let m = SUFFIX_RE.exec(text); m; m = SUFFIX_RE.exec(text)) {
    // "USD 12 EUR" is one sum with a stray code, already read from the left.
    if (taken.overlaps({ start: m.index, end: m.index + m[0].length })) continue;
    const amount = build(m, m[4]!, m[1]!, m[2] ?? m[3]);
    if (amount) found.push(amount);
  }
  return found.sort((a, b) => a.start - b.start);
}

function build(m: RegExpExecArray, symbol: string, digits: string, scale: string | undefined): FoundAmount | null {
  const currency = CURRENCY.get(symbol);
  const base = parseNumber(digits);
  if (!currency || base === null) return null;
  const value = Math.round(base * (scale ? (MULTIPLIER[scale] ?? 1) : 1) * 100) / 100;
  return { start: m.index, end: m.index + m[0].length, text: m[0], value, currency };
}

/** "1,234.56", "1.234,56" and "1 234,56" all read as 1234.56. */
export function parseNumber(raw: string): number | null {
  const s = raw.replace(/['\u00a0\u202f ]/g, "");
  const lastSep = Math.max(s.lastIndexOf(","), s.lastIndexOf("."));
  let normal: string;
  if (lastSep >= 0 && s.length - lastSep - 1 <= 2) {
    normal = `${s.slice(0, lastSep).replace(/[.,]/g, "")}.${s.slice(lastSep + 1)}`;
  } else {
    normal = s.replace(/[.,]/g, "");
  }
  const n = Number(normal);
  return Number.isFinite(n) ? n : null;
}
