import fc from "fast-check";

/**
 * Value generators of the fuzzer: values that fit a JSON Schema (roughly: close enough that
 * validation passes often and the handler runs), and hostile values that a careless or
 * malicious client would send instead.
 */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = Record<string, any>;

/** Strings that have broken something somewhere: control bytes, lone surrogates, injection shapes, odd Unicode. */
export const HOSTILE_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "\ud83d",
  "\uFEFFbom",
  "\u202Eevil\u202C",
  "e\u0301\u0301\u0301",
  "💩".repeat(40),
  "\r\n\r\nInjected: header",
  "line\nbreak",
  "\t",
  "%00",
  "%",
  "%zz",
  "%E0%A4%A",
  "../../etc/passwd",
  "'; drop table accounts; --",
  "\" OR 1=1 --",
  "${jndi:ldap://x}",
  "<script>alert(1)</script>",
  "{{7*7}}",
  "__proto__",
  "constructor",
  "null",
  "undefined",
  "NaN",
  "-0",
  "1e999",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "not-a-uuid",
  "a@b",
  "@",
  "x@y@z.example",
  "\u0000@example.com",
  "user@[127.0.0.1]",
  "http://127.0.0.1:1/",
  "javascript:alert(1)",
  "file:///etc/passwd",
  "2026-02-30T25:61:61Z",
  "9999-12-31T23:59:59.999Z",
  "0000-01-01T00:00:00Z",
  "\\",
  "\\u0000",
  "ǅǈǋ",
  "İı",
  "ß".repeat(300),
];

export const HOSTILE_NUMBERS = [0, -1, -0, 0.5, 1e308, -1e308, 2 ** 31, 2 ** 31 - 1, 2 ** 32, 2 ** 53, 2 ** 53 + 2, Number.MIN_VALUE, -(2 ** 63), 1e21, 123456789012345680000];

/** A string drawn from any of: ASCII, full Unicode with surrogates, hostile constants, long runs. */
export const anyString = (max = 64): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength: max }) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: max }) },
    { weight: 2, arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: max }) },
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("a", "\u0000", "é", "💩", "%"), fc.integer({ min: 256, max: 70_000 })).map(([c, n]) => c.repeat(n)) },
  );

/** Nested arrays or objects `depth` levels deep, built without recursion limits of the generator. */
export function nested(depth: number, kind: "array" | "object"): Json {
  let v: Json = kind === "array" ? [] : {};
  for (let i = 0; i < depth; i++) v = kind === "array" ? [v] : { a: v };
  return v;
}

/** Any JSON value, including hostile shapes (deep nesting, wide arrays, huge numbers). */
export const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: anyString() },
  { weight: 2, arbitrary: fc.constantFrom<Json>(...HOSTILE_NUMBERS) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, false, [], {}, [null], { "": null }, { __proto__: { admin: true } } as Json) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json> },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 10, max: 300 }), fc.constantFrom<"array" | "object">("array", "object")).map(([d, k]) => nested(d, k)) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 5_000 }).map((n) => Array.from({ length: n }, (_, i) => i % 7)) },
);

const FORMAT: Record<string, () => fc.Arbitrary<string>> = {
  uuid: () => fc.uuid(),
  email: () => fc.oneof(fc.emailAddress(), fc.constant("someone@example.com")),
  "date-time": () => fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString()),
  date: () => fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  uri: () => fc.oneof(fc.webUrl(), fc.constant("https://hooks.example.com/fuzz"), fc.constant("http://127.0.0.1:9/x")),
  integer: () => fc.integer({ min: 0, max: 1000 }).map(String),
};

/**
 * Strings that name real things of the fuzzed service (ids, addresses, action names), drawn
 * now and then in place of a generated string so that inputs get past "not found" into the
 * code behind it. Set once the fixtures exist.
 */
let realistic: string[] = [];
export const setRealistic = (values: string[]) => {
  realistic = values.filter((v) => typeof v === "string" && v.length > 0);
};

/** Search syntax: operators with fitting, empty or hostile values, quotes, OR and negation. */
export const searchQuery: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.tuple(fc.constantFrom("from", "to", "subject", "label", "has", "is", "risk", "triage", "before", "after", "unknown", "FROM", "mailto"), fc.constantFrom(":", ":-", "::", ": "), fc.oneof(anyString(20), fc.constantFrom("2026-01-01", "2026/02/30", "9999-12-31", "0000-01-01", "99999-01-01", "2026-01-01T25:00:00Z", "2026-01-01T00:00:00+99:99", "2026-01-01T00:00:00.1234567890Z", "attachment", "high", "spam", '"quoted value"', '"unclosed', "*", "%"))).map(([f, sep, v]) => `${f}${sep}${v}`),
      fc.constantFrom("OR", "or", "-OR", "AND", "-", "--x", '"', '""', '"a b"', "-\"phrase\"", "(", ")", "*", "!", "&", "|", "<->", ":*", "\\", "\u0000", "x".repeat(1001)),
      anyString(12),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(" "));

/** A value that fits `schema` most of the time (patterns are only sometimes honoured). */
export function fitting(schema: Schema | undefined, depth = 0): fc.Arbitrary<Json> {
  if (!schema || depth > 6) return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union) && union.length > 0) return fc.oneof(...union.map((s: Schema) => fitting({ ...s, description: undefined }, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return fitting(Object.assign({}, ...schema.allOf), depth + 1);
  const type = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : schema.properties ? ["object"] : [];
  if (type.length === 0) return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;
  return fc.oneof(...type.map((ty: string) => fittingType(ty, schema, depth)));
}

function fittingType(type: string, s: Schema, depth: number): fc.Arbitrary<Json> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({ min: Math.max(s.minimum ?? -1000, -1e9), max: Math.min(s.maximum ?? 100_000, 1e9) });
    case "number":
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case "string": {
      const min = s.minLength ?? 0;
      const max = Math.min(s.maxLength ?? 40, min + 40);
      const format: (() => fc.Arbitrary<string>) | undefined = s.format ? FORMAT[s.format] : undefined;
      const text = realistic.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.string({ minLength: min, maxLength: Math.max(min, max) }) }, { weight: 1, arbitrary: fc.constantFrom(...realistic) }) : fc.string({ minLength: min, maxLength: Math.max(min, max) });
      return format ? (fc.oneof({ weight: 4, arbitrary: format() }, { weight: 1, arbitrary: text }) as fc.Arbitrary<Json>) : text;
    }
    case "array": {
      const min = s.minItems ?? 0;
      return fc.array<Json>(fitting(s.items, depth + 1), { minLength: min, maxLength: Math.max(min, Math.min(s.maxItems ?? 4, min + 4)) });
    }
    case "object": {
      const props: Record<string, Schema> = s.properties ?? {};
      const required = new Set<string>(s.required ?? []);
      const entries = Object.entries(props).map(([k, v]) => [k, fitting(v, depth + 1)] as const);
      const shaped = entries.map(([k, v]) => [k, k === "query" ? fc.oneof(v, searchQuery) : v] as const);
      const record = fc.record(Object.fromEntries(shaped), { requiredKeys: [...required].filter((k) => k in props) });
      if (Object.keys(props).length === 0 && (s.patternProperties || s.additionalProperties)) {
        const inner = s.patternProperties ? Object.values<Schema>(s.patternProperties)[0] : typeof s.additionalProperties === "object" ? s.additionalProperties : undefined;
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fitting(inner, depth + 1), { maxKeys: 4 }) as fc.Arbitrary<Json>;
      }
      return record as fc.Arbitrary<Json>;
    }
    default:
      return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;
  }
}

/** Paths of every node of a JSON value, root first (bounded, so a huge value stays cheap). */
function paths(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (out.length > 200 || v === null || typeof v !== "object") return out;
  if (Array.isArray(v)) v.slice(0, 20).forEach((x, i) => paths(x, [...at, i], out));
  else for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

/** `value` with the node at one of its paths replaced by a hostile value (or one extra property added). */
export const corrupt = (value: fc.Arbitrary<Json>): fc.Arbitrary<Json> =>
  value.chain((v) => {
    const all = paths(v);
    return fc.tuple(fc.constantFrom(...all), hostileValue, fc.boolean(), anyString(20)).map(([path, bad, addKey, key]) => {
      if (path.length === 0 && !addKey) return bad;
      const copy = structuredClone(v) as any;
      let node = copy;
      for (const p of path.slice(0, -1)) node = node[p];
      if (addKey && copy !== null && typeof copy === "object" && !Array.isArray(copy)) {
        copy[key] = bad;
        return copy;
      }
      if (path.length === 0) return bad;
      node[path[path.length - 1]!] = bad;
      return copy;
    });
  });
