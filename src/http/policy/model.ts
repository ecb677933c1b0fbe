import { t } from "elysia";
import type { MailboxRow } from "../../../db/schema/index.ts";
import { Int, iso, Timestamp } from "../schemas.ts";

export const Policy = t.Object(
  {
    allow_outbound: t.Boolean({ description: "when false, send and reply are refused with 403 outbound_disabled" }),
    allow_auto_reply: t.Boolean({ description: "when false, agent protocol auto-replies are not sent" }),
    max_outbound_per_day: t.Integer({ description: "sends allowed per sliding hour (the spec's limits table describes it per hour)" }),
    updated_at: t.Union([Timestamp, t.Null()], { description: "null while the defaults were never changed" }),
  },
  { additionalProperties: false },
);

// Unknown fields are refused rather than ignored: a typo must not pass as "no change".
export const PolicyPatchBody = t.Object(
  {
    allow_outbound: t.Optional(t.Boolean()),
    allow_auto_reply: t.Optional(t.Boolean()),
    max_outbound_per_day: t.Optional(Int({ minimum: 0, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);

export const policy = (m: MailboxRow) => ({
  allow_outbound: m.allowOutbound,
  allow_auto_reply: m.allowAutoReply,
  max_outbound_per_day: m.maxOutboundPerDay,
  updated_at: m.policyUpdatedAt ? iso(m.policyUpdatedAt) : null,
});
