import { AppError } from "../errors.ts";
import { checkAddress } from "./email.ts";

/** Draft fields as commands carry them; absent ones are left as they are (update) or empty (create). */
export interface DraftFields {
  to?: string[];
  cc?: string[];
  bcc?: string[];
  subject?: string | null;
  textBody?: string | null;
  htmlBody?: string | null;
  /** A reply held for approval: sent, it threads as a reply to this message. Set on create only. */
  inReplyToMessageId?: string;
}

export const DRAFT_LIMITS = { recipients: 100, subject: 998, body: 5 * 1024 * 1024 } as const;

/**
 * Checks what a draft would carry, with the same address rule as sending, and returns the
 * fields with addresses in their checked form. Field paths name the request body.
 */
export function checkDraftFields(fields: DraftFields): DraftFields {
  const problems: { path: string; message: string }[] = [];
  const out: DraftFields = { ...fields };
  for (const list of ["to", "cc", "bcc"] as const) {
    const given = fields[list];
    if (given === undefined) continue;
    if (given.length > DRAFT_LIMITS.recipients) problems.push({ path: `body.${list}`, message: `at most ${DRAFT_LIMITS.recipients} addresses` });
    out[list] = given.map((raw, i) => {
      const checked = checkAddress(raw.trim());
      if (!checked.ok) {
        problems.push({ path: `body.${list}.${i}`, message: `address ${checked.reason}` });
        return raw;
      }
      return checked.address;
    });
  }
  if (typeof fields.subject === "string" && /[\r\n\0]/.test(fields.subject)) problems.push({ path: "body.subject", message: "must not contain CR, LF or NUL" });
  // PostgreSQL text cannot hold NUL: refuse it here rather than fail in the database with a 500.
  for (const body of ["textBody", "htmlBody"] as const) {
    if (typeof fields[body] === "string" && fields[body].includes("\0")) problems.push({ path: `body.${body}`, message: "must not contain NUL" });
  }
  if (problems.length > 0) throw new AppError("validation_error", `${problems[0]!.path}: ${problems[0]!.message}`, { fields: problems });
  return out;
}
