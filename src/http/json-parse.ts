import { AppError, validationError, type ErrorCode, type ErrorDetails } from "../errors.ts";
import { scanJson, unstorablePath } from "./json-bounds.ts";

/**
 * Turning a JSON body's bytes into an object or a refusal. Pure and free of the HTTP framework,
 * so the JSON worker (json-worker.ts) loads only this.
 */

/**
 * A body refused for what it holds. The refusal waits until the caller is authenticated (the
 * pipeline throws it then), so a caller without a token learns nothing about a route but 401.
 */
export class BodyRefusal {
  constructor(readonly error: AppError) {}
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Bounds first (one linear pass), then JSON.parse; `null` for a blank body. */
export function parseJsonObject(bytes: Uint8Array): object | null | BodyRefusal {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return new BodyRefusal(new AppError("invalid_json", "the request body is not valid UTF-8 JSON"));
  }
  if (text.trim() === "") return null;
  const scan = scanJson(text);
  if (scan.kind === "depth") {
    return new BodyRefusal(boundsError(`the body nests objects and arrays more than ${scan.limit} levels deep`, { max_depth: scan.limit }));
  }
  if (scan.kind === "values") {
    return new BodyRefusal(boundsError(`the body holds more than ${scan.limit} values`, { max_values: scan.limit }));
  }
  if (scan.kind === "members") {
    return new BodyRefusal(boundsError(`the body's objects hold more than ${scan.limit} members`, { max_members: scan.limit }));
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return new BodyRefusal(new AppError("invalid_json", "the request body is not valid JSON"));
  }
  // Every JSON body of this API is an object; `null`, arrays and scalars are refused in one place.
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return new BodyRefusal(validationError("the request body must be a JSON object", [{ path: "body", message: "must be a JSON object" }]));
  }
  if (scan.unstorable) {
    const at = unstorablePath(value);
    if (at !== undefined) {
      const path = `body.${at}`;
      return new BodyRefusal(validationError(`${path}: must not contain NUL (\\u0000) or unpaired surrogates`, [{ path, message: "must not contain NUL (\\u0000) or unpaired surrogates" }]));
    }
  }
  return value;
}

const boundsError = (message: string, limits: Record<string, number>) =>
  new AppError("validation_error", message, { fields: [{ path: "body", message }], ...limits });
/** Strings from this many UTF-8 bytes count as large: handed over as bytes, fingerprinted by digest. */
export const LARGE_TEXT_BYTES = 64 * 1024;

/** Large string fields taken out of a body: their UTF-8 bytes and the SHA-256 of those (hex). */
export type DetachedTexts = Record<string, { bytes: Uint8Array; sha256: string }>;

/**
 * Takes the named top-level string fields of `value` that are large out of it, as UTF-8 bytes.
 * Done where the body was parsed (the JSON worker), so the event loop never holds them as
 * strings: a structured clone of two 4 MiB strings, then encoding them again, cost it ~40–90 ms.
 */
export function detachTexts(value: Record<string, unknown>, fields: readonly string[]): DetachedTexts | undefined {
  let out: DetachedTexts | undefined;
  for (const field of fields) {
    const text = value[field];
    // A string's UTF-8 takes at most 3 bytes per UTF-16 unit: shorter ones cannot be large.
    if (typeof text !== "string" || text.length * 3 < LARGE_TEXT_BYTES) continue;
    const encoded = Buffer.from(text, "utf8");
    if (encoded.byteLength < LARGE_TEXT_BYTES) continue;
    // A buffer of its own, so it can be moved across.
    const bytes = encoded.byteOffset === 0 && encoded.byteLength === encoded.buffer.byteLength ? encoded : encoded.slice();
    (out ??= {})[field] = { bytes, sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex") };
    delete value[field];
  }
  return out;
}

/** A parse outcome as plain data, to cross from the JSON worker to the event loop. */
export type ParseWire =
  | { kind: "value"; value: object | null; /** The route's schema check passed in the worker. */ checked?: boolean; /** Fields taken out as bytes (detachTexts). */ texts?: DetachedTexts }
  | { kind: "refusal"; code: ErrorCode; message: string; details: ErrorDetails };

export const toWire = (parsed: object | null | BodyRefusal): ParseWire =>
  parsed instanceof BodyRefusal ? { kind: "refusal", code: parsed.error.code, message: parsed.error.message, details: parsed.error.details } : { kind: "value", value: parsed };

export const fromWire = (wire: ParseWire): object | null | BodyRefusal =>
  wire.kind === "value" ? wire.value : new BodyRefusal(new AppError(wire.code, wire.message, wire.details));
