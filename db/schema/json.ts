import { customType } from "drizzle-orm/pg-core";

/**
 * A `jsonb` column that writes only well-formed strings. PostgreSQL refuses a lone surrogate
 * (`\ud800`) anywhere in a jsonb value, and one can come from anywhere: a summary or snippet cut
 * inside a surrogate pair, a header decoded from a broken charset, a caller's metadata. Such a
 * code unit becomes U+FFFD, as it would in a text column, instead of failing the whole write.
 */
export const jsonb = customType<{ data: unknown; driverData: unknown }>({
  dataType: () => "jsonb",
  toDriver: (value) => wellFormedJson(value),
  // Both drivers (postgres.js, PGlite) hand jsonb over already parsed. Parsing a string again
  // would turn a stored JSON string such as "10.5" or "{}" into a number or an object.
  fromDriver: (value) => value,
});

// JSON.stringify writes a lone surrogate as a `\udXXX` escape and a valid pair as itself, so
// one scan of the output tells whether the value needs the slower, replacing pass.
const LONE_SURROGATE_ESCAPE = /\\ud[89a-f][0-9a-f]{2}/i;

export function wellFormedJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined || !LONE_SURROGATE_ESCAPE.test(json)) return json;
  return JSON.stringify(value, function (this: unknown, _key, v) {
    if (typeof v === "string") return v.toWellFormed();
    if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).some((k) => !k.isWellFormed())) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.toWellFormed(), x]));
    }
    return v;
  });
}
