/**
 * An extractive summary of one message: its most telling sentences, as written.
 *
 * Picking rather than writing means the summary can never say something the sender did
 * not, and the same message always gets the same summary. A sentence scores for using the
 * message's recurring words and the subject's, for coming early, and for asking something
 * of the reader; greetings, sign-offs and footers never compete.
 */
import type { IntelMessage, Summary } from "../types.ts";
import { findActionItems } from "./cues.ts";
import { type Sentence, bareSubject, clip, sentences, terms, words } from "./text.ts";

/** Characters of summary: about three sentences of an email. */
const MAX_SUMMARY = 400;
const MAX_PICKED = 3;
const MAX_POINTS = 5;
const MAX_POINT = 160;

/** Money in the sentence: "$1,200.50", "€40", "120 EUR", "USD 99". Bounded digit runs, so linear. */
const AMOUNT =
  /[$€£¥₹]\s?\d|\b\d[\d,]{0,15}(?:\.\d{1,2})?\s?(?:usd|eur|gbp|chf|cad|aud|jpy|inr|dollars|euros|pounds)\b|\b(?:usd|eur|gbp|chf|cad|aud|jpy|inr)\s?\d/i;
/** Something falls due: "due", "deadline", "by Friday", "no later than". */
const DEADLINE =
  /\b(?:due|deadline|no later than|expires?|expiring|overdue|by (?:mon|tue|wed|thu|fri|sat|sun|tomorrow|tonight|today|end of|eod|eow|cob|close of|the end|next|this|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|\d))/i;

export function summarize(m: IntelMessage): Summary {
  const subject = bareSubject(m.subject) || m.subject.trim();
  const said = sentences(m.text).filter((s) => s.kind === "body");
  // "Ok" or a bare link says less than the subject does.
  if (said.reduce((n, s) => n + words(s.text).length, 0) < 2) {
    return { summary: clip(subject, MAX_SUMMARY) || "(no text)", key_points: [] };
  }
  const asks = new Map(findActionItems(m.text, m.date).map((a) => [a.text, a.due]));
  const scores = score(said, subject, asks);
  // Best first; ties go to the earlier sentence, so the order never depends on the sort.
  const ranked = said.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
  return {
    summary: pick(said, ranked),
    key_points: keyPoints(said, ranked, asks),
  };
}

function score(said: Sentence[], subject: string, asks: Map<string, string | null>): number[] {
  const bags = said.map((s) => new Set(terms(s.text)));
  const frequency = new Map<string, number>();
  for (const s of said) for (const t of terms(s.text)) frequency.set(t, (frequency.get(t) ?? 0) + 1);
  let top = 1;
  for (const n of frequency.values()) top = Math.max(top, n);
  const topic = new Set(terms(subject));
  return said.map((s, i) => {
    const bag = bags[i]!;
    if (bag.size === 0) return 0;
    // Recurring words, averaged so a long sentence does not win on length alone.
    let content = 0;
    for (const t of bag) content += frequency.get(t)! / top;
    content /= Math.sqrt(bag.size);
    let shared = 0;
    for (const t of bag) if (topic.has(t)) shared++;
    let total = content + (topic.size ? shared / topic.size : 0);
    // Email states its point first.
    total += i === 0 ? 0.3 : i === 1 ? 0.15 : 0;
    if (asks.has(s.text)) total += 0.3;
    const money = AMOUNT.test(s.text);
    const deadline = DEADLINE.test(s.text);
    const telling = money || deadline;
    total += (money ? 0.2 : 0) + (deadline ? 0.15 : 0);
    const n = words(s.text).length;
    // "Amount due: $120" is short but is the point of an invoice.
    if (n < 4 && !telling) total *= 0.4;
    else if (n > 50) total *= 0.6;
    return total;
  });
}

/** The best sentences that fit together in MAX_SUMMARY, in the order they were written. */
function pick(said: Sentence[], ranked: number[]): string {
  const chosen: number[] = [];
  let length = 0;
  for (const i of ranked) {
    const text = said[i]!.text;
    if (chosen.length === 0 && text.length > MAX_SUMMARY) return clip(text, MAX_SUMMARY);
    if (length + text.length + chosen.length > MAX_SUMMARY) continue;
    chosen.push(i);
    length += text.length;
    if (chosen.length === MAX_PICKED) break;
  }
  return chosen
    .sort((a, b) => a - b)
    .map((i) => terminated(said[i]!.text))
    .join(" ");
}

/**
 * What a reader must not miss: requests, deadlines and amounts first, then the best of the
 * rest, up to MAX_POINTS, shown in message order.
 */
function keyPoints(said: Sentence[], ranked: number[], asks: Map<string, string | null>): string[] {
  const rank = new Map(ranked.map((i, r) => [i, r]));
  // Only the few best of the ordinary sentences are worth a point of their own.
  const priority = said.map((s, i) =>
    asks.has(s.text) || DEADLINE.test(s.text) ? 0 : AMOUNT.test(s.text) ? 1 : rank.get(i)! < MAX_PICKED ? 2 : 3,
  );
  const order = said
    .map((_, i) => i)
    .filter((i) => priority[i]! < 3)
    .sort((a, b) => priority[a]! - priority[b]! || rank.get(a)! - rank.get(b)!);
  const kept: { index: number; key: string }[] = [];
  for (const i of order) {
    if (kept.length === MAX_POINTS) break;
    const key = fold(said[i]!.text);
    if (!key || kept.some((k) => k.key.includes(key) || key.includes(k.key))) continue;
    kept.push({ index: i, key });
  }
  return kept.sort((a, b) => a.index - b.index).map((k) => clip(said[k.index]!.text, MAX_POINT));
}

/** Lines like "Due date: March 15" get a full stop, so joined sentences do not run together. */
const terminated = (text: string) => (/[\p{L}\p{N})"'”’]$/u.test(text) ? `${text}.` : text);

/** Letters and digits only, lowercase: what two near-identical sentences share. */
const fold = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
