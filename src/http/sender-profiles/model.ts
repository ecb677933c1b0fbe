import { t } from "elysia";
import type { SenderProfileRow } from "../../../db/schema/index.ts";
import { DISPOSITIONS } from "../../domain/sender-profiles.ts";
import { oneOf } from "../messages/model.ts";
import { iso, PageQuery, Timestamp, Uuid } from "../schemas.ts";

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()]);
const Disposition = t.Union([t.Literal("neutral"), t.Literal("trusted"), t.Literal("blocked")], {
  description: "neutral; trusted (risk one level lower when the sender is authenticated); blocked (triaged spam)",
});

export const SenderProfileParams = t.Object({ profileId: Uuid("sender profile id") });

export const SenderProfile = t.Object(
  {
    id: Uuid(),
    account_id: Uuid(),
    address: t.String({ description: "lowercase" }),
    display_name: Nullable(t.String()),
    disposition: Disposition,
    notes: t.String(),
    message_count: t.Integer({ description: "inbound messages seen from the address, over the account's mailboxes" }),
    first_seen_at: Nullable(Timestamp),
    last_seen_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

const editable = {
  disposition: t.Optional(Disposition),
  notes: t.Optional(t.String({ maxLength: 4000 })),
  display_name: t.Optional(Nullable(t.String({ maxLength: 200 }))),
};

export const CreateSenderProfileBody = t.Object({ address: t.String({ minLength: 3, maxLength: 254 }), ...editable }, { additionalProperties: false });
export const UpdateSenderProfileBody = t.Object(editable, { additionalProperties: false });

export const SENDER_PROFILE_FILTERS = { disposition: DISPOSITIONS } as const;
export const SenderProfileListQuery = t.Object({
  ...PageQuery.properties,
  address: t.Optional(t.String({ maxLength: 254, pattern: "^[^\\u0000]*$", description: "case-insensitive substring of the address" })),
  disposition: oneOf(["neutral", "trusted", "blocked"], "only profiles with this disposition"),
});

export const senderProfile = (p: SenderProfileRow) => ({
  id: p.id,
  account_id: p.accountId,
  address: p.address,
  display_name: p.displayName,
  disposition: p.disposition,
  notes: p.notes,
  message_count: p.messageCount,
  first_seen_at: p.firstSeenAt ? iso(p.firstSeenAt) : null,
  last_seen_at: p.lastSeenAt ? iso(p.lastSeenAt) : null,
  created_at: iso(p.createdAt),
  updated_at: iso(p.updatedAt),
});

export const changesOf = (body: { disposition?: "neutral" | "trusted" | "blocked"; notes?: string; display_name?: string | null }) => ({
  disposition: body.disposition,
  notes: body.notes,
  displayName: body.display_name,
});
