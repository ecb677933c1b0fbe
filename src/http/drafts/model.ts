import { t } from "elysia";
import type { DraftRow } from "../../../db/schema/index.ts";
import { DRAFT_LIMITS } from "../../domain/drafts.ts";
import { iso, Timestamp, Uuid } from "../schemas.ts";

/** A list of recipient addresses, as drafts and sends take them. */
export const Addresses = t.Array(t.String({ maxLength: 254 }), { maxItems: DRAFT_LIMITS.recipients });
const Text = (maxLength: number) => t.Union([t.String({ maxLength }), t.Null()]);

export const Draft = t.Object(
  {
    id: Uuid(),
    to: t.Array(t.String()),
    cc: t.Array(t.String()),
    bcc: t.Array(t.String()),
    subject: t.Union([t.String(), t.Null()]),
    text_body: t.Union([t.String(), t.Null()]),
    html_body: t.Union([t.String(), t.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

/** Create and update take the same fields; all optional; null clears a text field. */
export const DraftBody = t.Object(
  {
    to: t.Optional(Addresses),
    cc: t.Optional(Addresses),
    bcc: t.Optional(Addresses),
    subject: t.Optional(Text(DRAFT_LIMITS.subject)),
    textBody: t.Optional(Text(DRAFT_LIMITS.body)),
    htmlBody: t.Optional(Text(DRAFT_LIMITS.body)),
  },
  { additionalProperties: false },
);
export const DraftParams = t.Object({ draftId: Uuid("draft id") });

export const draftFields = (b: typeof DraftBody.static) => ({ to: b.to, cc: b.cc, bcc: b.bcc, subject: b.subject, textBody: b.textBody, htmlBody: b.htmlBody });

export const draft = (d: DraftRow) => ({
  id: d.id,
  to: d.to,
  cc: d.cc,
  bcc: d.bcc,
  subject: d.subject,
  text_body: d.textBody,
  html_body: d.htmlBody,
  created_at: iso(d.createdAt),
  updated_at: iso(d.updatedAt),
});
