import { t } from "elysia";
import type { MailboxRow } from "../../../db/schema/index.ts";
import { iso, Timestamp, Uuid } from "../schemas.ts";

const kind = t.Union([t.Literal("primary"), t.Literal("agent")], { description: "the account's primary mailbox, or an agent mailbox" });
const status = t.Union([t.Literal("active"), t.Literal("disabled")]);

/** As listed under an account and on creation. */
export const MailboxSummary = t.Object(
  { id: Uuid(), slug: t.String(), kind, email_address: t.String({ format: "email" }), protocol_host: t.String(), status, created_at: Timestamp },
  { additionalProperties: false },
);
/** Get Mailbox returns only these fields (spec section 2). */
export const MailboxView = t.Object(
  { id: Uuid(), email_address: t.String({ format: "email" }), protocol_host: t.String(), kind, status, created_at: Timestamp },
  { additionalProperties: false },
);
export const MailboxStatus = t.Object({ id: Uuid(), status }, { additionalProperties: false });
export const MailboxParams = t.Object({ mailboxId: Uuid("mailbox id") });

export const mailboxSummary = (m: MailboxRow) => ({
  id: m.id,
  slug: m.slug,
  kind: m.kind as "primary" | "agent",
  email_address: m.emailAddress,
  protocol_host: m.protocolHost,
  status: m.status as "active" | "disabled",
  created_at: iso(m.createdAt),
});
export const mailboxView = (m: MailboxRow) => ({
  id: m.id,
  email_address: m.emailAddress,
  protocol_host: m.protocolHost,
  kind: m.kind as "primary" | "agent",
  status: m.status as "active" | "disabled",
  created_at: iso(m.createdAt),
});
export const mailboxStatus = (m: MailboxRow) => ({ id: m.id, status: m.status as "active" | "disabled" });
