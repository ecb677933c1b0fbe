import { AppError } from "../errors.ts";
import { serveWorker } from "../workers/serve.ts";
import type { JsonRequest } from "./json-intake.ts";
import { BodyRefusal, detachTexts, parseJsonObject, toWire, type ParseWire } from "./json-parse.ts";
import { schemaFromWire } from "./schema-wire.ts";
import { bodyCheck } from "./validation.ts";

/** Compiled body checks, by the schema's wire text: each route's schema is compiled once per thread. */
const checks = new Map<string, (body: unknown) => void>();

// A large JSON body is decoded, bounded, parsed and checked against its route's schema here;
// a refused body never crosses back, only its refusal, and an accepted one crosses once.
serveWorker<JsonRequest, ParseWire>(
  ({ bytes, schema, texts }) => {
  const parsed = parseJsonObject(bytes);
  if (schema === undefined || parsed === null || parsed instanceof BodyRefusal) return toWire(parsed);
  let check = checks.get(schema);
  if (!check) checks.set(schema, (check = bodyCheck(schemaFromWire(schema) as never)));
  try {
    check(parsed);
  } catch (err) {
    if (err instanceof AppError) return toWire(new BodyRefusal(err));
    throw err;
  }
  // Only a checked body has its large texts taken out: the handler reads them instead of the fields.
  const detached = texts ? detachTexts(parsed as Record<string, unknown>, texts) : undefined;
  return { kind: "value", value: parsed, checked: true, ...(detached ? { texts: detached } : {}) };
  },
  (wire) => (wire.kind === "value" && wire.texts ? Object.values(wire.texts).map((t) => t.bytes.buffer as ArrayBuffer) : []),
);
