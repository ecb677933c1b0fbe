/**
 * Inbound message assessment: authentication (SPF/DKIM/DMARC), the signal rule table
 * (rules.ts), a risk level from the signals' weights, a triage label (triage.ts) and the
 * auto-reply loop guard. It runs in two steps: the content verdict (content.ts, CPU-heavy,
 * made in the parser's worker for mail) and the final combination with auth and the sender
 * profile (here, cheap). Deterministic for a given message, envelope and DNS answers, and
 * total: assess() always resolves, within the DNS budget plus bounded CPU work.
 */
import type { Disposition } from "../../../db/schema/knowledge.ts";
import type { Assessment, AuthResults, Envelope, HeaderField, ParsedMail } from "../types.ts";
import { checkAuth, type Resolver } from "./auth.ts";
import { assessMessageContent, type ContentVerdict } from "./content.ts";
import type { FinalContext } from "./model.ts";
import { evaluateFinal, riskOf } from "./rules.ts";
import { finalTriageOf } from "./triage.ts";

export { assessMessageContent, type ContentVerdict } from "./content.ts";

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

export class Assessor {
  private readonly mailDomain: string;
  private readonly dnsTimeoutMs: number;
  private readonly resolver: Resolver | undefined;

  /** The mail domain the content verdict is made for (AssessorOptions.mailDomain). */
  get domain(): string {
    return this.mailDomain;
  }

  constructor(opts: AssessorOptions) {
    this.mailDomain = opts.mailDomain;
    this.dnsTimeoutMs = opts.dnsTimeoutMs ?? 1500;
    this.resolver = opts.resolver;
  }

  /**
   * `content` is the message's content verdict when it was made elsewhere (the parser's worker,
   * for the mail in `mail`); without it the verdict is made here, on this thread.
   */
  async assess(input: AssessInput & { content?: ContentVerdict | null }): Promise<Assessment> {
    const authRun = checkAuth(input.raw, input.envelope, { mta: this.mailDomain, timeoutMs: this.dnsTimeoutMs, resolver: this.resolver }).catch(
      (): AuthResults => ({ spf: input.envelope.remoteAddress ? "temperror" : "none", dkim: "temperror", dmarc: "temperror" }),
    );
    // The content is read while DNS is in flight; only the final rules need its answers.
    const content = input.content !== undefined ? input.content : assessMessageContent(input, this.mailDomain);
    const auth = await authRun;
    if (!content) return unreadable(input.disposition, auth);
    return combine(content, { auth, disposition: input.disposition ?? "neutral", envelope: input.envelope }, auth, content.autoReplyBlocked);
  }

  /**
   * A message that did not come by email (an agent protocol message): the content rules only.
   * Its sender is proven by an API key, which is what SPF, DKIM and DMARC prove for mail, so
   * the rules see authenticated mail; the stored results say no email authentication applied.
   */
  assessContent(input: Omit<AssessInput, "raw">): Assessment {
    const stored: AuthResults = { spf: "none", dkim: "none", dmarc: "none" };
    const content = assessMessageContent(input, this.mailDomain);
    if (!content) return unreadable(input.disposition, stored);
    const asMail: AuthResults = { spf: "pass", dkim: "pass", dmarc: "pass" };
    return combine(content, { auth: asMail, disposition: input.disposition ?? "neutral", envelope: input.envelope }, stored, false);
  }
}

/** The final rules over auth and disposition, the risk of all signals, and the final triage. */
function combine(
  content: ContentVerdict,
  facts: Pick<FinalContext, "auth" | "disposition" | "envelope">,
  stored: AuthResults,
  autoReplyBlocked: boolean,
): Assessment {
  const signals = [...content.signals, ...evaluateFinal({ ...facts, from: content.from, mailDomain: content.mailDomain })].sort();
  const risk = riskOf(signals).level;
  return { riskLevel: risk, triageLabel: finalTriageOf(content.triage, { signals: new Set(signals), risk }), signals, auth: stored, autoReplyBlocked };
}

/** Nothing could be read but the account's word about the sender. */
function unreadable(disposition: Disposition | undefined, auth: AuthResults): Assessment {
  const blocked = disposition === "blocked";
  return { riskLevel: "medium", triageLabel: blocked ? "spam" : "fyi", signals: blocked ? ["parse_failed", "sender_blocked"] : ["parse_failed"], auth, autoReplyBlocked: true };
}
