/**
 * The mailbox actor's messages and outcomes as text for NatsPlacement: JSON, with what JSON
 * cannot hold tagged (Date, bytes, bigint, undefined inside arrays stays null), and errors
 * as typed data that decode into the same classes (AppError keeps code, details and
 * headers; the runtime's errors keep kind, id and deadline; a database error keeps its
 * SQLSTATE, which the job runner reads). This is the one file to replace with the actor's
 * own wire module (actors/mailbox/wire.ts) once it exists.
 *
 * The tag is an object whose only marker key is "\u0000": no value a request can carry has
 * such a key (NUL is refused in every JSON key at the door), so user data never collides.
 */
import { ActorActivationError, ActorError, ActorStoppedError, ActorTimeoutError, NotOwnerError, PlacementOutcomeUnknownError, PlacementUnavailableError, UnknownActorKindError, type Outcome, type WireCodec } from "../../actors/runtime/index.ts";
import { AppError, ERROR_STATUS, type ErrorCode } from "../errors.ts";

const TAG = "\u0000";
const MAX_CAUSES = 8;

function replacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  if (raw instanceof Date) return { [TAG]: "d", v: raw.getTime() };
  if (raw instanceof Uint8Array) return { [TAG]: Buffer.isBuffer(raw) ? "B" : "u", v: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("base64") };
  if (typeof raw === "bigint") return { [TAG]: "n", v: raw.toString() };
  if (raw instanceof Error) return { [TAG]: "e", v: errorData(raw, 0) };
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== "object" || !(TAG in value)) return value;
  const { [TAG]: tag, v } = value as { [TAG]: string; v: unknown };
  switch (tag) {
    case "d":
      return new Date(typeof v === "number" ? v : NaN);
    case "B":
      return Buffer.from(String(v), "base64");
    case "u": {
      const b = Buffer.from(String(v), "base64");
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    }
    case "n":
      return BigInt(String(v));
    case "e":
      return errorFrom(v as ErrorData);
    default:
      return value;
  }
}

export const encode = (value: unknown): string => JSON.stringify(value === undefined ? null : value, replacer);
export const decode = (text: string): unknown => JSON.parse(text, reviver);

interface ErrorData {
  name: string;
  message: string;
  code?: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
  kind?: string;
  id?: string;
  timeoutMs?: number;
  retryAfterMs?: number;
  constraint?: string;
  cause?: ErrorData;
}

function errorData(err: unknown, depth: number): ErrorData {
  if (!(err instanceof Error)) return { name: "Error", message: String(err) };
  const e = err as Error & Record<string, unknown>;
  const data: ErrorData = { name: e.name, message: e.message };
  if (err instanceof AppError) {
    data.code = err.code;
    data.details = err.details;
    data.headers = err.headers;
  } else if (typeof e.code === "string") data.code = e.code;
  if (err instanceof ActorError) {
    data.kind = err.kind;
    data.id = err.id;
  }
  if (err instanceof ActorTimeoutError) data.timeoutMs = err.timeoutMs;
  if (err instanceof PlacementUnavailableError) data.retryAfterMs = err.retryAfterMs;
  const constraint = e.constraint_name ?? e.constraint;
  if (typeof constraint === "string") data.constraint = constraint;
  if (e.cause !== undefined && depth < MAX_CAUSES) data.cause = errorData(e.cause, depth + 1);
  return data;
}

function errorFrom(d: ErrorData): Error {
  const cause = d.cause ? errorFrom(d.cause) : undefined;
  const kind = d.kind ?? "";
  const id = d.id ?? "";
  let err: Error;
  switch (d.name) {
    case "AppError":
      err = d.code && d.code in ERROR_STATUS ? new AppError(d.code as ErrorCode, d.message, d.details ?? {}, d.headers ?? {}) : new Error(d.message);
      break;
    case "ActorTimeoutError":
      err = new ActorTimeoutError(kind, id, d.timeoutMs ?? 0);
      break;
    case "ActorStoppedError":
      err = new ActorStoppedError(d.message, { kind, id });
      break;
    case "ActorActivationError":
      err = new ActorActivationError(kind, id, cause);
      break;
    case "UnknownActorKindError":
      err = new UnknownActorKindError(kind);
      break;
    case "NotOwnerError":
      err = new NotOwnerError(kind, id);
      break;
    case "PlacementUnavailableError":
      err = new PlacementUnavailableError(kind, id, d.retryAfterMs ?? 1000);
      break;
    case "PlacementOutcomeUnknownError":
      err = new PlacementOutcomeUnknownError(kind, id);
      break;
    default: {
      // Database and other errors: their name, message, SQLSTATE and cause chain.
      err = new Error(d.message, cause === undefined ? undefined : { cause });
      err.name = d.name;
      const e = err as Error & Record<string, unknown>;
      if (d.code !== undefined) e.code = d.code;
      if (d.constraint !== undefined) e.constraint_name = d.constraint;
      return err;
    }
  }
  if (cause !== undefined && (err as { cause?: unknown }).cause === undefined) Object.defineProperty(err, "cause", { value: cause, configurable: true, writable: true });
  return err;
}

export const jsonWireCodec: WireCodec = {
  encodeCommand: encode,
  decodeCommand: decode,
  encodeReply: (outcome: Outcome) => (outcome.ok ? `1${encode(outcome.value)}` : `0${JSON.stringify(errorData(outcome.error, 0))}`),
  decodeReply: (text: string): Outcome => (text[0] === "1" ? { ok: true, value: decode(text.slice(1)) } : { ok: false, error: errorFrom(JSON.parse(text.slice(1)) as ErrorData) }),
};
