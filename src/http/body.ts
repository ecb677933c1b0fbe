import type { TSchema } from "elysia";
import { AppError } from "../errors.ts";
import { printable } from "./json-bounds.ts";
import type { JsonIntake } from "./json-intake.ts";
import { BodyRefusal } from "./json-parse.ts";
import { schemaToWire } from "./schema-wire.ts";
import { bodyCheck } from "./validation.ts";
import { nextTurn } from "./turns.ts";

/**
 * Reading request bodies, for every route and content type (README "Request bodies"). Elysia's
 * own parsers (text, form, multipart) never run: a body is JSON, or the raw bytes of a media
 * type its route declares, or refused; and it is size-bounded before it is read.
 */

export { BodyRefusal };

/** The media type of a Content-Type header: lowercased, without parameters; "" when absent. */
export function mediaType(header: string | null | undefined): string {
  if (!header) return "";
  const semi = header.indexOf(";");
  return (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
}

/** application/json and the structured-syntax suffix form (application/problem+json, …). */
export const isJsonType = (media: string): boolean => media === "application/json" || (media.startsWith("application/") && media.endsWith("+json"));

/** Bodies up to this size are read whole by the runtime: one step, and a short one. */
const READ_WHOLE_MAX = 64 * 1024;

/** The body's bytes, refused with 413 past `max` without reading further. */
export async function readBounded(request: Request, max: number, what: string): Promise<Uint8Array> {
  const tooLarge = () => new AppError("payload_too_large", `${what} are limited to ${max} bytes`, { limit: max });
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > max) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const known = request.headers.has("content-length") && Number.isSafeInteger(declared) && declared > 0;
  if (known && declared <= READ_WHOLE_MAX) return request.bytes();
  // A large body is read chunk by chunk, handing the event loop back after each one: read
  // whole by the runtime, 8 MiB held the thread 50–90 ms of CPU in one stretch (chunks that
  // arrived together were all taken in one go). With a declared length the chunks are copied
  // into their place as they come, so there is no join at the end.
  const into = known ? new Uint8Array(declared) : null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    if (size + chunk.byteLength > (into ? declared : max)) throw tooLarge();
    if (into) into.set(chunk, size);
    else chunks.push(chunk);
    size += chunk.byteLength;
    await nextTurn();
  }
  if (into) return size === declared ? into : into.subarray(0, size);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * A JSON route's body: `null` when empty, else a JSON object, or a refusal. JSON is taken with
 * `application/json` (or `+json`), or with no Content-Type when the body parses as JSON; any
 * other media type is 415 without reading the body.
 */
export async function readJsonBody(request: Request, media: string, maxBytes: number, json: JsonIntake, schema?: string, texts?: readonly string[]): Promise<object | null | undefined | BodyRefusal> {
  if (!request.body) return undefined;
  const declared = request.headers.get("content-length");
  if (media !== "" && !isJsonType(media)) {
    if (declared === "0") return null;
    return new BodyRefusal(new AppError("unsupported_media_type", `this route takes a JSON body (Content-Type: application/json), not ${printable(media, 100)}`, { content_type: printable(media, 100) }));
  }
  const bytes = await readBounded(request, maxBytes, "JSON bodies");
  if (bytes.byteLength === 0) return null;
  const parsed = await json.parse(bytes, schema, texts);
  // Without a Content-Type, a body is taken as JSON only when it is JSON.
  if (media === "" && parsed instanceof BodyRefusal && parsed.error.code === "invalid_json") {
    return new BodyRefusal(new AppError("unsupported_media_type", "the body has no Content-Type and is not JSON; send JSON with Content-Type: application/json", {}));
  }
  return parsed;
}

/** What a route takes as its body, read from the route itself. */
export interface RouteBody {
  /** Media types other than JSON taken as raw bytes, from what the route declares for OpenAPI
   * (`detail.requestBody.content`), so the document and the parser agree. */
  raw?: readonly string[];
  /** The route's body schema: what `check` validates, and what the OpenAPI document publishes. */
  schema?: TSchema;
  /** The body schema's check (src/http/validation.ts). */
  check?: (body: unknown) => void;
  /** The body schema in wire form (schema-wire.ts), for the JSON worker to check large bodies where it parses them. */
  wireSchema?: string;
  /** Top-level string fields the JSON worker hands back as UTF-8 bytes when large (JsonIntake.texts). */
  texts?: readonly string[];
}

type RouteLike = { method: string; path: string; hooks?: { body?: unknown; detail?: { requestBody?: { content?: Record<string, unknown> } } } };

/** "METHOD /path" → what that route takes, for every route that takes something. */
export function routeBodies(routes: readonly RouteLike[], texts: Record<string, readonly string[]> = {}): Map<string, RouteBody> {
  const out = new Map<string, RouteBody>();
  for (const r of routes) {
    const raw = Object.keys(r.hooks?.detail?.requestBody?.content ?? {}).filter((type) => !isJsonType(type));
    const schema = r.hooks?.body;
    const wireSchema = schema && typeof schema === "object" ? schemaToWire(schema) : undefined;
    const entry: RouteBody = {
      ...(raw.length > 0 ? { raw } : {}),
      ...(schema && typeof schema === "object" ? { schema: schema as TSchema, check: bodyCheck(schema as TSchema) } : {}),
      ...(wireSchema !== undefined ? { wireSchema } : {}),
      ...(texts[`${r.method} ${r.path}`] ? { texts: texts[`${r.method} ${r.path}`] } : {}),
    };
    if (entry.raw || entry.check) out.set(`${r.method} ${r.path}`, entry);
  }
  return out;
}
