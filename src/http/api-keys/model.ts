import { t } from "elysia";
import type { ApiKeyRow } from "../../../db/schema/index.ts";
import { iso, OPEN_BODY_MAX_PROPERTIES, Timestamp, Uuid } from "../schemas.ts";

const status = t.Union([t.Literal("active"), t.Literal("revoked")]);

export const ApiKey = t.Object({ id: Uuid(), name: t.String(), scope: t.Literal("mailbox"), status }, { additionalProperties: false });
export const ApiKeyListItem = t.Object(
  { id: Uuid(), name: t.String(), scope: t.Literal("mailbox"), status, created_at: Timestamp, revoked_at: t.Union([Timestamp, t.Null()]) },
  { additionalProperties: false },
);
export const CreateApiKeyBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 200 }),
    scope: t.Literal("mailbox", { description: "must be `mailbox`: a key is valid for exactly one mailbox" }),
  },
  { additionalProperties: true, maxProperties: OPEN_BODY_MAX_PROPERTIES },
);
export const ApiKeyParams = t.Object({ mailboxId: Uuid("mailbox id"), keyId: Uuid("API key id") });

export const apiKey = (k: ApiKeyRow) => ({ id: k.id, name: k.name, scope: "mailbox" as const, status: k.status as "active" | "revoked" });
export const apiKeyListItem = (k: ApiKeyRow) => ({ ...apiKey(k), created_at: iso(k.createdAt), revoked_at: k.revokedAt ? iso(k.revokedAt) : null });
