import { AppError } from "../errors.ts";
import { checkAddress } from "./email.ts";
import { DRAFT_LIMITS } from "./drafts.ts";

/** A message about to be sent: what send, reply and draft send all come down to. */
export interface OutgoingFields {
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  textBody: string | null;
  htmlBody: string | null;
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
    if (fields[body]?.includes("\0")) problems.push({ path: `body.${body}`, message: "must not contain NUL" });
  }
  if (opts.bodyRequired && !fields.textBody && !fields.htmlBody) problems.push({ path: "body.textBody", message: "give textBody or htmlBody" });
  if (problems.length > 0) throw new AppError("validation_error", `${problems[0]!.path}: ${problems[0]!.message}`, { fields: problems });
  return out;
}

/** Every recipient once, lowercase: what the suppression list and the envelope take. */
export const allRecipients = (f: OutgoingFields): string[] => [...new Set([...f.to, ...f.cc, ...f.bcc].map((a) => a.toLowerCase()))];
