// Elysia's peer dependency, for its plain Integer: Elysia's `t.Integer` also takes a numeric string.
import { Type, type IntegerOptions } from "@sinclair/typebox";
import { t, type TSchema } from "elysia";
import { validationError } from "../errors.ts";

export const Uuid = (description?: string) => t.String({ format: "uuid", ...(description ? { description } : {}) });
export const Timestamp = t.String({ format: "date-time", description: "UTC, ISO 8601" });

/**
 * A JSON integer, for request bodies. Elysia's `t.Integer` is a union with a numeric string
 * (so that a query string coerces): in a body it would take `"5"` for 5, and the document would
 * read `string | integer`. Query parameters keep `t.Integer`, whose strings are the wire form.
 */
export const Int = (options?: IntegerOptions) => Type.Integer(options);

export const iso = (d: Date): string => d.toISOString();

/**
 * The highest page a list serves: past it the offset (page × limit) would leave the range of a
 * PostgreSQL bigint long before any list is that long, so it is refused, not sent to the database.
 */
export const MAX_PAGE = 1_000_000;

/** `page` 1-1,000,000 (default 1) and `limit` 1-100 (default 50), as the spec's lists take them. */
export const PageQuery = t.Object({
  page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 50 })),
});

/**
 * Elysia refuses a coerced query integer that is out of range without naming it (the field
 * path reads `property`). Lists take this as their `transform` hook, which sees the raw
 * query, so that an out-of-range page or limit is refused naming `query.page` / `query.limit`.
 * Type errors (page=abc) are still the schema's, which names them already.
 */
export function checkPageRange({ query }: { query: object }): void {
  const fields: { path: string; message: string }[] = [];
  for (const [name, max, message] of [
    ["page", MAX_PAGE, `must be 1 to ${MAX_PAGE}`],
    ["limit", 100, "must be 1 to 100"],
  ] as const) {
    const raw = (query as Record<string, unknown>)[name];
    if (typeof raw !== "string" || raw.trim() === "") continue;
    const n = Number(raw);
    // Also 1e20 and beyond: Number.isInteger holds for them, and the range check refuses them.
    if (Number.isInteger(n) && (n < 1 || n > max)) fields.push({ path: `query.${name}`, message });
  }
  if (fields.length > 0) throw validationError(`${fields[0]!.path}: ${fields[0]!.message}`, fields);
}

/**
 * A free-form JSON object a request carries (an action's JSON Schemas, protocol parameters,
 * metadata, structured data): at most `maxProperties` members at its top level; below that the
 * body limits hold (src/http/json-bounds.ts: 64 levels, 100,000 values, 10 MiB), and whatever
 * stores it bounds its serialized size.
 */
export const JsonObject = (description: string, maxProperties: number) => t.Object({}, { additionalProperties: true, maxProperties, description });

/**
 * Bodies that predate closed schemas take unknown fields and ignore them; they take at most
 * this many, so no request object is unbounded.
 */
export const OPEN_BODY_MAX_PROPERTIES = 32;

/** The envelope of a paginated list: items, page, limit, total, total_pages. */
export const Paged = <T extends TSchema>(item: T) =>
  t.Object({ items: t.Array(item), page: t.Integer(), limit: t.Integer(), total: t.Integer(), total_pages: t.Integer() });

export function pageOf(query: { page?: number; limit?: number }) {
  const page = query.page ?? 1;
  const limit = query.limit ?? 50;
  return { page, limit, offset: (page - 1) * limit };
}

export const paged = <T>(items: T[], total: number, page: { page: number; limit: number }) => ({
  items,
  page: page.page,
  limit: page.limit,
  total,
  total_pages: Math.ceil(total / page.limit),
});
