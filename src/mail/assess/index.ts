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
import { WorkerPool } from "../../workers/pool.ts";
import { checkAuth, type Resolver } from "./auth.ts";
import { AuthVerdicts, verdictKey } from "./auth-verdicts.ts";
import type { AuthRequest } from "./auth-worker.ts";
import type { ContentReply, ContentRequest } from "./content-worker.ts";
import { assessMessageContent, type ContentVerdict } from "./content.ts";
import type { FinalContext } from "./model.ts";
import { evaluateFinal, riskOf } from "./rules.ts";
import { finalTriageOf } from "./triage.ts";
import { effectiveAuth, relayList, upstreamVerdict, type TrustSettings } from "./upstream.ts";

export { assessMessageContent, type ContentVerdict } from "./content.ts";

export { RULES, RISK_THRESHOLDS, rulesMarkdown } from "./rules.ts";
export { TRIAGE_RULES } from "./triage.ts";

export interface AssessorOptions {
  /** Our mail domain: the authserv-id, and the domain outsiders must not claim (own_domain_spoof). */
  mailDomain: string;
  /** Budget for all DNS of one message together (default 1500 ms). */
  dnsTimeoutMs?: number;
  /** DNS servers to ask instead of the system's (config DNS_SERVERS). */
  dnsServers?: string[];
  /** Replaces the system DNS (tests); answers like node:dns resolve(name, rrtype). Auth then runs on this thread. */
  resolver?: Resolver;
  /** Threads for SPF/DKIM/DMARC with the system DNS, started on demand (default 1). */
  authWorkers?: number;
  /**
   * Unsigned messages with a small head authenticated at once by one auth thread (default 32):
   * their checks are mostly DNS waits, and one at a time a thread would take as many messages
   * a second as DNS answers in sequence (25 at 20 ms a lookup and two lookups a message).
   */
  authConcurrency?: number;
  /** Relays (IPs, CIDR blocks) and authserv-ids whose verdict headers count (upstream.ts); none by default. */
  trust?: TrustSettings;
  /**
   * Reuse the verdict of unsigned mail with the same envelope, From and Return-Path for a while
   * (auth-verdicts.ts). On by default with the system DNS; off with a `resolver` (a test's zone
   * may change between two messages) unless asked for.
   */
  reuseVerdicts?: boolean;
}

/**
 * What a DKIM body hash may take beyond the DNS budget before the auth thread is given up:
 * a signed message of tens of MB, whose hash alone takes seconds, ends as temperror.
 */
const AUTH_CPU_MS = 2000;

/**
 * Budget of one content verdict in the content pool. The rules scan at most 512 KiB of text
 * (tens of ms); only an overloaded node or a pathological input runs past it, and such a
 * message is then assessed as unreadable (parse_failed, medium risk) rather than hold the loop.
 */
const CONTENT_BUDGET_MS = 5000;

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
  private readonly dnsServers: string[] | undefined;
  private readonly resolver: Resolver | undefined;
  private readonly authWorkers: number;
  private readonly authConcurrency: number;
  /** Signed mail, an ARC set or a large head: one at a time a thread (a body hash is CPU, and an overrun stops the thread). */
  private authPool: WorkerPool<AuthRequest, AuthResults> | null = null;
  /** Unsigned mail with a small head (what auth-verdicts.ts keys): authConcurrency at a time a thread. */
  private headAuthPool: WorkerPool<AuthRequest, AuthResults> | null = null;
  private contentPool: WorkerPool<ContentRequest, ContentReply> | null = null;
  /** Content verdicts made in the content pool's threads (tests; each is one the event loop did not make). */
  contentVerdictsOffThread = 0;
  /** Recent verdicts of unsigned mail (null when not reused): `reused` counts the messages that took one. */
  readonly authVerdicts: AuthVerdicts | null;

  /** The mail domain the content verdict is made for (AssessorOptions.mailDomain). */
  get domain(): string {
    return this.mailDomain;
  }

  constructor(opts: AssessorOptions) {
    this.mailDomain = opts.mailDomain;
    this.dnsTimeoutMs = opts.dnsTimeoutMs ?? 1500;
    this.dnsServers = opts.dnsServers?.length ? opts.dnsServers : undefined;
    this.resolver = opts.resolver;
    this.authWorkers = opts.authWorkers ?? 1;
    this.authConcurrency = opts.authConcurrency ?? 32;
    this.authVerdicts = (opts.reuseVerdicts ?? !opts.resolver) ? new AuthVerdicts() : null;
    this.trust = opts.trust ?? { relays: [], authservIds: [] };
    this.relays = relayList(this.trust.relays);
  }

  private readonly trust: TrustSettings;
  private readonly relays: ReturnType<typeof relayList>;

  /** Terminates the auth threads; an assessment still waiting on one gets temperror. */
  async close(): Promise<void> {
    await Promise.all([this.authPool?.close(), this.headAuthPool?.close(), this.contentPool?.close()]);
  }

  /**
   * The content verdict of a message without MIME (the protocol's), in the content pool: its
   * text and parameters are up to 512 KiB of rule scans. Overrunning the budget makes it
   * unreadable (null); a pool that cannot run it (closing, a worker that died) leaves it to this
   * thread, bounded by the same scan cap, so no message goes without its verdict.
   */
  async contentOffThread(input: Omit<AssessInput, "raw">): Promise<ContentVerdict | null> {
    this.contentPool ??= new WorkerPool({ url: new URL("./content-worker.ts", import.meta.url), workers: 1, timeoutMs: CONTENT_BUDGET_MS });
    const outcome = await this.contentPool.run({ input: { mail: input.mail, headers: input.headers, envelope: input.envelope }, mailDomain: this.mailDomain });
    if (outcome.ok) {
      if (outcome.value.threadId !== 0) this.contentVerdictsOffThread++;
      return outcome.value.verdict;
    }
    if (outcome.kind === "timeout") return null;
    return assessMessageContent(input, this.mailDomain);
  }

  /**
   * SPF, DKIM and DMARC of a message: never rejects (a failure is temperror). Started by a caller
   * before it parses the message, its DNS waits overlap the parse; assess() takes it as `auth`.
   */
  authenticate(raw: Uint8Array, envelope: Envelope): Promise<AuthResults> {
    return this.auth(raw, envelope).catch((): AuthResults => ({ spf: envelope.remoteAddress ? "temperror" : "none", dkim: "temperror", dmarc: "temperror" }));
  }

  /** The verdict of a recent message mailauth would read the same (auth-verdicts.ts), or mailauth's. */
  private async auth(raw: Uint8Array, envelope: Envelope): Promise<AuthResults> {
    // The key also tells which messages are cheap to check: unsigned, with a small head.
    const key = this.authVerdicts || !this.resolver ? verdictKey(raw, envelope) : null;
    const run = () => this.mailauth(raw, envelope, key !== null);
    return key && this.authVerdicts ? this.authVerdicts.verdictFor(key, run) : run();
  }

  /** mailauth's work, in an auth pool unless a resolver (which cannot cross threads) was given. */
  private async mailauth(raw: Uint8Array, envelope: Envelope, headOnly: boolean): Promise<AuthResults> {
    const opts = { mta: this.mailDomain, timeoutMs: this.dnsTimeoutMs };
    if (this.resolver) return checkAuth(raw, envelope, { ...opts, resolver: this.resolver });
    const url = new URL("./auth-worker.ts", import.meta.url);
    const timeoutMs = this.dnsTimeoutMs + AUTH_CPU_MS;
    const pool = headOnly
      ? (this.headAuthPool ??= new WorkerPool({ url, workers: this.authWorkers, timeoutMs, concurrency: this.authConcurrency }))
      : (this.authPool ??= new WorkerPool({ url, workers: this.authWorkers, timeoutMs }));
    // Shared memory (SMTP's bytes) crosses uncopied. Cloning a view would copy its whole
    // buffer: a view goes as a tight copy, transferred.
    const whole = raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength;
    const sent = whole ? raw : raw.slice();
    const outcome = await pool.run({ raw: sent, envelope, ...opts, ...(this.dnsServers ? { dnsServers: this.dnsServers } : {}) }, whole ? [] : [sent.buffer as ArrayBuffer]);
    if (!outcome.ok) throw new Error(outcome.message);
    return outcome.value;
  }

  /**
   * `content` is the message's content verdict when it was made elsewhere (the parser's worker,
   * for the mail in `mail`); without it the verdict is made here, on this thread. `disposition`
   * may still be on its way: it is awaited after the authentication checks.
   */
  async assess(
    input: Omit<AssessInput, "disposition"> & { disposition?: Disposition | Promise<Disposition>; content?: ContentVerdict | null; auth?: Promise<AuthResults> },
  ): Promise<Assessment> {
    const authRun = input.auth ?? this.authenticate(input.raw, input.envelope);
    // The content is read while DNS is in flight; only the final rules need its answers.
    const content = input.content !== undefined ? input.content : assessMessageContent(input, this.mailDomain);
    const upstream = upstreamVerdict(input.headers, input.envelope, this.trust, this.relays);
    const auth = effectiveAuth(await authRun, upstream);
    // A promise when the caller reads it while DNS is in flight, too.
    const disposition = await input.disposition;
    if (!content) return unreadable(disposition, auth);
    return combine(content, { auth, disposition: disposition ?? "neutral", envelope: input.envelope, upstream }, auth, content.autoReplyBlocked);
  }

  /**
   * A message that did not come by email (an agent protocol message): the content rules only.
   * Its sender is proven by an API key, which is what SPF, DKIM and DMARC prove for mail, so
   * the rules see authenticated mail; the stored results say no email authentication applied.
   */
  async assessContent(input: Omit<AssessInput, "raw">): Promise<Assessment> {
    const stored: AuthResults = { spf: "none", dkim: "none", dmarc: "none" };
    const content = await this.contentOffThread(input);
    if (!content) return unreadable(input.disposition, stored);
    const asMail: AuthResults = { spf: "pass", dkim: "pass", dmarc: "pass" };
    return combine(content, { auth: asMail, disposition: input.disposition ?? "neutral", envelope: input.envelope }, stored, false);
  }
}

/** The final rules over auth and disposition, the risk of all signals, and the final triage. */
function combine(
  content: ContentVerdict,
  facts: Pick<FinalContext, "auth" | "disposition" | "envelope" | "upstream">,
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
