import { t } from "elysia";
import type { ActionRow } from "../../../db/schema/index.ts";
import type { ActionFields } from "../../domain/actions.ts";
import { validationError } from "../../errors.ts";
import { iso, JsonObject, Timestamp, Uuid } from "../schemas.ts";

const Schema = (description: string) => t.Object({}, { additionalProperties: true, description });
// A JSON Schema's top level holds keywords only; its size is bounded where it is compiled.
const SchemaInput = (description: string) => JsonObject(description, 64);
const PARAMS = "JSON Schema (draft 2020-12) the protocol message's `parameters` must match; default: any object";
const RESPONSE = "JSON Schema (draft 2020-12) a response's `structured_data` must match; default: any object";

export const Action = t.Object(
  {
    id: Uuid(),
    name: t.String(),
    description: t.String(),
    parameter_schema: Schema(PARAMS),
    response_schema: Schema(RESPONSE),
    enabled: t.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

// Request fields are camelCase like the rest of the API's bodies; the snake_case names the
// responses use are taken too, so a document read back can be written back.
const fieldShapes = {
  description: t.Optional(t.String({ maxLength: 2000 })),
  parameterSchema: t.Optional(SchemaInput(PARAMS)),
  parameter_schema: t.Optional(SchemaInput(PARAMS)),
  responseSchema: t.Optional(SchemaInput(RESPONSE)),
  response_schema: t.Optional(SchemaInput(RESPONSE)),
  enabled: t.Optional(t.Boolean()),
};
export const CreateActionBody = t.Object({ name: t.String({ minLength: 1, maxLength: 64, description: "a lowercase letter, then lowercase letters, digits, _ or -" }), ...fieldShapes }, { additionalProperties: false });
export const UpdateActionBody = t.Object({ name: t.Optional(t.String({ maxLength: 64, description: "if given, must equal the name in the path (actions are not renamed)" })), ...fieldShapes }, { additionalProperties: false });
export const ActionParams = t.Object({ mailboxId: Uuid("mailbox id"), actionName: t.String({ maxLength: 64 }) });

type Body = { description?: string; parameterSchema?: object; parameter_schema?: object; responseSchema?: object; response_schema?: object; enabled?: boolean };

export function actionFields(body: Body): ActionFields {
  const one = (camel: keyof Body, snake: keyof Body) => {
    if (body[camel] !== undefined && body[snake] !== undefined) throw validationError(`give ${camel} or ${snake}, not both`, [{ path: snake, message: `duplicates ${camel}` }]);
    return (body[camel] ?? body[snake]) as object | undefined;
  };
  return { description: body.description, parameterSchema: one("parameterSchema", "parameter_schema"), responseSchema: one("responseSchema", "response_schema"), enabled: body.enabled };
}

export const action = (a: ActionRow) => ({
  id: a.id,
  name: a.name,
  description: a.description,
  parameter_schema: a.parameterSchema as Record<string, unknown>,
  response_schema: a.responseSchema as Record<string, unknown>,
  enabled: a.enabled,
  created_at: iso(a.createdAt),
  updated_at: iso(a.updatedAt),
});
