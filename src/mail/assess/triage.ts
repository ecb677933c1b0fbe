/**
 * Triage: ordered rules, first match wins. Machine-sent categories come before the
 * language checks, so a newsletter asking "Ready to save?" is a newsletter, not a question.
 */
import type { RiskLevel, TriageLabel } from "../types.ts";
import type { AssessContext } from "./model.ts";
import { hasListUnsubscribe, noReplySender } from "./signals/headers.ts";
import { keptSplit, splitReply } from "../extract.ts";
import { normalizeForMatch } from "./text.ts";
import { cutAtWord, isWithin, someGated, testGated, testGatedWithin } from "./word-gate.ts";

export interface TriageFacts {
  signals: ReadonlySet<string>;
  risk: RiskLevel;
}

export interface TriageRule {
  label: TriageLabel;
  description: string;
  when: (ctx: AssessContext, facts: TriageFacts) => boolean;
}

export const TRIAGE_RULES: readonly TriageRule[] = [
  { label: "spam", description: "risk is high, an upstream filter flagged the message (`upstream_spam_flag`), or the account blocked the sender (`sender_blocked`)", when: (_, f) => isSpam(f) },
  { label: "newsletter", description: "bulk mail (`bulk`) that carries List-Unsubscribe", when: (ctx, f) => f.signals.has("bulk") && hasListUnsubscribe(ctx) },
  { label: "notification", description: "machine-sent: `auto_submitted`, `bounce`, other `bulk` mail, or a no-reply/notifications sender address", when: (ctx, f) => f.signals.has("auto_submitted") || f.signals.has("bounce") || f.signals.has("bulk") || noReplySender(ctx) },
  { label: "action_required", description: "the new (unquoted) text asks the recipient to do something, or names a deadline or urgency", when: (ctx) => actionAsked(ctx) },
  { label: "reply_needed", description: "the new text asks the recipient a direct question", when: (ctx) => askedOf(ctx) },
  { label: "fyi", description: "everything else", when: () => true },
];

// The spam rule is the only one that reads the risk or a signal of a final rule (rules.ts):
// the others read the message and content signals only.
function isSpam(f: TriageFacts): boolean {
  return f.risk === "high" || f.signals.has("upstream_spam_flag") || f.signals.has("sender_blocked");
}

/**
 * The label as far as the message decides it, where the message was parsed: the table run
 * with the content signals and no risk yet. finalTriageOf completes it once auth is known.
 */
export const contentTriageOf = (ctx: AssessContext, contentSignals: ReadonlySet<string>): TriageLabel => triageOf(ctx, { signals: contentSignals, risk: "low" });

/** The first rule, spam, decided on the final facts; otherwise what the content decided. */
export const finalTriageOf = (content: TriageLabel, facts: TriageFacts): TriageLabel => (isSpam(facts) ? "spam" : content);

export function triageOf(ctx: AssessContext, facts: TriageFacts): TriageLabel {
  for (const rule of TRIAGE_RULES) {
    try {
      if (rule.when(ctx, facts)) return rule.label;
    } catch {
      // a broken rule falls through to the next, ending at fyi
    }
  }
  return "fyi";
}

/** What the triage language rules read: the subject and the start of the new text. */
const TRIAGE_CHARS = 16 * 1024;

interface NewText {
  text: string;
  normalized: string;
  /** The text the action rule reads: the subject, a line break, the new text. */
  withSubject: string;
  /**
   * Where `normalized` is in the context's allText, whose word index the content rules have
   * made already, with no word running on across its ends; -1 where it is not (a quote or a
   * signature cut from it, HTML, text normalised otherwise once joined).
   */
  inAllText: number;
}

/**
 * The new text of a context's body, its matching form, and that after the subject, made once
 * per message: two rules read them, and the reply split and normalisation are the dearest
 * steps of the triage.
 */
const newTexts = new WeakMap<AssessContext, NewText>();
function newTextOf(ctx: AssessContext): NewText {
  let hit = newTexts.get(ctx);
  if (!hit) {
    const text = newText(ctx.visibleBody);
    const normalized = normalizeForMatch(text);
    newTexts.set(ctx, (hit = { text, normalized, withSubject: `${ctx.subject}\n${normalized}`, inAllText: placeIn(ctx.allText, normalized) }));
  }
  return hit;
}

/**
 * Where `part` is in `host` with no word running on across its ends, or -1: looked for where
 * its first characters are, at the first few such places (a bounded search: a needle of 16 KiB
 * is never compared at every place of the haystack).
 */
function placeIn(host: string, part: string): number {
  if (part.length === 0) return -1;
  const head = part.slice(0, 64);
  for (let at = host.indexOf(head), tries = 0; at >= 0 && tries < 4; at = host.indexOf(head, at + 1), tries++) {
    if (isWithin(part, host, at)) return at;
  }
  return -1;
}

/** Where the triage reads the new text in the allText (-1: with an index of its own); for its test. */
export const newTextPlace = (ctx: AssessContext): number => newTextOf(ctx).inAllText;

/**
 * The action rule on the subject and the new text. No action pattern matches a line break or
 * looks across one (they read words, spaces and digits), so reading the two apart answers what
 * reading "subject\nnew text" does; apart, the new text is read with the word index of the
 * allText that holds it, where it is there, instead of an index of its own.
 */
function actionAsked(ctx: AssessContext): boolean {
  const { normalized, withSubject, inAllText } = newTextOf(ctx);
  if (inAllText < 0) return asksForAction(withSubject);
  return asksForAction(ctx.subject) || ACTION_PATTERNS.some((re) => testGatedWithin(re, normalized, ctx.allText, inAllText));
}

/** asksQuestion of the new text, whose words an index made already holds (the allText's, or that of the text the action rule read). */
function askedOf(ctx: AssessContext): boolean {
  const { text, normalized, withSubject, inAllText } = newTextOf(ctx);
  const within = inAllText >= 0 ? { host: ctx.allText, offset: inAllText } : { host: withSubject, offset: ctx.subject.length + 1 };
  return asksQuestion(text, normalized, within);
}

export const ACTION_PATTERNS: RegExp[] = [
  /(?<!\bno )\b(?:action|response|approval|signature|your input) (?:is )?(?:required|needed|requested)\b/,
  /\bplease (?:kindly )?(?:review|approve|sign|confirm|complete|submit|send|update|pay|fill (?:out|in)|schedule|register|book|prepare|process|fix|check|call|follow up|take a look|look into|make sure|ensure|forward|share|provide|renew|rsvp|return|upload|read|install|reset|verify|join|attend|accept|decline|respond|reply)\b/,
  /\b(?:can|could|would|will) you (?:please |kindly )?(?:review|approve|sign|confirm|complete|submit|send|update|pay|fill (?:out|in)|schedule|prepare|process|fix|check|call|take a look|look into|make sure|share|provide|forward|upload|book|handle|set up|draft|write)\b/,
  /\b(?:i need you to|i'd like you to|i would like you to|you need to|you must|make sure (?:to|you))\b/,
  /\b(?:deadline|due (?:date|by|on|today|tomorrow|this)|no later than|expires? (?:on|in|today|tomorrow)|before (?:the )?end of (?:the )?(?:day|week|month)|within \d{1,3} (?:hours?|days?|business days))\b/,
  /\bby (?:(?:the )?end of (?:the )?(?:day|week|month|business)|eod|eow|cob|tomorrow|tonight|today|monday|tuesday|wednesday|thursday|friday|saturday|sunday|noon|midnight|next week|\d{1,2}(?::\d{2})? ?(?:am|pm)|the \d{1,2}(?:st|nd|rd|th)|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]{0,6}\.? \d{1,2}(?:st|nd|rd|th)?\b|\d{1,2}(?:st|nd|rd|th)? (?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec))/,
  /\b(?:asap|urgent(?:ly)?|as soon as possible|at your earliest convenience|rsvp)\b/,
];

export const asksForAction = (text: string): boolean => someGated(ACTION_PATTERNS, text);

const SECOND_PERSON = /\b(?:you|your|yours|you're|you've|u)\b/;
const QUESTION_OPENER = /^(?:what|when|where|who|whom|which|why|how|do|does|did|are|is|can|could|would|will|should|shall|have|has|any)\b/;
export const ASK_PHRASES = /\b(?:let me know|get back to me|please advise|your thoughts|what do you think|thoughts\?)/;

/**
 * A question mark closing a sentence that speaks to the reader, or an explicit ask.
 * `normalized` is normalizeForMatch(text), when the caller has it already, and `within` a text
 * that ends with it, whose word index the phrases may use (testGatedWithin).
 */
export function asksQuestion(text: string, normalized?: string, within?: { host: string; offset: number }): boolean {
  const t = text.length > TRIAGE_CHARS ? text.slice(0, TRIAGE_CHARS) : text;
  const given = t === text && normalized !== undefined;
  const phrased = given && within ? testGatedWithin(ASK_PHRASES, normalized, within.host, within.offset) : testGated(ASK_PHRASES, given ? normalized! : normalizeForMatch(t));
  if (phrased) return true;
  let from = 0;
  for (let q = t.indexOf("?"); q >= 0; q = t.indexOf("?", q + 1)) {
    let start = q - 1;
    while (start >= from && start > q - 300 && !".!?\n".includes(t[start]!)) start--;
    const sentence = normalizeForMatch(t.slice(start + 1, q)).replace(/^[^a-z0-9]+/, "").trim();
    from = q + 1;
    if (sentence && (SECOND_PERSON.test(sentence) || QUESTION_OPENER.test(sentence))) return true;
  }
  return false;
}

/**
 * The part of a body the sender wrote now: the reply splitting of extracted_text (quoted
 * history in any of the languages and client styles it knows, bottom-posted and interleaved
 * answers kept, signature cut), up to a forwarded message, which is someone else's words.
 * Of a longer body, the start of its new text: where this thread has just split the whole body
 * (the parser's worker does, for extracted_text, before it assesses), that split's first
 * TRIAGE_CHARS, at no cost; otherwise the split of the body's first TRIAGE_CHARS, which bounds
 * the work (the same text but where the cut meets a quote, a signature or a reply header).
 */
export function newText(body: string): string {
  const whole = body.length > TRIAGE_CHARS ? keptSplit(body) : undefined;
  const text = whole ? cutAtWord(whole.text, TRIAGE_CHARS) : splitReply({ text: cutAtWord(body, TRIAGE_CHARS), html: null }).text;
  const forwarded = text.search(FORWARD_MARK);
  return forwarded >= 0 ? text.slice(0, forwarded) : text;
}

const FORWARD_MARK = /^-{2,} ?(?:forwarded message|weitergeleitete nachricht|message transféré|mensaje reenviado|messaggio inoltrato|doorgestuurd bericht) ?-{2,}$|^(?:begin forwarded message|anfang der weitergeleiteten nachricht):$/im;
