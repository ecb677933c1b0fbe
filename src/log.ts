import pino from "pino";

export type Logger = pino.Logger;

/** One structured logger for the process; children carry requestId, mailboxId, jobId. */
export function createLogger(level: string, nodeId: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { node: nodeId },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    serializers: { err: serializeError, error: serializeError },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A logged message, detail or query text is cut here: a driver may quote whole statements. */
export const MAX_LOGGED_TEXT = 1000;
const MAX_CAUSE_DEPTH = 5;
/**
 * What drivers attach to a query error: drizzle (`params`), postgres.js (`parameters`, `args`,
 * `types`, enumerable in debug mode), PGlite (`params`, `queryOptions`). Bound values are
 * tenant data (addresses, bodies, key digests): never logged.
 */
const PARAMETER_FIELDS = new Set(["params", "parameters", "args", "types", "queryOptions", "values"]);

/**
 * The `err` serializer: type, bounded message and stack, SQL text without its values, and
 * the cause chain the same way. DrizzleQueryError writes its parameters into its message
 * ("Failed query: …\nparams: …"), so that line is cut off wherever it appears.
 */
export function serializeError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error) && !(err && typeof err === "object" && "message" in err)) {
    return typeof err === "string" ? safeErrorText(err) : err;
  }
  const e = err as Error & Record<string, unknown>;
  const out: Record<string, unknown> = {
    type: e.constructor?.name ?? e.name,
    message: safeErrorText(String(e.message ?? "")),
  };
  if (typeof e.stack === "string") out.stack = safeStack(e.stack);
  for (const key of Object.keys(e)) {
    if (key in out || key === "cause" || PARAMETER_FIELDS.has(key)) continue;
    const value = e[key];
    if (value instanceof Error) continue;
    if (typeof value === "string") out[key] = key === "detail" ? redactKeyValues(safeErrorText(value)) : safeErrorText(value);
    else if (value === null || typeof value === "number" || typeof value === "boolean") out[key] = value;
    else if (value !== undefined && key !== "queryOptions") out[key] = boundedJson(value);
  }
  // postgres.js keeps its query text non-enumerable outside debug mode: say which statement failed, without values.
  if (typeof e.query === "string") out.query = safeErrorText(e.query);
  if (e.cause !== undefined && depth < MAX_CAUSE_DEPTH) out.cause = serializeError(e.cause, depth + 1);
  return out;
}

/** An error's message fit for a log line or a database column: no query parameters, bounded. */
export function safeErrorText(text: string, max = MAX_LOGGED_TEXT): string {
  const params = text.search(/\n\s*params:/);
  const cut = params >= 0 ? `${text.slice(0, params)}\nparams: [not logged]` : text;
  return bound(cut, max);
}

const bound = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters]` : text);

/** The stack repeats the message: its parameter lines go, its frames stay. */
function safeStack(stack: string): string {
  const params = stack.search(/\n\s*params:/);
  if (params < 0) return safeErrorText(stack, 4 * MAX_LOGGED_TEXT);
  const frames = stack.indexOf("\n    at ", params);
  const head = safeErrorText(stack.slice(0, params));
  return bound(`${head}\nparams: [not logged]${frames >= 0 ? stack.slice(frames) : ""}`, 4 * MAX_LOGGED_TEXT);
}

/** `Key (scope, key_digest)=(a, 3f9…) already exists.`: the names stay, the values go. */
const redactKeyValues = (detail: string) => detail.replace(/\)=\((?:[^()]|\([^()]*\))*\)/g, ")=(…)");

function boundedJson(value: unknown): unknown {
  let text: string;
  try {
    text = JSON.stringify(value) ?? "";
  } catch {
    return "[unserializable]";
  }
  return text.length > MAX_LOGGED_TEXT ? bound(text, MAX_LOGGED_TEXT) : value;
}
