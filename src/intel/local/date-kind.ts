/**
 * What a date is for: a `deadline` when the words around it say something is due by then,
 * an `event` when it carries a time of day or meeting words, else a plain `date`.
 */
import type { ExtractedDate } from "../types.ts";
import { type Span, around } from "./spans.ts";

const DEADLINE_WORDS =
  /\b(?:due|deadline|no later than|expires?|expir(?:y|ation|ing)|overdue|cut-?off|at the latest|last day|zahlbar bis|avant le)\b/i;
/** Words that make the date right after them a deadline ("by Friday", "before 3/6"). */
const DEADLINE_LEAD =
  /\b(?:by|before|no later than)\s+(?:the\s+)?(?:end\s+of\s+(?:the\s+)?(?:day\s+)?(?:on\s+)?|eod\s+|cob\s+|close of business\s+(?:on\s+)?)?$/i;
const EVENT_WORDS =
  /\b(?:meet|meeting|meetings|call|appointment|interview|webinar|lunch|dinner|breakfast|brunch|coffee|event|session|conference|demo|party|reservation|flight|check-?in|standup|stand-up|sync|workshop|presentation|visit|walkthrough|ceremony|concert|seminar|class|training|gala|réunion|termin)\b/i;

export function kindOf(text: string, span: Span, hasTime: boolean): ExtractedDate["kind"] {
  const { before, after } = around(text, span, 120);
  if (DEADLINE_LEAD.test(before) || DEADLINE_WORDS.test(before) || DEADLINE_WORDS.test(after)) return "deadline";
  if (hasTime || EVENT_WORDS.test(before) || EVENT_WORDS.test(after)) return "event";
  return "date";
}
