import type { TransferEncoding } from "./parse/body-ranges.ts";
/**
 * What the inbound pipeline knows of a message after parsing and assessment. Plain data
 * (structured-clone safe) so a worker can hand it back and a job can carry it.
 */
import type { ContentVerdict } from "./assess/content.ts";
import type { TextVectorPieces } from "./text-vector-pieces.ts";

export interface MailAddress {
  /** Lowercased, as checked by src/domain/email.ts; "" when the header held no usable address. */
  address: string;
  /** Display name as decoded; "" when absent. */
  name: string;
}

export interface HeaderField {
  /** As written in the message (case kept). */
  key: string;
  /** Decoded (RFC 2047) and unfolded; never contains CR, LF or NUL. */
  value: string;
}

export interface ParsedAttachment {
  filename: string | null;
  /** The part's own Content-Type (type/subtype, lowercase), e.g. "application/pdf". */
  contentType: string;
  contentId: string | null;
  disposition: "attachment" | "inline" | null;
  content: Uint8Array;
  size: number;
  /** Where the encoded body lies in the raw message, when decoding it was proven to give `content`. */
  raw?: { offset: number; length: number; encoding: TransferEncoding };
}

export interface ParsedMail {
  /** Every header field of the top-level message, in order, repeated keys kept. */
  headers: HeaderField[];
  /** Message-ID with angle brackets, e.g. "<abc@example.com>"; null when absent. */
  messageId: string | null;
  inReplyTo: string | null;
  /** Message-IDs with angle brackets, oldest first. */
  references: string[];
  subject: string | null;
  from: MailAddress | null;
  replyTo: MailAddress[];
  to: MailAddress[];
  cc: MailAddress[];
  date: Date | null;
  text: string | null;
  html: string | null;
  attachments: ParsedAttachment[];
}

export type ParseOutcome =
  /** `extractedText` is extractText() of the mail, made in the parser's worker (src/mail/extract.ts),
   *  and `snippet` its snippetOf(); `content`, when asked for, the assessment's content verdict
   *  (src/mail/assess/content.ts), made there too; `textPieces`, when asked for, the pieces of its
   *  full-text vector (src/mail/text-vector-pieces.ts), null where the row's trigger makes it. */
  | { ok: true; mail: ParsedMail; extractedText: string; quotedText?: string; snippet?: string; content?: ContentVerdict | null; textPieces?: TextVectorPieces | null }
  /** Over the time or size budget, or the parser threw: the raw message is kept, and the
   *  headers that could be read cheaply from the head of the message are returned. */
  | { ok: false; reason: string; headers: HeaderField[] };

/** The SMTP envelope and connection facts the assessment needs (SPF, loops). */
export interface Envelope {
  mailFrom: string | null;
  rcptTo: string[];
  /** IP address of the connecting client; null for HTTP ingress and internal delivery. */
  remoteAddress: string | null;
  heloName: string | null;
}

export type RiskLevel = "low" | "medium" | "high";
export type TriageLabel = "action_required" | "reply_needed" | "fyi" | "newsletter" | "notification" | "spam";

export interface AuthResults {
  spf: "pass" | "fail" | "softfail" | "neutral" | "none" | "temperror" | "permerror";
  dkim: "pass" | "fail" | "none" | "temperror" | "permerror" | "policy" | "neutral";
  dmarc: "pass" | "fail" | "none" | "temperror" | "permerror";
}

export interface Assessment {
  riskLevel: RiskLevel;
  triageLabel: TriageLabel;
  /** Stable strings, sorted, each documented in the rule table. */
  signals: string[];
  auth: AuthResults;
  /** Auto-Submitted / List-Id / Precedence: bulk|list|junk, or a null sender: never auto-reply. */
  autoReplyBlocked: boolean;
}

/** What the processing step hands the mailbox actor: plain data, attachment bytes already stored. */
export interface ProcessedMail {
  headers: HeaderField[];
  messageIdHeader: string | null;
  inReplyTo: string | null;
  references: string[];
  subject: string | null;
  fromAddress: string;
  /** The From display name, when there was one. */
  fromName?: string | null;
  toAddresses: string[];
  ccAddresses: string[];
  replyTo: string[];
  textBody: string | null;
  htmlBody: string | null;
  extractedText: string | null;
  /** What extractedText left out (quoted history, signature); absent where nothing was split. */
  quotedText?: string | null;
  snippet: string;
  /** Each attachment's bytes: a blob (`sha256`), or a range of the raw message (`rawOffset`…, see parse/body-ranges.ts). */
  attachments: {
    filename: string | null;
    mimeType: string;
    size: number;
    contentId: string | null;
    sha256: string | null;
    rawOffset: number | null;
    rawLength: number | null;
    transferEncoding: TransferEncoding | null;
  }[];
  assessment: Assessment;
}
