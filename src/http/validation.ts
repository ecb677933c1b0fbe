import { getSchemaValidator, type TSchema } from "elysia";
import { validationError } from "../errors.ts";
import { printable } from "./json-bounds.ts";

/**
 * Schema errors as the envelope's `details.fields`, from the first few errors only and never
 * quoting the value: Elysia's own ValidationError serialises the whole value into its message
 * for every error it lists (seconds for a 10 MiB body), so bodies are checked here first, and
 * what Elysia still refuses (query, params, headers) is rendered by the same bounded code.
 */
export const MAX_FIELDS = 20;

export interface FieldError {
  path: string;
  message: string;
}

interface ValueError {
  type: number;
  path: string;
  message: string;
}

// TypeBox ValueErrorType members whose message names the property rather than the value.
const ADDITIONAL_PROPERTY = 42;
const REQUIRED_PROPERTY = 45;
const STRING_FORMAT = 50;

/** Up to MAX_FIELDS errors as {path, message}, the first per path, each bounded in length. */
export function fieldErrors(errors: Iterable<ValueError | undefined>, location: string): FieldError[] {
  const byPath = new Map<string, FieldError>();
  let seen = 0;
  for (const e of errors) {
    if (!e) continue;
    // Only so many are looked at, so an object of 100,000 unknown keys costs no more than ten.
    if (++seen > MAX_FIELDS * 4 || byPath.size >= MAX_FIELDS) break;
    const pointer = printable(e.path ?? "", 200);
    const path = `${location}${pointer.replace(/\//g, ".")}`;
    if (!byPath.has(path)) byPath.set(path, { path, message: messageOf(e, pointer) });
  }
  return [...byPath.values()];
}

function messageOf(e: ValueError, pointer: string): string {
  const property = pointer.slice(1).replace(/\//g, ".");
  if (pointer !== "") {
    if (e.type === ADDITIONAL_PROPERTY) return `Property '${property}' should not be provided`;
    if (e.type === REQUIRED_PROPERTY) return `Property '${property}' is missing`;
  }
  // TypeBox's messages state the expectation ("Expected string", "Expected string length less
  // or equal to 200", "Expected string to match 'email' format"), never the value.
  return printable(e.type === STRING_FORMAT ? e.message : (e.message ?? "is invalid"), 300);
}

export function refusal(location: string, fields: FieldError[]) {
  const first = fields[0];
  return validationError(first ? `${first.path}: ${first.message}` : `the request ${location} is invalid`, fields);
}

/**
 * A route body's check, compiled once: the same TypeBox validator Elysia builds for the route
 * (no defaults or coercion apply to our bodies), which throws the bounded validation_error.
 * An optional body that is absent or `{}` is not checked, as Elysia does not check it.
 */
export function bodyCheck(schema: TSchema): (body: unknown) => void {
  const validator = getSchemaValidator(schema, { normalize: false }) as unknown as { Check(v: unknown): boolean; Errors(v: unknown): Iterable<ValueError> } | undefined;
  const optional = Symbol.for("TypeBox.Optional") in schema;
  return (body) => {
    if (!validator) return;
    if (optional && !(body !== null && typeof body === "object" && Object.keys(body).length > 0)) return;
    if (!validator.Check(body)) throw refusal("body", fieldErrors(validator.Errors(body), "body"));
  };
}
