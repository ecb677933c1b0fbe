/**
 * The shape of a tenant's JSON Schema, read in one iterative walk before anything else
 * touches it: its nesting depth and keyword count (both bounded, so compiling and validating
 * stay small), its regular expressions (checked by regex-safety.ts) and whether it uses a
 * keyword whose cost can outgrow the instance (then validation runs in a worker with a time
 * budget rather than inline: validation.ts).
 */
import { catastrophicBacktracking } from "./regex-safety.ts";

/** Nesting of objects and arrays in a schema. Real schemas stay far below. */
export const MAX_SCHEMA_DEPTH = 32;
/** Object keys in a schema (keywords and property names). */
export const MAX_SCHEMA_KEYWORDS = 2000;

/**
 * Keywords whose cost is not linear in the instance: regular expressions (backtracking),
 * `uniqueItems` (pairwise comparison of items) and references (a recursive schema can apply
 * many times to one value).
 */
const COSTLY = new Set(["pattern", "patternProperties", "uniqueItems", "$ref", "$dynamicRef", "$recursiveRef"]);
/** Keywords whose value is data, not schema: a "pattern" inside is no regular expression. */
const DATA = new Set(["const", "enum", "default", "examples", "$comment", "description", "title"]);
/** Keywords whose value maps names to schemas: its keys are names, not keywords. */
const MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

type Role = "schema" | "map" | "data";

export type SchemaShape =
  | { ok: false; reason: string }
  | {
      ok: true;
      /** Whether validation may cost more than linear in the instance. */
      costly: boolean;
      /** The first pattern that may backtrack catastrophically, as a refusal. */
      patterns: () => { ok: true } | { ok: false; reason: string };
    };

export function schemaShape(schema: object): SchemaShape {
  const patterns: { at: string; source: string }[] = [];
  let costly = false;
  let keywords = 0;
  const stack: { value: unknown; depth: number; role: Role; at: string }[] = [{ value: schema, depth: 1, role: "schema", at: "" }];
  while (stack.length > 0) {
    const { value, depth, role, at } = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (depth > MAX_SCHEMA_DEPTH) return { ok: false, reason: `must be nested at most ${MAX_SCHEMA_DEPTH} levels deep` };
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth: depth + 1, role, at });
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      if (++keywords > MAX_SCHEMA_KEYWORDS) return { ok: false, reason: `must have at most ${MAX_SCHEMA_KEYWORDS} keywords and property names` };
      let next: Role = role === "data" ? "data" : "schema";
      if (role === "schema") {
        if (COSTLY.has(key) && child !== false) costly = true;
        if (key === "pattern" && typeof child === "string") patterns.push({ at: `${at}/pattern`, source: child });
        if (key === "patternProperties" && child && typeof child === "object") {
          for (const source of Object.keys(child)) patterns.push({ at: `${at}/patternProperties`, source });
        }
        if (DATA.has(key)) next = "data";
        else if (MAPS.has(key)) next = "map";
      }
      stack.push({ value: child, depth: depth + 1, role: next, at: `${at}/${key}` });
    }
  }
  return {
    ok: true,
    costly,
    patterns: () => {
      for (const p of patterns) {
        const why = catastrophicBacktracking(p.source);
        if (why) return { ok: false, reason: `pattern ${JSON.stringify(p.source.slice(0, 100))} at ${p.at || "/"} ${why}` };
      }
      return { ok: true };
    },
  };
}
