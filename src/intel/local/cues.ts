/**
 * What a message asks of its reader and what it settles: questions, requests, decisions.
 *
 * Phrase lists rather than a model, so the answer is the same every time and costs one
 * pass. Only the sender's own sentences count: greetings, sign-offs and footers are
 * skipped (text.ts tags them). Every pattern here sees one sentence of bounded length and
 * is a plain alternation of words, so none can backtrack badly.
 */
import * as chrono from "chrono-node";
import { type Sentence, sentences } from "./text.ts";

/** Requests looked at per text: each costs a chrono parse. */
const MAX_ITEMS = 50;

/** Questions asked of the reader, as written. */
export function findQuestions(text: string): { text: string }[] {
  const all = sentences(text);
  // Questions in bulk mail ("Ready to save?", "Questions? Contact us") are never for answering.
  if (isBulk(all)) return [];
  return said(all)
    .filter((s) => isQuestion(s.text))
    .map((s) => ({ text: s.text }));
}

/** Requests made of the reader; `due` is the date the sentence names (YYYY-MM-DD), else null. */
export function findActionItems(text: string, reference: Date): { text: string; due: string | null }[] {
  // Copies, so a caller that edits its result cannot change what the next caller gets.
  const key = `${reference.getTime()}:${text}`;
  const known = recentItems.get(key) ?? actionItems(text, reference);
  recentItems.set(key, known);
  if (recentItems.size > RECENT_ITEMS) recentItems.delete(recentItems.keys().next().value!);
  return known.map((a) => ({ ...a }));
}

/**
 * Results of late calls: the summary and the digest both ask for a message's requests, and
 * each costs a date parse per request.
 */
const recentItems = new Map<string, { text: string; due: string | null }[]>();
const RECENT_ITEMS = 4;

function actionItems(text: string, reference: Date): { text: string; due: string | null }[] {
  const all = sentences(text);
  const bulk = isBulk(all);
  const out: { text: string; due: string | null }[] = [];
  let underHeading = false;
  for (const s of said(all)) {
    if (out.length >= MAX_ITEMS) break;
    // Bullets under "Action items:" or "Next steps:" are requests whatever verb starts them.
    if (!s.bullet) underHeading = TASK_HEADING.test(s.text);
    const listed = s.bullet && !bulk && (underHeading || IMPERATIVE.has(firstWord(s.text)));
    // In bulk mail "Can you believe these prices?" is a slogan, not a request.
    const asked = isRequest(s.text) && !(bulk && ENDS_WITH_QUESTION.test(s.text));
    if (listed || asked) out.push({ text: s.text, due: dueDate(s.text, reference) });
  }
  return out;
}

/** Decisions the message reports or makes. */
export function findDecisions(text: string): { text: string }[] {
  return said(sentences(text))
    .filter((s) => isDecision(s.text))
    .map((s) => ({ text: s.text }));
}

// --- shared --------------------------------------------------------------------------

/** What the sender said: no greetings, sign-offs, footers or bare links. */
const said = (all: readonly Sentence[]) => all.filter((s) => s.kind === "body");

/** Lowercase with typographic apostrophes straightened, so "don’t" matches "don't". */
const norm = (text: string) => text.toLowerCase().replace(/[’‘]/g, "'");

/** Footer phrases only mailing lists and marketing carry (a phone's "Sent from" does not count). */
const BULK_MARKERS = ["unsubscribe", "preferences", "opt out", "opt-out", "view in", "view this email", "receiving this", "received this email", "this email was sent", "subscribed", "no longer wish"];
function isBulk(all: readonly Sentence[]): boolean {
  return all.some((s) => s.kind === "boilerplate" && BULK_MARKERS.some((m) => norm(s.text).includes(m)));
}

/** "If you have any questions, please …": polite closing lines, neither a question nor a request. */
const FILLER_CONTEXT = [
  "if you have any questions", "if you have questions", "if you have any further questions", "should you have any",
  "if you need anything", "if you need any", "if there is anything", "if there's anything", "if you require any",
  "any questions", "any other questions", "any further questions",
];
const isFiller = (lower: string) => FILLER_CONTEXT.some((p) => lower.includes(p));

// --- questions -----------------------------------------------------------------------

const ENDS_WITH_QUESTION = /\?["')\]”’»]*$/;
/** Asking without a question mark. */
const INDIRECT = [
  "could you let me know", "can you let me know", "could you tell me", "can you tell me", "let me know if",
  "let me know whether", "let me know when", "let me know what", "let me know how", "let me know which",
  "let me know who", "let me know where", "let us know if", "let us know whether", "let us know when",
  "let us know what", "let us know how", "let us know which", "i was wondering", "i am wondering", "i'm wondering",
  "i wonder if", "i wonder whether", "wondering if", "wondering whether", "please advise", "please confirm whether",
  "please confirm if", "i'd like to know", "i would like to know", "i'd love to know", "curious whether",
  "curious if", "keen to hear", "your thoughts on", "any thoughts on", "any update on",
];
/** Openers of questions nobody is meant to answer. */
const RHETORICAL =
  /^(?:ready (?:to|for)|want (?:to|more)|looking for|need (?:a|an|more|help|some)|tired of|did you know|why wait|what are you waiting for|have (?:questions|a question)|got (?:questions|a question)|questions|need help|who doesn't|who says|who knew|still (?:looking|thinking|deciding|searching)|interested|not sure|forgot your password|what's new|guess what)\b/;

function isQuestion(text: string): boolean {
  const lower = norm(text);
  if (isFiller(lower)) return false;
  if (ENDS_WITH_QUESTION.test(text)) {
    // "Really?!" exclaims; "Thoughts?" is the one one-word question that asks.
    if (/!\?|\?!/.test(text)) return false;
    if (RHETORICAL.test(lower)) return false;
    return lower.split(" ").length >= 2 || lower.startsWith("thoughts");
  }
  return INDIRECT.some((p) => lower.includes(p));
}

// --- requests ------------------------------------------------------------------------

const REQUEST =
  /\b(?:please|pls|plz|kindly|can you|could you|would you (?:please|kindly|mind|be able)|will you|can u|could u|make sure|be sure to|ensure (?:that )?you|need you to|needs you to|want you to|would like you to|i'd like you to|don't forget|do not forget|remember to|action required|action needed|required action|you need to|you'll need to|you will need to|you must|you have to|at your earliest convenience|asap)\b/;
/** Uses of "please" that ask nothing. */
const POLITE = [
  "please find attached", "please find enclosed", "please find below", "please find the attached", "please see attached",
  "please see below", "please see the attached", "please note", "please be advised", "please feel free",
  "please don't hesitate", "please do not hesitate", "please do not reply", "please don't reply", "please ignore",
  "please disregard", "please accept our apologies", "please accept my apologies", "please bear with",
];

function isRequest(text: string): boolean {
  let lower = norm(text);
  if (isFiller(lower)) return false;
  for (const p of POLITE) if (lower.includes(p)) lower = lower.split(p).join(" ");
  return REQUEST.test(lower);
}

/** A line that introduces a to-do list. */
const TASK_HEADING =
  /\b(?:action items?|action points?|next steps?|to-?dos?|tasks?|follow[- ]ups?|what (?:we|i) need(?: from you)?|requests?|asks?|checklist)\s*:$/i;

/** Verbs that start a to-do bullet ("Send the deck", "Review PR #12"). */
const IMPERATIVE = new Set([
  "add", "approve", "arrange", "ask", "attach", "book", "bring", "call", "cancel", "check", "choose", "clean", "complete",
  "confirm", "contact", "create", "decide", "delete", "deploy", "draft", "email", "file", "fill", "finalise", "finalize",
  "finish", "fix", "follow", "forward", "get", "invite", "join", "let", "make", "merge", "move", "order", "pay", "ping",
  "plan", "prepare", "print", "provide", "publish", "reach", "read", "register", "remind", "remove", "renew", "reply",
  "request", "reschedule", "respond", "return", "review", "schedule", "scan", "send", "set", "share", "sign", "submit",
  "test", "update", "upload", "verify", "write",
]);
const firstWord = (text: string) => /^[\p{L}]+/u.exec(text.toLowerCase())?.[0] ?? "";

/**
 * The calendar date a sentence names, resolved against the message's date, as YYYY-MM-DD.
 * A time of day alone ("the 3 p.m. slot") names no date, so it is not a due date.
 */
function dueDate(text: string, reference: Date): string | null {
  const ref = Number.isFinite(reference.getTime()) ? reference : new Date(0);
  const found = chrono
    .parse(text, ref, { forwardDate: true })
    .find((r) => r.start.isCertain("day") || r.start.isCertain("weekday") || r.start.isCertain("month"));
  const d = found?.start.date();
  if (!d || !Number.isFinite(d.getTime())) return null;
  // chrono builds the date in the process's time zone, so read it back the same way.
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

// --- decisions -----------------------------------------------------------------------

const DECISION =
  /\b(?:(?:we|i)(?:'ve| have)? decided|it was decided|(?:has|have) been decided|decided to|decided on|decided that|(?:we|all|everyone|both)(?:'ve| have)? agreed|agreed to|agreed on|agreed that|let's go with|let us go with|(?:we'll|we will|i'll|i will) go with|we're going with|we are going with|approved|confirmed|we will|we'll|we are going to|we're going to|final decision|the decision is|the decision was|going forward|moving forward|from now on|signed off|green light|the plan is)\b/;
/** Hedged or conditional: not settled yet. */
const UNSETTLED =
  /^(?:if|when|once|unless|whether|maybe|perhaps|should|could|would)\b|\b(?:not sure|might|maybe|perhaps|not yet|pending|to be confirmed|tbc|we'll see|we will see|we'll let you know|we will let you know|we'll be in touch|we will be in touch|we'll get back|we will get back|we will contact|we'll contact|we will review|we'll review|we will notify|we'll notify)\b/;

function isDecision(text: string): boolean {
  if (ENDS_WITH_QUESTION.test(text)) return false;
  const lower = norm(text);
  return DECISION.test(lower) && !UNSETTLED.test(lower);
}
