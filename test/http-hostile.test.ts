import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ROUTE_AUTH } from "../src/http/route-auth.ts";
import { startTestService, type TestService } from "./harness.ts";

/**
 * Hostile and careless HTTP input at the request pipeline (issue 13): every case answers a 4xx
 * in the envelope and changes nothing, and every request schema bounds what it takes.
 */

let t: TestService;
let doc: any;

beforeAll(async () => {
  t = await startTestService();
  doc = (await t.api("GET", "/openapi.json", { token: null })).body;
});
afterAll(() => t.stop());

describe("every request schema is bounded", () => {
  const METHODS = ["get", "put", "post", "patch", "delete"];
  const deref = (node: any): any => {
    while (node && typeof node.$ref === "string") {
      node = node.$ref
        .slice(2)
        .split("/")
        .reduce((n: any, key: string) => n?.[key], doc);
    }
    return node;
  };

  /** Every place under `schema` that takes unbounded input, as "where: why". */
  function unbounded(schema: any, where: string, out: string[]): void {
    const s = deref(schema);
    if (!s || typeof s !== "object") return out.push(`${where}: no schema`), undefined;
    for (const key of ["anyOf", "oneOf", "allOf"]) for (const [i, sub] of (s[key] ?? []).entries()) unbounded(sub, `${where}|${i}`, out);
    if (s.anyOf || s.oneOf || s.allOf) return;
    if (s.const !== undefined || s.enum !== undefined) return;
    const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
    if (types.length === 0) return out.push(`${where}: any value`), undefined;
    for (const type of types) {
      switch (type) {
        case "string":
          // uuid and date-time fix the length themselves; integer and number strings are how
          // Elysia documents the coercion of a numeric field, bounded by its number branch.
          if (s.maxLength === undefined && !["uuid", "date-time", "integer", "number"].includes(s.format)) out.push(`${where}: string without maxLength`);
          break;
        case "integer":
        case "number":
          if (s.maximum === undefined && s.exclusiveMaximum === undefined) out.push(`${where}: ${type} without maximum`);
          if (s.minimum === undefined && s.exclusiveMinimum === undefined) out.push(`${where}: ${type} without minimum`);
          break;
        case "array":
          if (s.maxItems === undefined) out.push(`${where}: array without maxItems`);
          unbounded(s.items, `${where}[]`, out);
          break;
        case "object":
          for (const [name, sub] of Object.entries<any>(s.properties ?? {})) unbounded(sub, `${where}.${name}`, out);
          if (s.additionalProperties !== false && s.maxProperties === undefined) out.push(`${where}: open object without maxProperties`);
          break;
      }
    }
  }

  test("every string has a maxLength, every array maxItems, every number bounds, every open object maxProperties", () => {
    const problems: string[] = [];
    let operations = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        operations++;
        const route = `${method.toUpperCase()} ${path}`;
        for (const p of (op.parameters ?? []).map(deref)) unbounded(p.schema, `${route} ${p.in}.${p.name}`, problems);
        for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) {
          if (type === "message/rfc822") continue; // raw bytes, bounded by SMTP_MAX_MESSAGE_BYTES
          unbounded(media.schema, `${route} body(${type})`, problems);
        }
      }
    }
    expect(operations).toBe(Object.keys(ROUTE_AUTH).length - 2); // all but /openapi.json and /docs
    expect(problems).toEqual([]);
  });

  test("the walk does find an unbounded schema (so the check above means something)", () => {
    const problems: string[] = [];
    unbounded({ type: "object", additionalProperties: false, properties: { a: { type: "string" }, b: { type: "array", items: { type: "integer", minimum: 0 } }, c: { type: "object", additionalProperties: true } } }, "x", problems);
    expect(problems).toEqual(["x.a: string without maxLength", "x.b: array without maxItems", "x.b[]: integer without maximum", "x.c: open object without maxProperties"]);
  });
});
