import { AppError, validationError } from "../errors.ts";
import { checkSchema } from "../protocol/json-schema.ts";

/** Action names are identifiers agents type: lowercase, starting with a letter, `_` and `-` inside. */
export const ACTION_NAME_RE = /^[a-z][a-z0-9_-]{0,63}$/;
export const MAX_ACTIONS_PER_MAILBOX = 200;

/** What a create or update may set; absent fields stay as they are (update) or take defaults (create). */
export interface ActionFields {
  description?: string;
  parameterSchema?: object;
  responseSchema?: object;
  enabled?: boolean;
}

/** A schema that accepts any object: the default for both schemas of a new action. */
export const ANY_OBJECT = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" } as const;

export function checkActionName(name: string): void {
  if (!ACTION_NAME_RE.test(name)) {
    throw validationError("invalid action name", [{ path: "name", message: "must be 1 to 64 characters: a lowercase letter, then lowercase letters, digits, _ or -" }]);
  }
}

/** Both schemas are checked as JSON Schema (draft 2020-12) before anything is stored. */
export function checkActionFields(fields: ActionFields): void {
  const problems: { path: string; message: string }[] = [];
  for (const [path, schema] of [
    ["parameterSchema", fields.parameterSchema],
    ["responseSchema", fields.responseSchema],
  ] as const) {
    if (schema === undefined) continue;
    const checked = checkSchema(schema);
    if (!checked.ok) problems.push({ path, message: checked.reason });
  }
  if (problems.length > 0) throw validationError(`${problems[0]!.path} ${problems[0]!.message}`, problems);
}

export const actionExists = (name: string) => new AppError("action_exists", `this mailbox already has an action named "${name}"`, { name });
