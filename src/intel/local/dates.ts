/**
 * Calendar dates a message mentions, resolved against the day it was sent.
 *
 * chrono finds most candidates (in the message's language and in English); the rules here
 * remove what it reads too eagerly and add the few forms it does not read. A mention counts
 * only when it pins down a day: "March 2026", "at 5pm", "next week", "within 30 days" and
 * "Mon–Fri" do not; "Friday", "tomorrow", "the 24th" and "3/14/2026" do. Weekdays mean the
 * next one strictly after the send day ("Friday", written on a Friday, is a week later);
 * dates without a year mean the next occurrence; "last Monday" and "yesterday" look back.
 */
import * as chrono from "chrono-node";
import type { ExtractedDate } from "../types.ts";
import { type Day, addDays, dayOf, daysBetween, nextDate, nextDayOfMonth, sameMonthDay, yearEarlier } from "./calendar.ts";
import { kindOf } from "./date-kind.ts";
import { type Reading, offsetMinutes } from "./locale.ts";
import { Claims, type Span, around, pieces } from "./spans.ts";

export interface FoundDate extends ExtractedDate, Span {}

/** chrono is quadratic on runs like "1/1/1/…", so it only ever sees this much at once. */
const MAX_PIECE = 400;
/** Pieces chrono could find nothing in are skipped without parsing. */
const MAYBE_DATE =
  /\d|\b(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|today|tonight|tomorrow|yesterday)/i;

/** Lengths of time ("in 2 weeks", "within 30 days", "next week"): chrono tags them so. */
const RELATIVE = "result/relativeDate";
/** The send time itself ("now", "jetzt", "maintenant"), and times of day with no day. */
const NOT_A_DAY =
  /^(?:right\s+)?now$|^(?:jetzt|maintenant|ahora|adesso|agora|nu)$|weekend|\b(?:seconds?|secs?|minutes?|mins?|hours?|hrs?)\b/i;
/** "Black Friday", "Cyber Monday", "Good Friday": named days, not the coming weekday. */
const NAMED_DAY = /\b(?:black|cyber|good|giving|super|ash|holy|palm|easter|blue)\s+$/i;
const BACKWARD = /\b(?:last|past|previous|ago|yesterday)\b/i;
/** "24/7" and friends: idioms shaped like dates. */
const IDIOM = /^(?:24\/7|24\/365|9\/11|50\/50)$/;
/** "3/4", "12-25": without a year, as often a fraction, a score or a room as a date. */
const SHORT_NUMERIC = /^\d{1,2}[/-]\d{1,2}$/;
const DATE_LEAD =
  /\b(?:on|by|due|until|till|before|after|from|for|through|thru|starting|effective|dated?|deadline|expires?|up to|le|au|am|vom|bis|zum|el|al|il|op)\s*:?\s*$/i;
const DOTTED = /\b\d{1,2}\.\d{1,2}\.(?:\d{2}|\d{4})?(?!\d)/;
const MONTH_NAME = /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i;
/** Any numeric day and month ("10/12/2026", "22/05", "06.03.2026"). */
const NUMERIC = /\b\d{1,2}[/.-]\d{1,2}\b/;
/** "v2026.03.1", "build 2026.03.1": versions that look like dates. */
const VERSION_LEAD = /(?:\bv|\bversion|\bbuild|\brelease|\brev|\bver)\.?\s*$/i;
/** "sat" and "sun" in lowercase are a verb and a star far more often than days. */
const WORD_NOT_DAY = /^(?:sat|sun)$/;

const WEEKDAY = String.raw`(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?\.?`;
/** "Mon–Fri", "Monday to Friday": opening hours, not dates. */
const WEEKDAY_RANGE = new RegExp(String.raw`\b${WEEKDAY}\s{0,3}(?:-|–|—|to|through|thru|till|until)\s{0,3}${WEEKDAY}(?![\p{L}])`, "giu");
const LINE_REACH = 250;
const HOURS_LINE = /\b(?:opening hours|office hours|business hours|hours of operation|open(?:ing)? times|we're open|we are open)\b/i;
/** "the 24th", "Thursday the 19th": chrono reads no day of the month alone. */
const DAY_OF_MONTH = new RegExp(String.raw`\b(?:(${WEEKDAY}),?\s{1,3})?the\s{1,3}(\d{1,2})(?:st|nd|rd|th)\b`, "giu");
const DAY_LEAD = /\b(?:on|by|until|till|before|after|from|since|for)\s+$/i;
const DAY_TAIL = /^(?:\s*(?:[.,;:!?)]|$)|\s+(?:at|or|and|works?|would|is|then|if|instead|too)\b)/i;
const MONTH_NEXT = /^\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i;
/** "this afternoon": today, which chrono's forward mode pushes to tomorrow. */
const THIS_PART_OF_DAY = /\bthis\s+(?:morning|afternoon|evening)\b/gi;
/** "12.05.": a dotted day and month with no year, as day-first countries write them. */
const DOTTED_NO_YEAR = /(?<![\d.])(\d{1,2})\.(\d{1,2})\.(?![\d.]|\w)/g;
/** What must stand before "12.05." for it to be a date rather than a section number. */
const DOTTED_LEAD = /\b(?:on|by|until|till|before|after|from|to|and|since|am|vom|bis|zum|und|le|au|du|al|el|dal|tot|van)\s+$|[-–]\s*$/i;
/** "Apr 16 or 17": the bare second day shares the first one's month. */
const SECOND_DAY = /^\s*(?:or|and|&|\/)\s*(\d{1,2})(?:st|nd|rd|th)?(?=\s*(?:[.,;:!?)]|$|\s(?:at|works?|would|is)\b))/i;

const RANK: Record<ExtractedDate["kind"], number> = { deadline: 2, event: 1, date: 0 };

/** Dates in the text, each calendar day once, with the strongest kind any mention gave it. */
export function findDates(text: string, reference: Date, reading: Reading, inside: (s: Span) => boolean): FoundDate[] {
  const instant = Number.isFinite(reference.getTime()) ? reference : new Date(0);
  const offset = offsetMinutes(reading.timeZone, instant);
  const ref: chrono.ParsingReference = { instant, timezone: offset };
  // The send day on the sender's calendar.
  const today = dayOf(new Date(instant.getTime() + offset * 60_000));
  const out = new Map<string, FoundDate>();
  // Spans the forms read below took (and "Mon–Fri"), which chrono's results must not overlap.
  const taken = new Claims(text.length);
  const add = (span: Span, written: string, day: Day, time: string | null, hasTime: boolean) => {
    const found = { ...span, text: written, date: day, time, kind: kindOf(text, span, hasTime) };
    const seen = out.get(day);
    if (!seen) out.set(day, found);
    else {
      if (RANK[found.kind] > RANK[seen.kind]) seen.kind = found.kind;
      seen.time ??= found.time;
    }
  };

  // Forms chrono misses or misreads go first and shadow whatever chrono finds there.
  for (const m of text.matchAll(WEEKDAY_RANGE)) taken.claim(spanOf(m));
  for (const m of text.matchAll(THIS_PART_OF_DAY)) {
    const span = spanOf(m);
    if (inside(span)) continue;
    taken.claim(span);
    add(span, m[0], today, null, false);
  }
  for (const m of text.matchAll(DAY_OF_MONTH)) {
    const span = spanOf(m);
    const before = text.slice(Math.max(0, span.start - 12), span.start);
    const after = text.slice(span.end, span.end + 12);
    if (inside(span) || MONTH_NEXT.test(after) || !(m[1] || DAY_LEAD.test(before) || DAY_TAIL.test(after))) continue;
    taken.claim(span);
    add(span, m[0], nextDayOfMonth(today, Number(m[2])), null, false);
  }

  // Dotted dates are day first wherever they are written.
  for (const m of text.matchAll(DOTTED_NO_YEAR)) {
    const span = spanOf(m);
    if (inside(span) || !DOTTED_LEAD.test(text.slice(Math.max(0, span.start - 12), span.start))) continue;
    const date = nextDate(today, Number(m[2]), Number(m[1]));
    if (!date) continue;
    taken.claim(span);
    add(span, m[0], date, null, false);
  }

  for (const r of candidates(text, ref, reading)) {
    const { span } = r;
    if (inside(span) || taken.overlaps(span) || !isDay(r.result, text, span)) continue;
    if (isOpeningHours(r.result, text, span)) continue;
    const result = BACKWARD.test(r.result.text) ? (r.parser.parse(r.result.text, ref)[0] ?? r.result) : r.result;
    let start = ymd(result.start);
    // A weekday alone means the next one strictly after today.
    if (!result.start.isCertain("day") && start === today && !BACKWARD.test(result.text)) start = addDays(start, 7);
    const shift = yearBack(result, text, span, today, start);
    if (shift) start = yearEarlier(start);
    const hasTime = result.start.isCertain("hour");
    add(span, result.text, start, hhmm(result.start), hasTime);
    if (result.end && (result.end.isCertain("day") || result.end.isCertain("weekday"))) {
      const last = shift ? yearEarlier(ymd(result.end)) : ymd(result.end);
      if (last !== start) add(span, result.text, last, hhmm(result.end), hasTime);
    } else if (result.start.isCertain("day") && result.start.isCertain("month")) {
      const second = SECOND_DAY.exec(text.slice(span.end, span.end + 20));
      const day = second ? sameMonthDay(start, Number(second[1])) : null;
      if (day) add(span, result.text, day, null, hasTime);
    }
  }
  return [...out.values()];
}

interface Candidate {
  result: chrono.ParsedResult;
  span: Span;
  parser: chrono.Chrono;
}

/**
 * chrono's results over the text, piece by piece: the message's own language first, then
 * English, an English result dropped where the other already read something.
 */
function candidates(text: string, ref: chrono.ParsingReference, reading: Reading): Candidate[] {
  // chrono's British parser misreads "September 17" (as 1 September), so English is always
  // read the US way and only numeric dates are read again day first where that is the custom.
  const parsers = [...localParsers(text, reading), chrono.en.casual];
  const dayFirst = reading.dayFirst ? NUMERIC : DOTTED;
  const out: Candidate[] = [];
  for (const piece of pieces(text, MAX_PIECE)) {
    if (!MAYBE_DATE.test(piece.text)) continue;
    // Hard-wrapped lines are one sentence to chrono ("by Friday\n24 April"); dashes are
    // made ASCII so "Aug 10–14" reads as a range. Both keep every offset.
    const input = piece.text.replace(/\n/g, " ").replace(/[–—]/g, "-");
    const found: Candidate[] = [];
    for (const parser of parsers) {
      for (const result of parser.parse(input, ref, { forwardDate: true })) {
        const start = piece.offset + result.index;
        const span = { start, end: start + result.text.length };
        if (found.some((f) => f.span.start < span.end && span.start < f.span.end)) continue;
        // Dotted dates are day first everywhere ("06.03.2026" is 6 March).
        const reread = parser === chrono.en.casual && dayFirst.test(result.text) && !MONTH_NAME.test(result.text);
        const fixed = reread ? (chrono.en.GB.parse(result.text, ref, { forwardDate: true })[0] ?? result) : result;
        found.push({ result: fixed, span, parser: reread ? chrono.en.GB : parser });
      }
    }
    out.push(...found);
  }
  return out;
}

function localParsers(text: string, reading: Reading): chrono.Chrono[] {
  const out: chrono.Chrono[] = [];
  const byLanguage = { de: chrono.de, fr: chrono.fr, es: chrono.es, it: chrono.it, nl: chrono.nl, pt: chrono.pt, ja: chrono.ja };
  if (reading.language !== "en") out.push(byLanguage[reading.language].casual);
  // Japanese dates ("2026年7月31日") turn up in otherwise English mail.
  if (reading.language !== "ja" && /\d\s?年\s?\d{1,2}\s?月/.test(text)) out.push(chrono.ja.casual);
  return out;
}

/** Whether a chrono result names a calendar day and is not one of its known misreadings. */
function isDay(r: chrono.ParsedResult, text: string, span: Span): boolean {
  const written = r.text.trim();
  if (r.tags().has(RELATIVE) || NOT_A_DAY.test(written) || IDIOM.test(written)) return false;
  const before = text.slice(Math.max(0, span.start - 24), span.start);
  const after = text.slice(span.end, span.end + 2);
  // Part of a longer token: "1.2.3.4", "2026-03-15-rc1", "#12/25", "TF-2026-NVY".
  if (/[\w./#-]$/.test(before) || /^(?:[./-]\w|\w)/.test(after)) return false;
  if (VERSION_LEAD.test(before)) return false;
  if (r.start.isCertain("day")) {
    // "22/05" or "12/25" can only be a date; "3/4" may be a fraction, unless "on" or "due" says.
    const unambiguous = /0\d|1[3-9]|[23]\d/.test(written);
    return !SHORT_NUMERIC.test(written) || unambiguous || DATE_LEAD.test(before) || r.start.isCertain("weekday");
  }
  // A weekday alone names a day; a month, a year or a time alone does not.
  return r.start.isCertain("weekday") && !WORD_NOT_DAY.test(written) && !NAMED_DAY.test(before);
}

/** Verbs and words that put the sentence in the past ("we met on March 2"). */
const PAST = /\b(?:was|were|did|had|met|sent|received|paid|spoke|talked|happened|occurred|started|began|ended|went|came|held|delivered|shipped|signed|joined|arrived|bought|ordered|charged|placed|submitted|since)\b/i;

/**
 * Whether a date written without a year means the last occurrence rather than the next:
 * the sentence is in the past tense, and the last occurrence is recent and nearer than the
 * next ("we met on March 2", written on March 4, is two days ago, not next year).
 */
function yearBack(r: chrono.ParsedResult, text: string, span: Span, today: Day, start: Day): boolean {
  if (r.start.isCertain("year") || !r.start.isCertain("day") || !r.start.isCertain("month")) return false;
  const ahead = daysBetween(today, start);
  const behind = daysBetween(yearEarlier(start), today);
  return ahead > 0 && behind >= 0 && behind < ahead && behind <= 183 && PAST.test(around(text, span, 120).before);
}

/** "Sat 07:00–13:00" on a line of opening hours is a recurring slot, not a date. */
function isOpeningHours(r: chrono.ParsedResult, text: string, span: Span): boolean {
  if (r.start.isCertain("day")) return false;
  // The line around the mention, looked at no further than LINE_REACH either side.
  const from = Math.max(0, span.start - LINE_REACH);
  const head = text.slice(from, span.start);
  const tail = text.slice(span.end, span.end + LINE_REACH);
  const newline = tail.indexOf("\n");
  const line = head.slice(head.lastIndexOf("\n") + 1) + text.slice(span.start, span.end) + (newline < 0 ? tail : tail.slice(0, newline));
  WEEKDAY_RANGE.lastIndex = 0;
  return HOURS_LINE.test(line) || WEEKDAY_RANGE.test(line);
}

const spanOf = (m: RegExpMatchArray): Span => ({ start: m.index!, end: m.index! + m[0].length });
const pad = (n: number) => String(n).padStart(2, "0");
const ymd = (c: chrono.ParsedComponents): Day => `${c.get("year")}-${pad(c.get("month")!)}-${pad(c.get("day")!)}`;
const hhmm = (c: chrono.ParsedComponents) =>
  c.isCertain("hour") ? `${pad(c.get("hour")!)}:${pad(c.get("minute") ?? 0)}` : null;
