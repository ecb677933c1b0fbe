import type { TSchema } from "elysia";
import { AppError, validationError } from "../errors.ts";
import { printable, scanJson, unstorablePath } from "./json-bounds.ts";
import { bodyCheck } from "./validation.ts";

/**
 * Reading request bodies, for every route and content type (README "Request bodies"). Elysia's
 * own parsers (text, form, multipart) never run: a body is JSON, or the raw bytes of a media
 * type its route declares, or refused; and it is size-bounded before it is read.
 */

/**
 * A body refused for what it holds. The refusal waits until the caller is authenticated (the
 * pipeline throws it then), so a caller without a token learns nothing about a route but 401.
 */
export class BodyRefusal {
  constructor(readonly error: AppError) {}
}

/** The media type of a Content-Type header: lowercased, without parameters; "" when absent. */
export function mediaType(header: string | null | undefined): string {
  if (!header) return "";
  const semi = header.indexOf(";");
  return (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
}

/** application/json and the structured-syntax suffix form (application/problem+json, …). */
export const isJsonType = (media: string): boolean => media === "application/json" || (media.startsWith("application/") && media.endsWith("+json"));

/** The body's bytes, refused with 413 past `max` without reading further. */
export async function readBounded(request: Request, max: number, what: string): Promise<Uint8Array> {
  const tooLarge = () => new AppError("payload_too_large", `${what} are limited to ${max} bytes`, { limit: max });
  if (Number(request.headers.get("content-length") ?? "0") > max) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > max) throw tooLarge();
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A JSON route's body: `null` when empty, else a JSON object, or a refusal. JSON is taken with
 * `application/json` (or `+json`), or with no Content-Type when the body parses as JSON; any
 * other media type is 415 without reading the body.
 */
export async function readJsonBody(request: Request, media: string, maxBytes: number): Promise<object | null | undefined | BodyRefusal> {
  if (!request.body) return undefined;
  const declared = request.headers.get("content-length");
  if (media !== "" && !isJsonType(media)) {
    if (declared === "0") return null;
    return new BodyRefusal(new AppError("unsupported_media_type", `this route takes a JSON body (Content-Type: application/json), not ${printable(media, 100)}`, { content_type: printable(media, 100) }));
  }
  const bytes = await readBounded(request, maxBytes, "JSON bodies");
  if (bytes.byteLength === 0) return null;
  const parsed = parseJsonObject(bytes);
  // Without a Content-Type, a body is taken as JSON only when it is JSON.
  if (media === "" && parsed instanceof BodyRefusal && parsed.error.code === "invalid_json") {
    return new BodyRefusal(new AppError("unsupported_media_type", "the body has no Content-Type and is not JSON; send JSON with Content-Type: application/json", {}));
  }
  return parsed;
}

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

/** What a route takes as its body, read from the route itself. */
export interface RouteBody {
  /** Media types other than JSON taken as raw bytes, from what the route declares for OpenAPI
   * (`detail.requestBody.content`), so the document and the parser agree. */
  raw?: readonly string[];
  /** The body schema's check (src/http/validation.ts). */
  check?: (body: unknown) => void;
}

type RouteLike = { method: string; path: string; hooks?: { body?: unknown; detail?: { requestBody?: { content?: Record<string, unknown> } } } };

/** "METHOD /path" → what that route takes, for every route that takes something. */
export function routeBodies(routes: readonly RouteLike[]): Map<string, RouteBody> {
  const out = new Map<string, RouteBody>();
  for (const r of routes) {
    const raw = Object.keys(r.hooks?.detail?.requestBody?.content ?? {}).filter((type) => !isJsonType(type));
    const schema = r.hooks?.body;
    const entry: RouteBody = {
      ...(raw.length > 0 ? { raw } : {}),
      ...(schema && typeof schema === "object" ? { check: bodyCheck(schema as TSchema) } : {}),
    };
    if (entry.raw || entry.check) out.set(`${r.method} ${r.path}`, entry);
  }
  return out;
}
