import { t } from "elysia";
import type { SuppressionRow } from "../../../db/schema/index.ts";
import { AccountParams } from "../accounts/model.ts";
import { iso, Timestamp, Uuid } from "../schemas.ts";

export { AccountParams };

export const Suppression = t.Object(
  { id: Uuid(), address: t.String({ description: "lowercase" }), reason: t.Union([t.String(), t.Null()]), created_at: Timestamp },
  { additionalProperties: false },
);
export const AddSuppressionBody = t.Object(
  { address: t.String({ minLength: 3, maxLength: 254 }), reason: t.Optional(t.String({ maxLength: 500 })) },
  { additionalProperties: false },
);
export const RemoveSuppressionQuery = t.Object({ address: t.String({ minLength: 3, maxLength: 254, description: "the address to remove, any case" }) });

export const suppression = (s: SuppressionRow) => ({ id: s.id, address: s.address, reason: s.reason, created_at: iso(s.createdAt) });
