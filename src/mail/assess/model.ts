import type { Disposition } from "../../../db/schema/knowledge.ts";
import type { AuthResults, Envelope, ParsedAttachment, ParsedMail } from "../types.ts";
import type { HtmlScan } from "./html.ts";
import type { UpstreamVerdict } from "./upstream.ts";

/** info: context only (weight 0); high: one is enough for risk "high". */
export type Severity = "info" | "low" | "medium" | "high";

export interface Link {
  href: string;
  /** "http:", "javascript:", … ("" when the href did not parse). */
  scheme: string;
  /** A-label host, "" for schemes without one. */
  host: string;
  /** Anchor text; null for a URL found in plain text. */
  text: string | null;
}

export interface Sender {
  address: string;
  /** Display name, normalised (see text.ts). */
  name: string;
  /** A-label domain, "" when none could be read. */
  domain: string;
  /** The d= domains of the message's DKIM-Signature fields, as claimed (the final rules know whether DKIM passed). */
  dkimDomains?: string[];
}

/** Everything a matcher may read; built once per message, already capped. */
export interface AssessContext {
  mailDomain: string;
  mail: ParsedMail | null;
  envelope: Envelope;
  auth: AuthResults;
  /** Values of a header field, by case-insensitive name, each capped. */
  header(name: string): string[];
  /** From, when the message has exactly one author address or at least a readable domain. */
  from: Sender | null;
  /** Count of From fields: DMARC and humans both need exactly one. */
  fromFields: number;
  replyToDomains: string[];
  /** Normalised subject. */
  subject: string;
  /** Normalised text of everything a person or a model could read: subject, bodies, hidden text, attachments. */
  allText: string;
  /** Body as a person sees it (visible HTML text, or the text part), with line breaks, not normalised. */
  visibleBody: string;
  html: HtmlScan | null;
  links: Link[];
  attachments: ParsedAttachment[];
  /**
   * Organisational domains whose links are a sender's click tracking: those of List-Unsubscribe,
   * of the sender and its DKIM signers, and of the big email service providers. Empty unless
   * the message carries list or ESP headers (List-Unsubscribe, List-Id, Feedback-ID, X-Mailgun-*, X-SES-*, …).
   */
  trackingOrgs: ReadonlySet<string>;
  /** What the account's sender profile says of the From address. */
  disposition: Disposition;
}

/**
 * What the final rules read: the sender's authentication and the account's word about it,
 * known only after DNS and a database read, with the few message facts they combine them with.
 */
export type FinalContext = Pick<AssessContext, "auth" | "disposition" | "from" | "mailDomain" | "envelope"> & {
  /** What a hop the operator trusts said about the message (upstream.ts); null when no trusted hop spoke. */
  upstream?: UpstreamVerdict | null;
};

interface RuleBase {
  /** Stable string reported in `signals`. */
  signal: string;
  description: string;
  severity: Severity;
  /** Added to the risk score; info rules weigh 0. */
  weight: number;
}

/** Reads the message only: runs where the message was parsed (src/mail/assess/content.ts). */
export interface ContentRule extends RuleBase {
  final?: false;
  matcher: (ctx: AssessContext) => boolean;
}

/** Reads auth or disposition: runs on the main thread once those are known, and must stay cheap. */
export interface FinalRule extends RuleBase {
  final: true;
  matcher: (ctx: FinalContext) => boolean;
}

export type Rule = ContentRule | FinalRule;
