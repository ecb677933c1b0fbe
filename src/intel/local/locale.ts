/**
 * Where a message seems to come from, as far as reading it goes: its language, the
 * sender's country (which national phone numbers resolve against), whether "03/04" puts
 * the day first, and the time zone "today" and "Friday" are counted in.
 *
 * Engines see the send time as an instant, without the Date header's UTC offset, so the
 * sender's calendar day is a guess: the country's usual zone (US mail, the default, is
 * read in US Central time: the sender's own day in every US zone except an Eastern sender's
 * first hour after midnight and a Pacific sender's last two hours before it). Signals,
 * strongest first: the sender's country-code domain, phone numbers written with a country
 * code, a British postcode, the language, the currency.
 */
import type { CountryCode } from "libphonenumber-js";
import type { IntelMessage } from "../types.ts";

export type Language = "en" | "de" | "fr" | "es" | "it" | "nl" | "pt" | "ja";

export interface Reading {
  language: Language;
  country: CountryCode;
  /** Numeric dates are day/month ("03/04" is 3 April). */
  dayFirst: boolean;
  /** IANA zone the sender's calendar day is counted in. */
  timeZone: string;
}

/** Characters of text looked at for the language: the opening is plenty. */
const SAMPLE = 5000;

const STOPWORDS: Record<Exclude<Language, "ja">, string[]> = {
  en: ["the", "and", "you", "your", "to", "of", "is", "for", "we", "this", "please", "with", "will"],
  de: ["und", "der", "die", "das", "ist", "nicht", "mit", "für", "sie", "wir", "bis", "auf", "ihre", "unsere", "dein", "bei"],
  fr: ["le", "la", "les", "des", "est", "vous", "nous", "pour", "avec", "une", "du", "au", "sur", "votre", "merci", "de"],
  es: ["el", "los", "las", "que", "por", "para", "con", "una", "su", "usted", "gracias", "del"],
  it: ["il", "che", "per", "con", "una", "sono", "della", "gli", "grazie", "del", "alla"],
  nl: ["de", "het", "een", "en", "van", "voor", "met", "niet", "wij", "uw", "bedankt"],
  pt: ["os", "que", "para", "com", "uma", "não", "obrigado", "obrigada", "seu", "sua", "você"],
};
const JAPANESE = /[\u3040-\u30ff]/g;

const LANGUAGE_COUNTRY: Partial<Record<Language, CountryCode>> = {
  de: "DE", fr: "FR", es: "ES", it: "IT", nl: "NL", pt: "PT", ja: "JP",
};
/** Country-code top-level domains of the sender's address that name a country. */
const TLD_COUNTRY: Record<string, CountryCode> = {
  uk: "GB", gb: "GB", ie: "IE", de: "DE", at: "AT", ch: "CH", fr: "FR", be: "BE", nl: "NL", lu: "LU", es: "ES",
  it: "IT", pt: "PT", se: "SE", no: "NO", dk: "DK", fi: "FI", pl: "PL", cz: "CZ", au: "AU", nz: "NZ", ca: "CA",
  jp: "JP", in: "IN", za: "ZA", br: "BR", mx: "MX", sg: "SG", hk: "HK",
};
/** Calling codes written as "+44 …" and the country they make the sender's. */
const CALLING_CODES: [string, CountryCode][] = [
  ["44", "GB"], ["49", "DE"], ["33", "FR"], ["41", "CH"], ["43", "AT"], ["31", "NL"], ["32", "BE"], ["34", "ES"],
  ["39", "IT"], ["353", "IE"], ["61", "AU"], ["64", "NZ"], ["81", "JP"], ["91", "IN"], ["351", "PT"], ["46", "SE"],
  ["47", "NO"], ["45", "DK"], ["48", "PL"], ["27", "ZA"], ["65", "SG"],
];
/** Currency marks that say where the sender is (the euro says only "Europe"). */
const CURRENCY_COUNTRY: [RegExp, CountryCode][] = [
  [/£|\bGBP\b/, "GB"],
  [/\bA\$|\bAU\$|\bAUD\b/, "AU"],
  [/\bNZ\$|\bNZD\b/, "NZ"],
  [/\bCHF\b/, "CH"],
  [/\bCA\$|\bC\$|\bCAD\b/, "CA"],
  [/₹|\bINR\b/, "IN"],
];

/** A British postcode ("N1 1AA", "SW1A 1AA"): the last two letters skip C, I, K, M, O, V. */
const UK_POSTCODE = /\b[A-Z]{1,2}\d[A-Z\d]? \d[ABD-HJLNP-UW-Z]{2}\b/;
/** Euros say "Europe" (so day first) without saying which country. */
const EURO = /€|\bEUR\b/;

/** Countries that write numeric dates month first. */
const MONTH_FIRST = new Set<CountryCode>(["US", "CA", "PH", "JP"]);
const ZONES: Partial<Record<CountryCode, string>> = {
  US: "America/Chicago", CA: "America/Toronto", GB: "Europe/London", IE: "Europe/Dublin", PT: "Europe/Lisbon",
  AU: "Australia/Sydney", NZ: "Pacific/Auckland", JP: "Asia/Tokyo", IN: "Asia/Kolkata", SG: "Asia/Singapore",
  HK: "Asia/Hong_Kong", ZA: "Africa/Johannesburg", BR: "America/Sao_Paulo", MX: "America/Mexico_City",
};

export function readingOf(m: IntelMessage, text: string): Reading {
  const sample = text.slice(0, SAMPLE);
  const language = languageOf(sample);
  const country = countryOf(m.from, sample, language);
  return {
    language,
    country,
    // Every country that pays in euros writes the day first, whichever one it is.
    dayFirst: !MONTH_FIRST.has(country) || EURO.test(sample),
    // The other countries recognised are in continental Europe, which shares one offset.
    timeZone: ZONES[country] ?? "Europe/Berlin",
  };
}

function languageOf(sample: string): Language {
  if ((sample.match(JAPANESE)?.length ?? 0) >= 20) return "ja";
  const counts = new Map<string, number>();
  for (const w of sample.toLowerCase().match(/\p{L}+/gu) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
  const score = (words: string[]) => words.reduce((n, w) => n + (counts.get(w) ?? 0), 0);
  const english = score(STOPWORDS.en);
  let best: Language = "en";
  let bestScore = 0;
  for (const [lang, words] of Object.entries(STOPWORDS) as [Language, string[]][]) {
    const s = score(words);
    if (lang !== "en" && s > bestScore) [best, bestScore] = [lang, s];
  }
  // Short English notes share a word or two with every language; only a clear lead counts.
  return bestScore >= 4 && bestScore > english * 1.5 ? best : "en";
}

function countryOf(from: string, sample: string, language: Language): CountryCode {
  const tld = from.slice(from.lastIndexOf(".") + 1).toLowerCase();
  if (TLD_COUNTRY[tld]) return TLD_COUNTRY[tld];
  // The sender's own number is usually the first one written with a country code.
  for (const plus of sample.matchAll(/(?:^|[^\w+])\+(\d{1,3})[\s(.-]/g)) {
    const hit = CALLING_CODES.find(([code]) => plus[1] === code);
    if (hit) return hit[1];
  }
  // A British postcode ("London N1 1AA") is as telling as a +44.
  if (UK_POSTCODE.test(sample)) return "GB";
  const spoken = LANGUAGE_COUNTRY[language];
  if (spoken) return spoken;
  for (const [re, country] of CURRENCY_COUNTRY) if (re.test(sample)) return country;
  return "US";
}

/** The UTC offset in minutes of `zone` at `instant` (positive east of Greenwich). */
export function offsetMinutes(zone: string, instant: Date): number {
  if (zone === "UTC" || !Number.isFinite(instant.getTime())) return 0;
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
  }).formatToParts(instant);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const local = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"));
  return Math.round((local - Math.floor(instant.getTime() / 60_000) * 60_000) / 60_000);
}
