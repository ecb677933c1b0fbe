/**
 * Scores the local extractor against the labelled messages in test/fixtures/intel: per field
 * precision and recall, and per fixture what was missed or wrongly found. Shared by the
 * quality test (which asserts floors) and bench/intel-quality.ts (which prints a report).
 *
 * Each message goes through the same path the service uses: mailparser, then the
 * new-text-only view (extractText), so the score reflects what the engine sees in production.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type AddressObject, simpleParser } from "mailparser";
import { extractText } from "../src/mail/extract.ts";
import { extract } from "../src/intel/local/extract.ts";
import type { Extractions, IntelMessage } from "../src/intel/types.ts";

export const FIXTURES = join(import.meta.dir, "fixtures", "intel");

export const FIELDS = ["dates", "amounts", "urls", "emails", "phones", "tracking_numbers", "invoice_numbers"] as const;
export type Field = (typeof FIELDS)[number];

/** What a fixture's .json says; fields other than these are ignored. */
interface Label {
  kind?: string;
  dates: string[];
  amounts: { value: number; currency: string }[];
  urls: string[];
  emails: string[];
  phones?: string[];
  tracking_numbers?: string[];
  invoice_numbers?: string[];
}

export interface FieldScore {
  tp: number;
  fp: number;
  fn: number;
  /** 1 when nothing was found (no false positives either). */
  precision: number;
  /** 1 when nothing was labelled. */
  recall: number;
}

export interface FixtureMisses {
  name: string;
  /** Per field: labelled but not found (missed) and found but not labelled (extra). */
  fields: Partial<Record<Field, { missed: string[]; extra: string[] }>>;
}

export interface QualityReport {
  fixtures: number;
  fields: Record<Field, FieldScore>;
  misses: FixtureMisses[];
}

/** The .eml as the engine sees it: the same fields the service fills in. */
export async function loadMessage(raw: Buffer, id: string): Promise<IntelMessage> {
  const parsed = await simpleParser(raw);
  // mailparser invents a text part from the HTML (link targets included) when there is none;
  // the service's view of an HTML-only message is the rendered HTML, so drop that invention.
  const hasTextPart = /^content-type:\s*text\/plain/im.test(raw.toString("latin1")) || !parsed.html;
  const textPart = hasTextPart ? (parsed.text ?? null) : null;
  const html = typeof parsed.html === "string" ? parsed.html : null;
  const from = firstAddress(parsed.from);
  return {
    id,
    direction: "inbound",
    from: from?.address?.toLowerCase() ?? "",
    fromName: from?.name || null,
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    subject: parsed.subject ?? "",
    text: extractText({ text: textPart, html }) || textPart || "",
    date: parsed.date ?? new Date(0),
  };
}

function firstAddress(a: AddressObject | AddressObject[] | undefined) {
  return (Array.isArray(a) ? a[0] : a)?.value[0];
}

function addresses(a: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(a) ? a : a ? [a] : [];
  return list.flatMap((o) => o.value.map((v) => v.address?.toLowerCase() ?? "")).filter(Boolean);
}

// --- comparison keys: how a found value and a label are judged the same ---------------

const trimSlash = (u: string) => (u.endsWith("/") ? u.slice(0, -1) : u);
const ref = (v: string) => v.replace(/\s+/g, "").toUpperCase();
const money = (a: { value: number; currency: string }) => `${a.currency.toUpperCase()} ${a.value.toFixed(2)}`;

function foundKeys(x: Extractions): Record<Field, string[]> {
  return {
    dates: x.dates.map((d) => d.date),
    amounts: x.amounts.map(money),
    urls: x.urls.map((u) => trimSlash(u.url)),
    emails: x.emails.map((e) => e.address.toLowerCase()),
    phones: x.phones.flatMap((p) => (p.e164 ? [p.e164] : [])),
    tracking_numbers: x.tracking_numbers.map((t) => ref(t.value)),
    invoice_numbers: x.invoice_numbers.map((i) => ref(i.value)),
  };
}

function labelKeys(l: Label): Partial<Record<Field, string[]>> {
  return {
    dates: l.dates,
    amounts: l.amounts.map(money),
    urls: l.urls.map(trimSlash),
    emails: l.emails.map((e) => e.toLowerCase()),
    // Optional fields are scored only in fixtures that label them.
    ...(l.phones ? { phones: l.phones } : {}),
    ...(l.tracking_numbers ? { tracking_numbers: l.tracking_numbers.map(ref) } : {}),
    ...(l.invoice_numbers ? { invoice_numbers: l.invoice_numbers.map(ref) } : {}),
  };
}

/** Fixture names (without extension) that have both an .eml and a .json. */
export function fixtureNames(dir = FIXTURES): string[] {
  const files = new Set(readdirSync(dir));
  return [...files]
    .filter((f) => f.endsWith(".eml") && files.has(f.replace(/\.eml$/, ".json")))
    .map((f) => f.replace(/\.eml$/, ""))
    .sort();
}

/** Runs the extractor over every fixture and scores it. */
export async function measureQuality(dir = FIXTURES): Promise<QualityReport> {
  const totals = Object.fromEntries(FIELDS.map((f) => [f, { tp: 0, fp: 0, fn: 0 }])) as Record<
    Field,
    { tp: number; fp: number; fn: number }
  >;
  const misses: FixtureMisses[] = [];
  const names = fixtureNames(dir);
  for (const name of names) {
    const label = JSON.parse(readFileSync(join(dir, `${name}.json`), "utf8")) as Label;
    const message = await loadMessage(readFileSync(join(dir, `${name}.eml`)), name);
    const found = foundKeys(extract(message));
    const expected = labelKeys(label);
    const entry: FixtureMisses = { name, fields: {} };
    for (const field of FIELDS) {
      const want = expected[field];
      if (!want) continue;
      const wanted = new Set(want);
      const got = new Set(found[field]);
      const missed = [...wanted].filter((v) => !got.has(v));
      const extra = [...got].filter((v) => !wanted.has(v));
      totals[field].tp += wanted.size - missed.length;
      totals[field].fn += missed.length;
      totals[field].fp += extra.length;
      if (missed.length || extra.length) entry.fields[field] = { missed, extra };
    }
    if (Object.keys(entry.fields).length > 0) misses.push(entry);
  }
  const fields = Object.fromEntries(
    FIELDS.map((f) => {
      const { tp, fp, fn } = totals[f];
      return [f, { tp, fp, fn, precision: tp + fp ? tp / (tp + fp) : 1, recall: tp + fn ? tp / (tp + fn) : 1 }];
    }),
  ) as Record<Field, FieldScore>;
  return { fixtures: names.length, fields, misses };
}
