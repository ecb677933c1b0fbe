/**
 * Bounds on a JSON text, checked in one linear pass before JSON.parse, so that nothing
 * downstream (the parser, schema validation, error rendering, idempotency fingerprints, the
 * database) ever walks a value that nests deeper or holds more values than this.
 *
 * - depth: objects and arrays nested at most 64 levels (JSON.parse recurses per level, and so
 *   does every walk of the result);
 * - values: at most 100,000 object members and array elements in all, counted as the opening
 *   brackets and commas outside strings (a body of the API holds a few hundred at most; the
 *   widest, a draft, ~300 addresses);
 * - members: at most 20,000 object members in all. Building an object costs far more per member
 *   than an array per element (99,000 keys took JSON.parse 100-180 ms, and as long again to copy
 *   back from the JSON worker), so keys have a bound of their own;
 * - strings may not hold NUL (`\u0000`) or a lone UTF-16 surrogate: PostgreSQL can store
 *   neither in `text` or `jsonb`, so such a body is refused here, naming the field, instead of
 *   failing in the database.
 */
export const JSON_LIMITS = { maxDepth: 64, maxValues: 100_000, maxMembers: 20_000 } as const;

export type JsonProblem =
  | { kind: "depth"; limit: number }
  | { kind: "values"; limit: number }
  | { kind: "members"; limit: number }
  /** The text may be invalid JSON; JSON.parse decides. */
  | { kind: "none"; unstorable: boolean };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * One pass over `text`, outside strings counting brackets and commas, inside strings looking
 * only at escapes (a raw control character or a broken escape is left to JSON.parse to refuse).
 */
export function scanJson(text: string, limits: { maxDepth: number; maxValues: number; maxMembers: number } = JSON_LIMITS): JsonProblem {
  let depth = 0;
  let values = 1;
  let members = 0;
  // Whether each open level is an object (its commas separate members) or an array.
  const inObject = new Uint8Array(limits.maxDepth + 2);
  let unstorable = false;
  const n = text.length;
  // The next quote and backslash at or after the cursor, each found once, never rescanned:
  // strings full of escapes, or many strings and no escape at all, stay linear.
  let quoteAt = -1;
  let escapeAt = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Jump from escape to escape: the text between them cannot matter.
      for (i++; ; ) {
        if (quoteAt < i) quoteAt = text.indexOf('"', i);
        const quote = quoteAt;
        if (quote < 0) return { kind: "none", unstorable };
        if (escapeAt < i) {
          const found = text.indexOf("\\", i);
          escapeAt = found < 0 ? n : found;
        }
        const escape = escapeAt;
        if (escape > quote) {
          i = quote;
          break;
        }
        if (text.charCodeAt(escape + 1) === 0x75 /* u */) {
          const unit = parseInt(text.slice(escape + 2, escape + 6), 16);
          if (unit === 0) unstorable = true;
          else if (unit >= 0xd800 && unit <= 0xdbff) {
            // A high surrogate must be followed by an escaped low one.
            const next = text.charCodeAt(escape + 6) === BACKSLASH && text.charCodeAt(escape + 7) === 0x75 ? parseInt(text.slice(escape + 8, escape + 12), 16) : -1;
            if (next >= 0xdc00 && next <= 0xdfff) {
              i = escape + 12;
              continue;
            }
            unstorable = true;
          } else if (unit >= 0xdc00 && unit <= 0xdfff) unstorable = true;
          i = escape + 6;
        } else i = escape + 2;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limits.maxDepth) return { kind: "depth", limit: limits.maxDepth };
      if (++values > limits.maxValues) return { kind: "values", limit: limits.maxValues };
      // An object's first member has no comma before it: count it with the brace.
      inObject[depth] = c === 0x7b ? 1 : 0;
      if (c === 0x7b && ++members > limits.maxMembers) return { kind: "members", limit: limits.maxMembers };
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    } else if (c === 0x2c /* , */) {
      if (++values > limits.maxValues) return { kind: "values", limit: limits.maxValues };
      if (depth >= 0 && inObject[depth] === 1 && ++members > limits.maxMembers) return { kind: "members", limit: limits.maxMembers };
    }
  }
  return { kind: "none", unstorable };
}

/**
 * The path (`a.b.0`) of the first string, or object key, holding NUL or a lone surrogate.
 * Only called on a value that passed `scanJson`, so the walk is bounded; it is iterative anyway.
 */
export function unstorablePath(value: unknown): string | undefined {
  const stack: { value: unknown; path: string }[] = [{ value, path: "" }];
  const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === "string") {
      if (!storable(v)) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: join(path, String(i)) });
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        if (!storable(key)) return join(path, printable(key));
        stack.push({ value: child, path: join(path, key) });
      }
    }
  }
  return undefined;
}

/** Text PostgreSQL can store: no NUL, no lone surrogate. */
export const storable = (s: string): boolean => !s.includes("\u0000") && s.isWellFormed();

/** A key or value fit to echo in an error message: unstorable characters shown as escapes, and short. */
export function printable(s: string, max = 100): string {
  const cut = s.length > max ? `${s.slice(0, max)}…` : s;
  return cut.replace(/\u0000/g, "\\u0000").toWellFormed();
}
