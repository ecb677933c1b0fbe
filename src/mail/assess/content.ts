/**
 * The part of the assessment that reads the message only: the content view (context.ts), the
 * content rules, the triage as far as the message decides it and the loop guard. It is the
 * CPU-heavy part (HTML scan, normalisation, pattern rules over the whole text), so for mail it
 * runs in the parser's worker (src/mail/parse/worker.ts), under the parse budget, where the
 * parsed parts already are; only this small verdict crosses back to the main thread. It needs
 * no I/O, so it answers the same wherever it runs.
 */
import type { Envelope, HeaderField, ParsedMail, TriageLabel } from "../types.ts";
import { buildContext } from "./context.ts";
import type { AssessContext, Sender } from "./model.ts";
import { CONTENT_RULES, evaluate } from "./rules.ts";
import { autoReplyBlocked } from "./signals/headers.ts";
import { contentTriageOf } from "./triage.ts";

export interface ContentInput {
  /** null when parsing failed: the verdict is then read from the headers. */
  mail: ParsedMail | null;
  headers: HeaderField[];
  envelope: Envelope;
}

/** What the final step (index.ts) combines with auth and the sender profile. */
export interface ContentVerdict {
  /** Signals of the content rules, sorted. */
  signals: string[];
  /** The triage label unless the final facts make the message spam (triage.ts). */
  triage: TriageLabel;
  autoReplyBlocked: boolean;
  /** What the final rules read of the message. */
  from: Sender | null;
  /** Our mail domain as an A-label, as the rules compare it. */
  mailDomain: string;
}

const PENDING = { spf: "none", dkim: "none", dmarc: "none" } as const;

/** The verdict of the full view, else of a header-only one (reported as parse_failed), else null. */
export function assessMessageContent(input: ContentInput, mailDomain: string): ContentVerdict | null {
  const ctx = context(input, mailDomain);
  if (!ctx) return null;
  const signals = evaluate(ctx, CONTENT_RULES);
  return {
    signals,
    triage: contentTriageOf(ctx, new Set(signals)),
    autoReplyBlocked: safe(() => autoReplyBlocked(ctx), true),
    from: ctx.from,
    mailDomain: ctx.mailDomain,
  };
}

function context(input: ContentInput, mailDomain: string): AssessContext | null {
  try {
    return buildContext(input, { ...PENDING }, mailDomain);
  } catch {
    try {
      return buildContext({ ...input, mail: null }, { ...PENDING }, mailDomain);
    } catch {
      return null;
    }
  }
}

function safe<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}
