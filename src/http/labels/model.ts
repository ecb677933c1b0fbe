import { t } from "elysia";
import type { LabelRow } from "../../../db/schema/index.ts";
import { iso, Timestamp, Uuid } from "../schemas.ts";

export const Label = t.Object(
  { id: Uuid(), name: t.String(), color: t.Union([t.String(), t.Null()]), created_at: Timestamp },
  { additionalProperties: false },
);
export const CreateLabelBody = t.Object(
  { name: t.String({ minLength: 1, maxLength: 256, description: "1 to 64 characters once trimmed" }), color: t.Optional(t.Union([t.String({ maxLength: 16, description: "#rgb or #rrggbb" }), t.Null()])) },
  { additionalProperties: false },
);
export const LabelParams = t.Object({ labelId: Uuid("label id") });

export const label = (l: LabelRow) => ({ id: l.id, name: l.name, color: l.color, created_at: iso(l.createdAt) });
