/**
 * A route's body schema as text, for the JSON worker (json-worker.ts) to check bodies where it
 * parses them. TypeBox marks schemas with registered symbols (`Symbol.for("TypeBox.Kind")`,
 * `…Optional`), which structured clone and JSON drop, so they are written as string keys and
 * restored on the other side. A schema holding anything else that cannot cross (a function, an
 * unregistered symbol: a custom check) has no wire form, and its bodies are checked on the
 * event loop as before. A transform's codec (Elysia's coercing t.Integer, t.Numeric) is left out:
 * it holds functions, and a check (TypeBox Check) never runs it, only Elysia's decode after.
 */
const SYMBOL_KEY = "@@typebox-symbol:";
const TRANSFORM = Symbol.for("TypeBox.Transform");

export function schemaToWire(schema: unknown): string | undefined {
  try {
    return JSON.stringify(encode(schema));
  } catch {
    return undefined;
  }
}

export function schemaFromWire(wire: string): unknown {
  return decode(JSON.parse(wire));
}

function encode(value: unknown): unknown {
  if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") throw new TypeError("not transferable");
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(encode);
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) throw new TypeError("not a plain object");
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = encode((value as Record<string, unknown>)[key]);
  for (const sym of Object.getOwnPropertySymbols(value)) {
    if (sym === TRANSFORM) continue;
    const name = Symbol.keyFor(sym);
    if (name === undefined) throw new TypeError("unregistered symbol");
    out[SYMBOL_KEY + name] = encode((value as Record<symbol, unknown>)[sym]);
  }
  return out;
}

function decode(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(decode);
  const out: Record<string | symbol, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key.startsWith(SYMBOL_KEY)) out[Symbol.for(key.slice(SYMBOL_KEY.length))] = decode(v);
    else out[key] = decode(v);
  }
  return out;
}
