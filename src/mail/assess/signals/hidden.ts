/** Text a person cannot see but a program reading the message can. */
import { isInjection } from "../injection.ts";
import type { AssessContext } from "../model.ts";
import { cap, MAX_HEADER_CHARS, normalizeForMatch, smuggledAscii, zeroWidthInWords } from "../text.ts";

// A preheader ("Our March news, in two minutes") is hidden text too; below three words
// hidden text is spacing or a tracking label and says nothing.
const MIN_HIDDEN_WORDS = 3;
// Zero-width characters inside words: one can be a copy-and-paste accident, several spell
// out a phrase split to slip past filters.
const MIN_ZERO_WIDTH = 3;

function words(text: string, atLeast: number): boolean {
  let n = 0;
  for (const _ of text.matchAll(/\p{L}{2,}/gu)) if (++n >= atLeast) return true;
  return false;
}

export function hiddenText(ctx: AssessContext): boolean {
  const html = ctx.html;
  if (html && words(html.hiddenText, MIN_HIDDEN_WORDS)) return true;
  // Comments and alt text are not hidden by themselves; instructions in them are.
  if (html && isInjection(normalizeForMatch(html.sideText))) return true;
  const raws = [cap(ctx.mail?.subject, MAX_HEADER_CHARS), cap(ctx.mail?.text), html?.visibleText ?? ""];
  return raws.some((t) => zeroWidthInWords(t) >= MIN_ZERO_WIDTH || smuggledAscii(t).length >= 4);
}
