/**
 * Inbound message assessment: authentication (SPF/DKIM/DMARC), the signal rule table
 * (rules.ts), a risk level from the signals' weights, a triage label (triage.ts) and the
 * auto-reply loop guard. Deterministic for a given message, envelope and DNS answers, and
 * total: assess() always resolves, within the DNS budget plus bounded CPU work.
 */
import type { Disposition } from "../../../db/schema/knowledge.ts";
import type { Assessment, AuthResults, Envelope, HeaderField, ParsedMail } from "../types.ts";
import { checkAuth, type Resolver } from "./auth.ts";
import { buildContext } from "./context.ts";
import type { AssessContext } from "./model.ts";
import { evaluate, riskOf } from "./rules.ts";
import { autoReplyBlocked } from "./signals/headers.ts";
import { triageOf } from "./triage.ts";

export { RULES, RISK_THRESHOLDS, rulesMarkdown } from "./rules.ts";
export { TRIAGE_RULES } from "./triage.ts";

export interface AssessorOptions {
  /** Our mail domain: the authserv-id, and the domain outsiders must not claim (own_domain_spoof). */
  mailDomain: string;
  /** Budget for all DNS of one message together (default 1500 ms). */
  dnsTimeoutMs?: number;
  /** Replaces the system DNS (tests); answers like node:dns resolve(name, rrtype). */
  resolver?: Resolver;
}

export interface AssessInput {
  raw: Uint8Array;
  /** null when parsing failed. */
  mail: ParsedMail | null;
  headers: HeaderField[];
  envelope: Envelope;
  /** The account's sender profile disposition for the From address. */
  disposition?: Disposition;
}

const PENDING: AuthResults = { spf: "none", dkim: "none", dmarc: "none" };

export class Assessor {
  private readonly mailDomain: string;
  private readonly dnsTimeoutMs: number;
  private readonly resolver: Resolver | undefined;

  constructor(opts: AssessorOptions) {
    this.mailDomain = opts.mailDomain;
    this.dnsTimeoutMs = opts.dnsTimeoutMs ?? 1500;
    this.resolver = opts.resolver;
  }

  async assess(input: AssessInput): Promise<Assessment> {
    const authRun = checkAuth(input.raw, input.envelope, { mta: this.mailDomain, timeoutMs: this.dnsTimeoutMs, resolver: this.resolver }).catch(
      (): AuthResults => ({ spf: input.envelope.remoteAddress ? "temperror" : "none", dkim: "temperror", dmarc: "temperror" }),
    );
    // The content is read while DNS is in flight; only the auth rules need its answers.
    const ctx = this.context(input);
    const auth = await authRun;
    if (!ctx) return unreadable(input.disposition, auth);
    ctx.auth = auth;

    const signals = evaluate(ctx);
    const risk = riskOf(signals).level;
    return {
      riskLevel: risk,
      triageLabel: triageOf(ctx, { signals: new Set(signals), risk }),
      signals,
      auth,
      autoReplyBlocked: safe(() => autoReplyBlocked(ctx), true),
    };
  }

  /**
   * A message that did not come by email (an agent protocol message): the content rules only.
   * Its sender is proven by an API key, which is what SPF, DKIM and DMARC prove for mail, so
   * the rules see authenticated mail; the stored results say no email authentication applied.
   */
  assessContent(input: Omit<AssessInput, "raw">): Assessment {
    const stored: AuthResults = { spf: "none", dkim: "none", dmarc: "none" };
    const ctx = this.context({ ...input, raw: new Uint8Array(0) });
    if (!ctx) return unreadable(input.disposition, stored);
    ctx.auth = { spf: "pass", dkim: "pass", dmarc: "pass" };
    const signals = evaluate(ctx);
    const risk = riskOf(signals).level;
    return { riskLevel: risk, triageLabel: triageOf(ctx, { signals: new Set(signals), risk }), signals, auth: stored, autoReplyBlocked: false };
  }

  /** The full view, else a header-only one (reported as parse_failed), else null. */
  private context(input: AssessInput): AssessContext | null {
    try {
      return buildContext(input, PENDING, this.mailDomain);
    } catch {
      try {
        return buildContext({ ...input, mail: null }, PENDING, this.mailDomain);
      } catch {
        return null;
      }
    }
  }
}

/** Nothing could be read but the account's word about the sender. */
function unreadable(disposition: Disposition | undefined, auth: AuthResults): Assessment {
  const blocked = disposition === "blocked";
  return { riskLevel: "medium", triageLabel: blocked ? "spam" : "fyi", signals: blocked ? ["parse_failed", "sender_blocked"] : ["parse_failed"], auth, autoReplyBlocked: true };
}

function safe<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}
