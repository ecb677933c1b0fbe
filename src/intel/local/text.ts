/**
 * Email text into sentences and words, for the local (no-model) engines.
 *
 * Mail is not prose: paragraphs are hard-wrapped, lists are bullets, the first line greets
 * and the last lines sign off, and footers repeat the same boilerplate. Sentences come back
 * tagged with what they are, so each engine decides what to skip.
 *
 * This runs on untrusted input on the server's main thread, so the input is capped, every
 * pass is a single scan, and each regex is anchored or bounded and only ever sees one
 * sentence of at most MAX_SENTENCE characters.
 */

/** Characters of a message looked at; more is never needed to summarise an email. */
export const MAX_INPUT = 100_000;
/** Longer runs without a sentence end (pasted logs, one-line HTML) are cut into pieces. */
export const MAX_SENTENCE = 600;

export type SentenceKind =
  /** What the sender is saying. */
  | "body"
  /** "Hi Bob,", "Dear team,". */
  | "greeting"
  /** "Thanks,", "Best regards, Jane" and the name lines after it. */
  | "closing"
  /** Footers: unsubscribe, view in browser, sent from my phone, legal notices. */
  | "boilerplate"
  /** Nothing to read: a bare link, a rule of dashes, a lone number. */
  | "noise";

export interface Sentence {
  readonly text: string;
  readonly kind: SentenceKind;
  /** It was a list item ("- Send the deck", "2) Book the room"). */
  readonly bullet: boolean;
  /** Position among all sentences of the text, from 0. */
  readonly index: number;
}
type Draft = { -readonly [K in keyof Sentence]: Sentence[K] };

/**
 * Texts split lately. The summary, the cues and the digest each ask for the same message's
 * sentences in turn; a handful of entries is enough to split each message once.
 */
const recent = new Map<string, readonly Sentence[]>();
const RECENT = 4;

/** The text's sentences in order, each on one line. */
export function sentences(text: string): readonly Sentence[] {
  const known = recent.get(text);
  if (known) return known;
  const out = split(text);
  recent.set(text, out);
  if (recent.size > RECENT) recent.delete(recent.keys().next().value!);
  return out;
}

function split(text: string): Sentence[] {
  const out: Draft[] = [];
  // Whether each sentence had its line(s) to itself: signature lines do, prose does not.
  const alone: boolean[] = [];
  for (const unit of units(cleanLines(text))) {
    const pieces = splitUnit(unit.text).flatMap(capLength);
    if (out.length === 0 && pieces.length > 0) pieces.splice(0, 1, ...splitGreeting(pieces[0]!));
    for (const piece of pieces) {
      out.push({ text: piece, kind: kindOf(piece, out.length), bullet: unit.bullet, index: out.length });
      alone.push(pieces.length === 1);
    }
  }
  markSignature(out, alone);
  return out;
}

/** Lowercase words, links and addresses left out. */
export function words(text: string): string[] {
  return withoutLinks(text.slice(0, MAX_INPUT).toLowerCase()).match(WORD) ?? [];
}

/**
 * The text with links and email addresses blanked. Done per white-space token rather than
 * with one regex, because `\S+@\S+`-style patterns rescan a long token from every position.
 */
export function withoutLinks(text: string): string {
  if (!text.includes("@") && !text.includes("://") && !/www\./i.test(text)) return text;
  return text
    .split(/\s+/)
    .map((t) => (t.includes("@") || t.includes("://") || /^[("'<]?www\./i.test(t) ? "" : t))
    .join(" ");
}

/** Words that carry meaning: stop words dropped, plurals folded ("invoices" → "invoice"). */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (STOP_WORDS.has(w) || (w.length < 2 && !/\d/.test(w))) continue;
    out.push(stem(w));
  }
  return out;
}

/** One line of at most `max` characters, cut at a word boundary with "…". */
export function clip(text: string, max: number): string {
  const flat = text.slice(0, Math.max(max * 4, 1000)).replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  let cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  if (space > max / 2) cut = cut.slice(0, space);
  return `${cut.replace(/[\s,;:.-]+$/, "")}…`;
}

/** A subject without its reply and forward prefixes ("Re: Fwd: RE: Invoice" → "Invoice"). */
export function bareSubject(subject: string): string {
  let s = subject.slice(0, 1000).replace(/\s+/g, " ").trim();
  // One prefix at a time: bounded work, however many there are.
  for (let i = 0; i < 20; i++) {
    const next = s.replace(/^(?:re|fw|fwd|aw|wg|sv|vs|tr|rif)(?:\[\d{1,4}\])?\s?:\s*/i, "");
    if (next === s) break;
    s = next;
  }
  return s;
}

// --- cleaning -------------------------------------------------------------------------

const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff\u00ad\u034f]/g;
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/**
 * The text's own lines: capped, quoted lines dropped and the signature cut. The extractor
 * has usually done this already; doing it again costs one scan and covers bodies it missed.
 */
function cleanLines(text: string): string[] {
  const lines = text
    .slice(0, MAX_INPUT)
    .replace(ZERO_WIDTH, "")
    .replace(CONTROLS, "")
    .split(/\r\n?|\n|\u2028|\u2029/);
  const out: string[] = [];
  for (const raw of lines) {
    // RFC 3676: "-- " alone starts the signature; clients that trim leave "--".
    if (raw === "-- " || raw === "--") break;
    const line = raw.replace(/\s+/g, " ").trim();
    if (line.startsWith(">")) continue;
    out.push(line);
  }
  return out;
}

// --- lines into units ------------------------------------------------------------------

/** "- ", "* ", "• ", "1. ", "2) ", "a) ", "[ ] ": the marker of a list item. */
const BULLET = /^(?:[-*•·‣▪◦–—+]|\d{1,3}[.)]|[a-z]\)|\[[ xX]?\])\s+(?=\S)/;
/** A line this long that does not end a sentence was most likely wrapped by the sender's client. */
const WRAP_WIDTH = 40;

/**
 * Lines into the runs of text that sentences are split from. A hard-wrapped paragraph is
 * joined back together; a short line (a greeting, "Thanks,", "Total: $120") and a list item
 * stand alone, so they never run into the sentence after them.
 */
function units(lines: string[]): { text: string; bullet: boolean }[] {
  const out: { text: string; bullet: boolean }[] = [];
  let current: { text: string; bullet: boolean } | null = null;
  let open = false; // the current unit's last line was wrapped: the next line continues it
  for (const line of lines) {
    if (!line) {
      current = null;
      open = false;
      continue;
    }
    const marker = BULLET.exec(line);
    const body = marker ? line.slice(marker[0].length) : line;
    if (current && open && !marker) current.text += ` ${body}`;
    else out.push((current = { text: body, bullet: marker !== null }));
    open = line.length >= WRAP_WIDTH && !/[.!?:;]["')\]”’]*$/.test(line);
  }
  return out;
}

// --- units into sentences --------------------------------------------------------------

/** Abbreviations a full stop does not end a sentence after (lowercase, without the dot). */
const ABBREVIATIONS = new Set([
  "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "ft", "rev", "gen", "col", "capt", "lt", "sgt", "hon",
  "inc", "ltd", "co", "corp", "llc", "plc", "gmbh", "bros", "dept", "univ", "assn",
  "e.g", "i.e", "eg", "ie", "vs", "cf", "al", "approx", "ca", "est", "min", "max", "avg", "misc",
  "no", "nos", "vol", "p", "pp", "fig", "figs", "ch", "sec", "art", "para", "ref", "tel", "ph", "ext", "fax", "attn",
  "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
  "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun",
  "u.s", "u.k", "u.s.a", "e.u", "n.b", "p.s", "ps", "a.k.a",
]);

const ENDS = new Set([".", "!", "?", "。", "！", "？"]);
const CLOSERS = new Set([".", "!", "?", "\"", "'", ")", "]", "”", "’", "»", "。", "！", "？"]);

/** One unit (whitespace already collapsed) into sentences, by a single left-to-right scan. */
function splitUnit(unit: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  while (i < unit.length) {
    const c = unit[i]!;
    if (!ENDS.has(c)) {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < unit.length && CLOSERS.has(unit[end]!)) end++;
    const cjk = c === "。" || c === "！" || c === "？";
    if (end < unit.length && (cjk || unit[end] === " ") && endsSentence(unit, i, end)) {
      const s = unit.slice(start, end).trim();
      if (s) out.push(s);
      start = end;
    }
    i = end;
  }
  const rest = unit.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

/** Whether the terminator at `at` (its run ending at `end`, before a space) ends a sentence. */
function endsSentence(unit: string, at: number, end: number): boolean {
  const c = unit[at]!;
  if (c !== ".") return true; // "?" and "!" end one even before a lowercase word in casual mail
  if (end - at > 1 && unit[at + 1] === ".") {
    // An ellipsis ends a sentence only before a capital.
    return startsCapital(unit, end);
  }
  if (isAbbreviation(unit, at)) return false;
  if (isClockSuffix(unit, at) && CONTINUES_TIME.test(unit.slice(end + 1, end + 8))) return false;
  const next = unit[end + 1];
  // "e.g. the", "approx. 5 days" are handled above; a lowercase word means it goes on.
  return next !== undefined && next === next.toUpperCase();
}

function startsCapital(unit: string, end: number): boolean {
  const next = unit[end + 1];
  return next !== undefined && next !== next.toLowerCase();
}

/** The word before the full stop at `at` is an abbreviation or an initial ("J. Smith"). */
function isAbbreviation(unit: string, at: number): boolean {
  let from = at;
  // At most a dozen characters back: no abbreviation is longer.
  while (from > 0 && at - from < 12 && /[\p{L}.]/u.test(unit[from - 1]!)) from--;
  const word = unit.slice(from, at).toLowerCase();
  if (!word) return false;
  if (word.length === 1 && /\p{L}/u.test(word)) return true;
  return ABBREVIATIONS.has(word);
}

/** "p.m." ends a sentence ("at 3 p.m. Does that work?") unless a day or a zone follows it. */
function isClockSuffix(unit: string, at: number): boolean {
  const w = unit.slice(Math.max(0, at - 3), at).toLowerCase();
  return w === "a.m" || w === "p.m";
}
const CONTINUES_TIME =
  /^(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|[a-z]{1,2}[sd]t\b|gmt|utc|cet|cest|bst|ist|et\b|pt\b|ct\b|mt\b)/i;

/** Pieces of at most MAX_SENTENCE characters, cut at a space near the limit when there is one. */
function capLength(sentence: string): string[] {
  if (sentence.length <= MAX_SENTENCE) return [sentence];
  const out: string[] = [];
  let rest = sentence;
  while (rest.length > MAX_SENTENCE) {
    let cut = rest.lastIndexOf(" ", MAX_SENTENCE);
    if (cut < MAX_SENTENCE / 2) cut = MAX_SENTENCE;
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) out.push(rest);
  return out;
}

// --- what a sentence is ----------------------------------------------------------------

const GREETING =
  /^(?:hi|hello|hey|hiya|heya|howdy|dear|greetings|good (?:morning|afternoon|evening|day)|morning|afternoon|evening)\b[^,!.:;?]{0,40}[,!.:]?$/i;
/** A first line that is just a name or a group and a comma: "Bob,", "Team,", "All,". */
const ADDRESSING = /^[\p{L}'’ -]{1,30},$/u;
/** A sign-off phrase, then what follows it: nothing, or a name after a comma ("Best, Jane"). */
const CLOSING =
  /^(?:thanks(?: again| so much| a lot| in advance| all)?|thank you(?: (?:so|very) much)?(?: again| in advance)?|many thanks|much appreciated|thx|tia|cheers|best|best wishes|all the best|(?:best|kind|kindest|warm|warmest|many) regards|regards|sincerely|yours(?: sincerely| truly| faithfully)?|respectfully|take care|talk soon|speak soon|see you(?: soon| then)?|ttyl|br|rgds|love|xoxo|xo|with thanks|have a (?:great|good|nice|lovely) (?:day|weekend|week|one|evening))\b([,.!]*)(.*)$/i;
/** Up to three capitalised words: the name under a sign-off. */
const NAME = /^\p{Lu}[\p{L}.'’-]*(?: \p{Lu}[\p{L}.'’-]*){0,2}[,.!]*$/u;

/**
 * Footer phrases, lowercase. Matched with `includes`, so no regex runs on them; a sentence
 * is boilerplate when it carries any.
 */
const BOILERPLATE = [
  "unsubscribe", "view in browser", "view in your browser", "view this email in", "view it in your browser",
  "view online", "view as a web page", "view as webpage", "trouble viewing this email", "having trouble viewing",
  "email preferences", "manage preferences", "manage your preferences", "update your preferences",
  "manage your subscription", "update your subscription", "opt out", "opt-out",
  "you are receiving this", "you're receiving this", "you received this email", "you have received this email",
  "this email was sent to", "this message was sent to", "this email was sent by", "you are subscribed",
  "you signed up", "add us to your address book", "if you no longer wish", "no longer want to receive",
  "privacy policy", "terms of service", "terms and conditions", "all rights reserved", "copyright ©", "©",
  "sent from my iphone", "sent from my ipad", "sent from my android", "sent from my samsung", "sent from my mobile",
  "sent from my phone", "sent from mail for windows", "get outlook for", "sent from outlook", "sent from yahoo mail",
  "this email and any attachments", "this message and any attachments", "this e-mail and any attachments",
  "confidentiality notice", "is confidential and", "intended only for the", "intended solely for",
  "if you are not the intended recipient", "please consider the environment before printing",
  "do not reply to this email", "please do not reply", "this is an automated message", "this mailbox is not monitored",
  "powered by mailchimp", "forward to a friend",
];

function kindOf(text: string, index: number): SentenceKind {
  if (!/\p{L}/u.test(withoutLinks(text))) return "noise";
  const lower = text.toLowerCase();
  if (BOILERPLATE.some((p) => lower.includes(p))) return "boilerplate";
  if (text.length <= 60) {
    if (index < 2 && (GREETING.test(text) || (index === 0 && ADDRESSING.test(text)))) return "greeting";
    if (isClosing(text)) return "closing";
  }
  return "body";
}

function isClosing(text: string): boolean {
  const m = CLOSING.exec(text);
  if (!m) return false;
  const rest = m[2]!.trim();
  return rest === "" || (m[1] !== "" && NAME.test(rest));
}

/** One to three capitalised words and nothing else: "Dana", "Jane Doe", "- J". */
const BARE_NAME = /^(?:[-–—~] ?)?\p{Lu}[\p{L}'’-]*(?: \p{Lu}[\p{L}.'’-]*){0,2}$/u;

/** "Hi Bob, can you …" → "Hi Bob," and "can you …", so the greeting does not colour the ask. */
function splitGreeting(first: string): string[] {
  const m = GREETING_PREFIX.exec(first.slice(0, 60));
  if (!m || m[0].length >= first.length) return [first];
  return [m[0].trim(), first.slice(m[0].length).trim()];
}
const GREETING_PREFIX = /^(?:hi|hello|hey|hiya|dear|good (?:morning|afternoon|evening))\b[^,!:.?]{0,40}[,!:] /i;

/**
 * After a sign-off near the end come a name, a title, a phone number: the sender's
 * signature even without a "-- ". Lines after the last sign-off are marked closing too when
 * each is short and on its own line; prose or a "P.S." means the sender was still talking.
 */
function markSignature(out: Draft[], alone: boolean[]): void {
  // A bare name on the last line signs off even without a "Thanks,".
  const end = out.length - 1;
  if (end > 0 && alone[end] && out[end]!.kind === "body" && BARE_NAME.test(out[end]!.text)) out[end]!.kind = "closing";
  let last = -1;
  for (let i = Math.max(0, out.length - 8); i < out.length; i++) {
    if (out[i]!.kind === "closing" && alone[i]) last = i;
  }
  if (last < 0 || out.length - last - 1 > 6) return;
  for (let i = last + 1; i < out.length; i++) {
    const s = out[i]!;
    if (!alone[i] || s.text.length > 80 || /^p\.?\s?s\b/i.test(s.text) || /[?!]$/.test(s.text)) return;
    // "Head of Sales, Acme Inc." is a title; "I'll send it over." is prose.
    if (s.text.endsWith(".") && s.text.split(" ").length > 4 && !isAbbreviation(s.text, s.text.length - 1)) return;
  }
  for (let i = last + 1; i < out.length; i++) if (out[i]!.kind === "body") out[i]!.kind = "closing";
}

// --- words -----------------------------------------------------------------------------

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;

/** Folds the commonest English plurals; enough for counting repeats, not a real stemmer. */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us") && !word.endsWith("is")) {
    return word.slice(0, -1);
  }
  return word.replace(/['’]s$/, "");
}

export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also am an and any are aren't as at be because been before being below " +
    "between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each " +
    "few for from further get got had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers " +
    "herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself just let's me more " +
    "most mustn't my myself no nor not now of off on once only or other ought our ours ourselves out over own re " +
    "same shan't she she'd she'll she's should shouldn't so some such than that that's the their theirs them " +
    "themselves then there there's these they they'd they'll they're they've this those through to too under until " +
    "up us very was wasn't we we'd we'll we're we've were weren't what what's when when's where where's which while " +
    "who who's whom why why's will with won't would wouldn't you you'd you'll you're you've your yours yourself " +
    "yourselves hi hello hey dear thanks thank please regards best cheers ok okay yes yeah just also really " +
    "would like know let one two may might must shall"
  ).split(" "),
);
