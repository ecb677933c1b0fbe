/**
 * A model's JSON answer into our types. Models drift from the schema they are asked for, so
 * every field is checked and coerced: wrong-typed entries are dropped, strings are trimmed
 * and capped. Only an answer with nothing usable where it matters is an error (the caller
 * then falls back to the local engine).
 */
import type { SenderAssessment } from "../engine.ts";
import type { Digest, Extractions, Summary } from "../types.ts";

type Obj = Record<string, unknown>;
const MAX_ITEMS = 100;

export class UnusableAnswer extends Error {
  override name = "UnusableAnswer";
}

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown, max = 1000): string | null => (typeof v === "string" && v.trim() ? v.trim().slice(0, max) : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : null);
const ymd = (v: unknown): string | null => {
  const s = str(v, 40);
  if (!s || !/^\d{4}-\d{2}-\d{2}/.test(s)) return null;
  const d = s.slice(0, 10);
  return Number.isNaN(Date.parse(`${d}T00:00:00Z`)) ? null : d;
};
const hhmm = (v: unknown): string | null => {
  const s = str(v, 10);
  return s && /^([01]\d|2[0-3]):[0-5]\d$/.test(s) ? s : null;
};
const list = <T>(v: unknown, each: (item: unknown) => T | null): T[] => (Array.isArray(v) ? v.slice(0, MAX_ITEMS).map(each).filter((x): x is T => x !== null) : []);
const field = <T>(key: string, each: (v: unknown) => T | null) => (item: unknown) => (isObj(item) ? each(item[key]) : each(item));

/** The JSON object in a model's reply, also when wrapped in a Markdown fence. */
export function parseAnswer(content: string): Obj {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(content);
  const text = (fenced ? fenced[1]! : content).trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UnusableAnswer("the model's answer is not JSON");
  }
  if (!isObj(value)) throw new UnusableAnswer("the model's answer is not a JSON object");
  return value;
}

export function toSummary(a: Obj): Summary {
  const summary = str(a.summary, 600);
  if (!summary) throw new UnusableAnswer("the answer has no summary");
  return { summary, key_points: list(a.key_points, (p) => str(p, 200)).slice(0, 5) };
}

export function toExtractions(a: Obj): Extractions {
  return {
    dates: list(a.dates, (d) => {
      if (!isObj(d)) return null;
      const date = ymd(d.date);
      if (!date) return null;
      const kind = d.kind === "deadline" || d.kind === "event" ? d.kind : "date";
      return { text: str(d.text, 200) ?? date, date, time: hhmm(d.time), kind };
    }),
    amounts: list(a.amounts, (x) => {
      if (!isObj(x)) return null;
      const value = num(x.value);
      const currency = str(x.currency, 3)?.toUpperCase();
      return value === null || !currency || !/^[A-Z]{3}$/.test(currency) ? null : { text: str(x.text, 100) ?? `${value} ${currency}`, value, currency };
    }),
    people: list(a.people, (p) => (isObj(p) && str(p.name, 200) ? { name: str(p.name, 200)!, email: str(p.email, 254)?.toLowerCase() ?? null } : null)),
    organizations: list(a.organizations, field("name", (n) => (str(n, 200) ? { name: str(n, 200)! } : null))),
    addresses: list(a.addresses, field("text", (n) => (str(n, 300) ? { text: str(n, 300)! } : null))),
    phones: list(a.phones, (p) => (isObj(p) && str(p.text, 60) ? { text: str(p.text, 60)!, e164: str(p.e164, 20) && /^\+\d{6,15}$/.test(str(p.e164, 20)!) ? str(p.e164, 20)! : null } : null)),
    urls: list(a.urls, field("url", (u) => {
      const url = str(u, 2048);
      if (!url) return null;
      try {
        return { url, domain: new URL(/^https?:\/\//i.test(url) ? url : `http://${url}`).hostname.toLowerCase() };
      } catch {
        return null;
      }
    })),
    emails: list(a.emails, field("address", (e) => {
      const address = str(e, 254)?.toLowerCase();
      return address && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address) ? { address } : null;
    })),
    tracking_numbers: list(a.tracking_numbers, (x) => (isObj(x) && str(x.value, 60) ? { value: str(x.value, 60)!, carrier: str(x.carrier, 60) } : null)),
    invoice_numbers: list(a.invoice_numbers, field("value", (v) => (str(v, 60) ? { value: str(v, 60)! } : null))),
    action_items: list(a.action_items, (x) => (isObj(x) && str(x.text, 500) ? { text: str(x.text, 500)!, due: ymd(x.due) } : null)),
    questions: list(a.questions, field("text", (q) => (str(q, 500) ? { text: str(q, 500)! } : null))),
  };
}

/** What a model adds to the structural digest (participants and timeline are counted, not asked). */
export function toDigestJudgement(a: Obj, messageIds: ReadonlySet<string>): Pick<Digest, "decisions" | "open_questions" | "next_steps"> & { summary: string } {
  const summary = str(a.latest_summary ?? a.summary, 600);
  if (!summary) throw new UnusableAnswer("the answer has no latest_summary");
  const id = (v: unknown) => {
    const s = str(v, 64);
    return s && messageIds.has(s) ? s : null;
  };
  return {
    summary,
    decisions: list(a.decisions, (d) => (isObj(d) && str(d.text, 500) && id(d.message_id) ? { text: str(d.text, 500)!, message_id: id(d.message_id)! } : null)),
    open_questions: list(a.open_questions, (q) =>
      isObj(q) && str(q.text, 500) && id(q.message_id) ? { text: str(q.text, 500)!, message_id: id(q.message_id)!, asked_by: str(q.asked_by, 254) ?? "" } : null,
    ),
    next_steps: list(a.next_steps, (n) => (isObj(n) && str(n.text, 500) && id(n.message_id) ? { text: str(n.text, 500)!, message_id: id(n.message_id)!, due: ymd(n.due) } : null)),
  };
}

const STANDINGS = ["established", "new", "occasional", "unwanted", "suspicious"] as const;

export function toSenderAssessment(a: Obj): SenderAssessment {
  const assessment = str(a.assessment, 800);
  const standing = STANDINGS.find((s) => s === a.standing);
  if (!assessment || !standing) throw new UnusableAnswer("the answer has no assessment or standing");
  return { assessment, standing };
}
