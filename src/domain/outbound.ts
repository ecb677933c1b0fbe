import type { MessageRow } from "../../db/schema/index.ts";
import { holdsNul, type BodyText } from "./body-text.ts";
import { AppError } from "../errors.ts";
import { checkAddress } from "./email.ts";
import { DRAFT_LIMITS } from "./drafts.ts";

/** A message about to be sent: what send, reply and draft send all come down to. A large body may be its UTF-8 bytes (./body-text.ts). */
export interface OutgoingFields {
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  textBody: BodyText | null;
  htmlBody: BodyText | null;
}

/** What a reply may set; the recipients and subject come from the message answered. */
export interface ReplyFields {
  textBody?: BodyText | null;
  htmlBody?: BodyText | null;
  cc?: string[];
  bcc?: string[];
}

/** A message queued for sending: the mailbox actor's answer to send, reply and draft send. */
export interface Dispatched {
  /** The stored row with the bodies as sent; a body given as bytes and staged is null here (its JSON is in bodiesJson). */
  message: MessageRow;
  /** The mail.deliver job: the caller runs its first attempt at once. */
  jobId: string;
  replyTo: string;
  /**
   * The bodies as JSON string literals (UTF-8), made by the thread that composed the message,
   * so that an answer carrying megabytes of body is not serialised again on the event loop.
   */
  bodiesJson?: { text: Uint8Array | null; html: Uint8Array | null };
}

type Problem = { path: string; message: string };

/**
 * The validation step of a send, before anything else is checked: every address with our
 * strict check (so nothing odd reaches nodemailer or a header), at least one recipient, a
 * subject without CR/LF/NUL, and a body. Paths name the request body of send (`body.to.0`).
 */
export function checkOutgoing(fields: OutgoingFields, opts: { bodyRequired: boolean } = { bodyRequired: true }): OutgoingFields {
  const problems: Problem[] = [];
  const list = (name: "to" | "cc" | "bcc") =>
    fields[name].map((raw, i) => {
      const checked = checkAddress(raw.trim());
      if (!checked.ok) problems.push({ path: `body.${name}.${i}`, message: `address ${checked.reason}` });
      return checked.ok ? checked.address : raw;
    });
  const out: OutgoingFields = { ...fields, to: list("to"), cc: list("cc"), bcc: list("bcc") };
  const total = out.to.length + out.cc.length + out.bcc.length;
  if (out.to.length === 0) problems.push({ path: "body.to", message: "at least one recipient is needed" });
  if (total > DRAFT_LIMITS.recipients) problems.push({ path: "body.to", message: `at most ${DRAFT_LIMITS.recipients} recipients in to, cc and bcc together` });
  if (/[\r\n\0]/.test(fields.subject)) problems.push({ path: "body.subject", message: "must not contain CR, LF or NUL" });
  for (const body of ["textBody", "htmlBody"] as const) {
    const value = fields[body];
    if (value && holdsNul(value)) problems.push({ path: `body.${body}`, message: "must not contain NUL" });
  }
  if (opts.bodyRequired && !fields.textBody && !fields.htmlBody) problems.push({ path: "body.textBody", message: "give textBody or htmlBody" });
  if (problems.length > 0) throw new AppError("validation_error", `${problems[0]!.path}: ${problems[0]!.message}`, { fields: problems });
  return out;
}

/** Every recipient once, lowercase: what the suppression list and the envelope take. */
export const allRecipients = (f: OutgoingFields): string[] => [...new Set([...f.to, ...f.cc, ...f.bcc].map((a) => a.toLowerCase()))];

/** Who a reply goes to and its subject: the Reply-To or sender of inbound mail, the recipients of outbound. */
export function replyAddressing(original: MessageRow): { to: string[]; subject: string } {
  if (original.transport !== "smtp") throw new AppError("reply_not_supported", "agent protocol messages are answered through the protocol, not by email");
  const to =
    original.direction === "inbound"
      ? [original.replyTo[0] ?? original.fromAddress].filter((a) => a)
      : original.toAddress.split(",").map((a) => a.trim()).filter((a) => a);
  if (to.length === 0) throw new AppError("reply_not_supported", "the message has no address to reply to");
  const subject = /^\s*re\s*:/i.test(original.subject) ? original.subject : `Re: ${original.subject}`.trim();
  return { to, subject };
}
