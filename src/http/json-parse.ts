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
/** A parse outcome as plain data, to cross from the JSON worker to the event loop. */
export type ParseWire =
  | { kind: "value"; value: object | null; /** The route's schema check passed in the worker. */ checked?: boolean }
  | { kind: "refusal"; code: ErrorCode; message: string; details: ErrorDetails };

export const toWire = (parsed: object | null | BodyRefusal): ParseWire =>
  parsed instanceof BodyRefusal ? { kind: "refusal", code: parsed.error.code, message: parsed.error.message, details: parsed.error.details } : { kind: "value", value: parsed };

export const fromWire = (wire: ParseWire): object | null | BodyRefusal =>
  wire.kind === "value" ? wire.value : new BodyRefusal(new AppError(wire.code, wire.message, wire.details));
