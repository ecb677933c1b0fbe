import { AppError } from "../errors.ts";

/**
 * Slugs become parts of email local parts and DNS labels, so they are lowercase ASCII
 * letters, digits and single inner hyphens, and short enough that the composed address
 * "{mailbox}.{account}@domain" keeps its local part within RFC 5321's 64 octets.
 */
const SLUG_RE = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9]))*$/;
export const ACCOUNT_SLUG = { min: 2, max: 30 } as const;
export const MAILBOX_SLUG = { min: 1, max: 30 } as const;

/** The primary mailbox's own slug; never available to agent mailboxes. */
export const PRIMARY_MAILBOX_SLUG = "main";
const RESERVED_MAILBOX_SLUGS = new Set(["main", "primary"]);
// Role addresses a mail domain must keep for its operator (RFC 2142), and names we serve.
const RESERVED_ACCOUNT_SLUGS = new Set([
  "postmaster", "abuse", "hostmaster", "webmaster", "mailer-daemon", "noc", "security",
  "admin", "root", "www", "api", "mail", "smtp", "noreply", "no-reply",
]);

function check(kind: "account" | "mailbox", slug: string, bounds: { min: number; max: number }, reserved: Set<string>): void {
  const field = "slug";
  const fail = (message: string) => {
    throw new AppError("validation_error", `invalid ${kind} slug: ${message}`, { fields: [{ path: field, message }] });
  };
  if (slug.length < bounds.min || slug.length > bounds.max) fail(`must be ${bounds.min} to ${bounds.max} characters long`);
  if (!SLUG_RE.test(slug)) fail("must be lowercase letters, digits and single hyphens, starting and ending with a letter or digit");
  if (reserved.has(slug)) fail(`"${slug}" is reserved`);
}

export const validateAccountSlug = (slug: string) => check("account", slug, ACCOUNT_SLUG, RESERVED_ACCOUNT_SLUGS);
export const validateMailboxSlug = (slug: string) => check("mailbox", slug, MAILBOX_SLUG, RESERVED_MAILBOX_SLUGS);
