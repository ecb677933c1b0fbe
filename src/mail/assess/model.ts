import type { Disposition } from "../../../db/schema/knowledge.ts";
import type { AuthResults, Envelope, ParsedAttachment, ParsedMail } from "../types.ts";
import type { HtmlScan } from "./html.ts";

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
  /** What the account's sender profile says of the From address. */
  disposition: Disposition;
}

export interface Rule {
  /** Stable string reported in `signals`. */
  signal: string;
  description: string;
  severity: Severity;
  /** Added to the risk score; info rules weigh 0. */
  weight: number;
  matcher: (ctx: AssessContext) => boolean;
}
