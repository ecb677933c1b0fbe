import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { schemaShape } from "./schema-bounds.ts";

/**
 * JSON Schema (draft 2020-12) for action parameters and responses, with Ajv. Schemas are
 * tenant input: checked when an action is written (size, depth, keyword count, patterns that
 * backtrack catastrophically: schema-bounds.ts) and compiled once per action version: the
 * validator of a version is kept, keyed by action id and update time, and a new version
 * compiles anew. How an instance is validated against them (inline or in a worker, with a
 * budget) is validation.ts.
 */

export interface SchemaIssue {
  path: string;
  message: string;
  keyword: string;
  params: Record<string, unknown>;
}

export const MAX_SCHEMA_BYTES = 64 * 1024;
/** Issues reported for one instance: enough to fix it, never a response as big as the instance. */
export const MAX_ISSUES = 50;
const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";

// allErrors: a caller fixing its parameters wants every problem at once.
// strict: false: unknown keywords are annotations in JSON Schema, not errors.
// Ajv only logs a format it does not know; checkSchema turns that warning into a refusal, since
// an unknown format would silently validate nothing.
let warnings: string[] | null = null;
const ajv = new Ajv2020({
  allErrors: true,
  strict: false,
  validateFormats: true,
  logger: { log() {}, warn: (...args: unknown[]) => warnings?.push(args.join(" ")), error() {} },
});
addFormats(ajv);
// Ajv compiles the 2020-12 meta-schema on first use: ~60 ms that would otherwise land on the
// event loop in the first request that writes an action, not at start-up.
ajv.validateSchema({});

/** Whether `schema` is a usable JSON Schema; the reason when it is not. */
export function checkSchema(schema: unknown): { ok: true } | { ok: false; reason: string } {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return { ok: false, reason: "must be a JSON Schema object" };
  // Depth and keyword count first: they bound the walk that JSON.stringify and Ajv make.
  const shape = schemaShape(schema);
  if (!shape.ok) return shape;
  if (JSON.stringify(schema).length > MAX_SCHEMA_BYTES) return { ok: false, reason: `must be at most ${MAX_SCHEMA_BYTES} bytes of JSON` };
  const declared = (schema as { $schema?: unknown }).$schema;
  if (declared !== undefined && declared !== DRAFT_2020 && declared !== `${DRAFT_2020}#`) {
    return { ok: false, reason: `$schema must be ${DRAFT_2020} (draft 2020-12 is the supported dialect)` };
  }
  if (!ajv.validateSchema(schema)) {
    return { ok: false, reason: `is not a valid JSON Schema: ${ajv.errorsText(ajv.errors, { dataVar: "schema" })}` };
  }
  warnings = [];
  try {
    // Compiling finds what the meta-schema cannot: unresolvable $refs (remote ones are never
    // fetched), unknown formats, bad regular expressions.
    ajv.compile(schema);
    const unknownFormat = warnings.find((w) => w.startsWith("unknown format"));
    if (unknownFormat) return { ok: false, reason: `cannot be compiled: ${unknownFormat.replace(/ ignored.*$/, "")}` };
    // Only now are the patterns known to be valid u-mode syntax, which the check relies on.
    return shape.patterns();
  } catch (err) {
    return { ok: false, reason: `cannot be compiled: ${(err as Error).message}` };
  } finally {
    warnings = null;
    ajv.removeSchema(schema);
  }
}

/** The issues of `value` against a compiled validator; empty when it is valid. */
export function issuesOf(validate: ValidateFunction, value: unknown): SchemaIssue[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, MAX_ISSUES).map(issue);
}

function issue(e: ErrorObject): SchemaIssue {
  const at = e.instancePath === "" ? "" : e.instancePath.replace(/^\//, "").replace(/\//g, ".");
  const missing = e.keyword === "required" ? String((e.params as { missingProperty?: string }).missingProperty ?? "") : "";
  const path = [at, missing].filter(Boolean).join(".");
  return { path: path === "" ? "(root)" : path, message: e.message ?? "is invalid", keyword: e.keyword, params: e.params as Record<string, unknown> };
}

/** A validator of a schema checkSchema accepted. */
export function compile(schema: object): ValidateFunction {
  // A private Ajv per compile would cost more; schemas without $id share the instance safely.
  const fn = ajv.compile(schema);
  ajv.removeSchema(schema);
  return fn;
}

/** Compiled validators by action version; bounded, oldest out first. */
export class ValidatorCache {
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly max = 2000) {}

  /** `version` changes whenever the schema may have (the action's update time). */
  get(actionId: string, version: number, which: "parameters" | "response", schema: object): ValidateFunction {
    const key = `${actionId}:${version}:${which}`;
    let fn = this.compiled.get(key);
    if (fn) return fn;
    fn = compile(schema);
    if (this.compiled.size >= this.max) this.compiled.delete(this.compiled.keys().next().value!);
    this.compiled.set(key, fn);
    return fn;
  }

  /** The issues of `value` against the version's validator, compiled once. */
  issues(actionId: string, version: number, which: "parameters" | "response", schema: object, value: unknown): SchemaIssue[] {
    return issuesOf(this.get(actionId, version, which, schema), value);
  }

  get size(): number {
    return this.compiled.size;
  }
}
