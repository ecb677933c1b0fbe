/**
 * The mailbox actor's wire format: how a command, its reply and its error travel between
 * nodes (the NATS placement forwards commands to the node that owns the mailbox). Derived
 * from the command map (./commands.ts): every command is covered, none is listed here.
 *
 * API (stable; a change here is a change of the protocol between nodes):
 *
 *   encodeCommand(name, args) → WireCommand   { name, args }: what the client sends, as plain data
 *   encodeMessage(msg)        → WireCommand   the same from a `{ name, args }` message (what a Placement is handed)
 *   decodeCommand(data)       → MailboxMessage `{ name, args }` to hand to the local actor system;
 *                                              throws WireFormatError for an unknown name or a malformed message
 *   encodeReply(value)        → WireReply     { ok: true, value }
 *   encodeError(err)          → WireReply     { ok: false, error: WireError }; never throws
 *   decodeReply(data)         → the reply value, or throws the error it carries, rebuilt as the
 *                                              same typed class: AppError (src/errors.ts, with code, details
 *                                              and headers such as Retry-After), ActorTimeoutError,
 *                                              ActorStoppedError, ActorActivationError (with its cause),
 *                                              UnknownActorKindError, UnknownCommandError, ActorError
 *                                              (name kept), a registered type; anything else becomes a
 *                                              plain Error with its name, message, SQLSTATE `code`,
 *                                              `constraint_name` and cause chain (a fault: rendered as 500,
 *                                              and classified by the job runner, as it would be locally).
 *   settleReply(promise)      → Promise<WireReply>  the outcome of a handler, success or failure; never rejects
 *   encodeOutcome(outcome)    → WireReply     from { ok, value } / { ok, error }; a value that cannot be
 *                                              encoded becomes that fault's error; never throws
 *   decodeOutcome(data)       → Outcome       decodeReply without throwing the carried error
 *   mailboxWireCodec          the same as text: { encodeCommand(msg), decodeCommand(text),
 *                                              encodeReply(outcome), decodeReply(text) → Outcome },
 *                                              the shape of NatsPlacement's WireCodec
 *   registerWireError(type)   carries an error class of another module (e.g. the cluster's NotOwnerError)
 *
 * Every encoded value is plain JSON data: `JSON.stringify` of it is the bytes to send, and
 * every decoder accepts the object itself, its JSON text or that text's UTF-8 bytes.
 *
 * Values: JSON as it is, except what JSON cannot say, which becomes an object tagged by a
 * "$" key: `{ "$": "date", "v": <epoch ms> }`, `{ "$": "undefined" }`,
 * `{ "$": "bytes" | "buffer", "v": <base64> }`, `{ "$": "bigint", "v": "<digits>" }`,
 * `{ "$": "number", "v": "NaN" | "Infinity" | "-Infinity" | "-0" }`, and a plain object that has a
 * "$" key of its own (tenant data may) is wrapped as `{ "$": "object", "v": { ... } }`. So
 * rows with Date columns, optional fields and `undefined` replies come out as they went in.
 * Class instances other than those (Map, Set, a class of ours) are refused at encoding: a
 * command's arguments and replies must be plain data.
 */
import { AppError, ERROR_STATUS, type ErrorCode } from "../../src/errors.ts";
import { ActorActivationError, ActorError, ActorStoppedError, ActorTimeoutError, UnknownActorKindError, UnknownCommandError } from "../runtime/index.ts";
import { mailboxCommands, type MailboxArgs, type MailboxCommandName, type MailboxMessage } from "./commands.ts";

export type WireValue = null | boolean | number | string | WireValue[] | { [key: string]: WireValue };

export interface WireCommand {
  name: string;
  args: WireValue[];
}

export type WireError =
  | { type: "AppError"; code: string; message: string; details: WireValue; headers: Record<string, string> }
  | { type: "ActorTimeoutError"; kind: string; id: string; timeoutMs: number }
  | { type: "ActorStoppedError"; message: string; kind: string | null; id: string | null }
  | { type: "ActorActivationError"; kind: string; id: string; cause: WireError }
  | { type: "UnknownActorKindError"; kind: string }
  | { type: "UnknownCommandError"; kind: string; command: WireValue }
  | { type: "ActorError"; name: string; message: string; kind: string | null; id: string | null }
  /** Any other error: a fault. `code` is a database error's SQLSTATE (the job runner reads it), `constraint` its constraint. */
  | { type: "Error"; name: string; message: string; code?: string; constraint?: string; cause?: WireError }
  /** An error type registered with registerWireError (the cluster's own, for instance). */
  | { type: `+${string}`; fields: { [key: string]: WireValue } };

export type WireReply = { ok: true; value: WireValue } | { ok: false; error: WireError };

/** Data that is not a message of this format (another version, or corrupt): a fault, never a client's error. */
export class WireFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WireFormatError";
  }
}

// ---------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------

export function encodeCommand<N extends MailboxCommandName>(name: N, args: MailboxArgs<N>): WireCommand {
  return { name, args: (args as unknown[]).map(encodeValue) };
}

export function encodeMessage(msg: MailboxMessage): WireCommand {
  return encodeCommand(msg.name, msg.args);
}

export function decodeCommand(data: unknown): MailboxMessage {
  const cmd = parse(data);
  if (!isObject(cmd) || typeof cmd.name !== "string" || !Array.isArray(cmd.args)) throw new WireFormatError("a mailbox command is { name, args: [...] }");
  if (!isCommandName(cmd.name)) throw new WireFormatError(`no mailbox command is named ${JSON.stringify(cmd.name)}`);
  return { name: cmd.name, args: cmd.args.map(decodeValue) } as MailboxMessage;
}

export function isCommandName(name: string): name is MailboxCommandName {
  return Object.hasOwn(mailboxCommands, name);
}

// ---------------------------------------------------------------------------
// Replies and errors
// ---------------------------------------------------------------------------

export function encodeReply(value: unknown): WireReply {
  return { ok: true, value: encodeValue(value) };
}

export function encodeError(err: unknown): WireReply {
  return { ok: false, error: errorToWire(err) };
}

/** The outcome of a command run locally, ready to send back. Never rejects. */
export function settleReply(reply: Promise<unknown>): Promise<WireReply> {
  return reply.then(
    (value) => encodeOutcome({ ok: true, value }),
    (error: unknown) => encodeError(error),
  );
}

export function decodeReply(data: unknown): unknown {
  const reply = parse(data);
  if (!isObject(reply) || typeof reply.ok !== "boolean") throw new WireFormatError("a mailbox reply is { ok, value } or { ok, error }");
  if (reply.ok) return decodeValue((reply.value ?? null) as WireValue);
  throw errorFromWire(reply.error);
}

/** A settled outcome, as a placement holds one. */
export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** An outcome as a reply; a value that cannot be encoded becomes that fault's error. Never throws. */
export function encodeOutcome(outcome: Outcome): WireReply {
  if (!outcome.ok) return encodeError(outcome.error);
  try {
    return encodeReply(outcome.value);
  } catch (err) {
    return encodeError(err);
  }
}

/** A reply as an outcome, the error rebuilt but not thrown. Throws only WireFormatError, for data that is no reply. */
export function decodeOutcome(data: unknown): Outcome {
  try {
    return { ok: true, value: decodeReply(data) };
  } catch (error) {
    if (error instanceof WireFormatError) throw error;
    return { ok: false, error };
  }
}

/**
 * The same, as text in and out: the shape a text-carrying placement takes (NatsPlacement's
 * WireCodec). Messages are the `{ name, args }` the client sends.
 */
export const mailboxWireCodec = {
  encodeCommand: (msg: unknown): string => JSON.stringify(encodeMessage(msg as MailboxMessage)),
  decodeCommand: (text: string): MailboxMessage => decodeCommand(text),
  encodeReply: (outcome: Outcome): string => JSON.stringify(encodeOutcome(outcome)),
  decodeReply: (text: string): Outcome => decodeOutcome(text),
};

/**
 * An error class of a module this one does not know (the cluster's NotOwnerError, say), carried
 * as `{ type: "+" + name, fields }` and rebuilt by `decode`. Registered types are tried before
 * the built-in ones, so a subclass of ActorError keeps its class.
 */
export interface WireErrorType<E extends Error = Error> {
  name: string;
  matches(err: unknown): err is E;
  encode(err: E): { [key: string]: WireValue };
  decode(fields: { [key: string]: WireValue }): Error;
}

const registered = new Map<string, WireErrorType>();

export function registerWireError<E extends Error>(type: WireErrorType<E>): void {
  registered.set(type.name, type as unknown as WireErrorType);
}

const MAX_CAUSES = 8;

function errorToWire(err: unknown, depth = 0): WireError {
  for (const type of registered.values()) {
    if (type.matches(err)) return { type: `+${type.name}`, fields: type.encode(err) };
  }
  // Most specific first: these are subclasses of ActorError.
  if (err instanceof AppError) {
    let details: WireValue;
    try {
      details = encodeValue(err.details);
    } catch {
      details = {}; // details that are not plain data are dropped rather than losing the error
    }
    return { type: "AppError", code: err.code, message: err.message, details, headers: { ...err.headers } };
  }
  if (err instanceof ActorTimeoutError) return { type: "ActorTimeoutError", kind: err.kind!, id: err.id!, timeoutMs: err.timeoutMs };
  if (err instanceof ActorStoppedError) return { type: "ActorStoppedError", message: err.message, kind: err.kind ?? null, id: err.id ?? null };
  if (err instanceof ActorActivationError) return { type: "ActorActivationError", kind: err.kind!, id: err.id!, cause: errorToWire(err.cause, depth + 1) };
  if (err instanceof UnknownActorKindError) return { type: "UnknownActorKindError", kind: err.kind! };
  if (err instanceof UnknownCommandError) return { type: "UnknownCommandError", kind: err.kind, command: safeValue(err.command) };
  if (err instanceof ActorError) return { type: "ActorError", name: err.name, message: err.message, kind: err.kind ?? null, id: err.id ?? null };
  if (!(err instanceof Error)) return { type: "Error", name: "Error", message: String(err) };
  const e = err as Error & { code?: unknown; constraint?: unknown; constraint_name?: unknown };
  const out: WireError = { type: "Error", name: err.name, message: err.message };
  if (typeof e.code === "string") out.code = e.code;
  const constraint = e.constraint_name ?? e.constraint;
  if (typeof constraint === "string") out.constraint = constraint;
  // Drizzle wraps the driver's error: the SQLSTATE is on the cause, where uniqueViolation() looks.
  if (err.cause !== undefined && depth < MAX_CAUSES) out.cause = errorToWire(err.cause, depth + 1);
  return out;
}

function errorFromWire(data: unknown): Error {
  if (!isObject(data) || typeof data.type !== "string") return new WireFormatError("a mailbox error has a type");
  const e = data as WireError;
  const opt = (v: string | null) => v ?? undefined;
  if (e.type.startsWith("+")) {
    const type = registered.get(e.type.slice(1));
    const fields = (e as { fields?: unknown }).fields;
    if (type && isObject(fields)) return type.decode(fields);
  }
  switch (e.type) {
    case "AppError":
      if (!Object.hasOwn(ERROR_STATUS, e.code)) break;
      return new AppError(e.code as ErrorCode, e.message, (decodeValue(e.details) ?? {}) as Record<string, unknown>, { ...e.headers });
    case "ActorTimeoutError":
      return new ActorTimeoutError(e.kind, e.id, e.timeoutMs);
    case "ActorStoppedError":
      return new ActorStoppedError(e.message, { kind: opt(e.kind), id: opt(e.id) });
    case "ActorActivationError":
      return new ActorActivationError(e.kind, e.id, errorFromWire(e.cause));
    case "UnknownActorKindError":
      return new UnknownActorKindError(e.kind);
    case "UnknownCommandError":
      return new UnknownCommandError(e.kind, decodeValue(e.command));
    case "ActorError": {
      const err = new ActorError(e.message, { kind: opt(e.kind), id: opt(e.id) });
      err.name = e.name;
      return err;
    }
    case "Error": {
      const err = new Error(e.message, e.cause === undefined ? undefined : { cause: errorFromWire(e.cause) }) as Error & { code?: string; constraint_name?: string };
      err.name = e.name;
      if (e.code !== undefined) err.code = e.code;
      if (e.constraint !== undefined) err.constraint_name = e.constraint;
      return err;
    }
  }
  // An error type (or an AppError code) this node does not know: a fault, with what was said kept.
  const message = (data as { message?: unknown }).message;
  const err = new Error(typeof message === "string" ? message : "unknown error from another node");
  err.name = String(data.type);
  return err;
}

// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------

const TAG = "$";

export function encodeValue(value: unknown): WireValue {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // JSON has no NaN, Infinity or -0.
      return Number.isFinite(value) && !Object.is(value, -0) ? value : { [TAG]: "number", v: Object.is(value, -0) ? "-0" : String(value) };
    case "undefined":
      return { [TAG]: "undefined" };
    case "bigint":
      return { [TAG]: "bigint", v: value.toString() };
    case "object": {
      if (value === null) return null;
      if (Array.isArray(value)) return mapChanged(value, encodeValue) as WireValue[];
      if (value instanceof Date) {
        const t = value.getTime();
        return { [TAG]: "date", v: Number.isNaN(t) ? null : t };
      }
      if (value instanceof Uint8Array) return { [TAG]: Buffer.isBuffer(value) ? "buffer" : "bytes", v: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") };
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new WireFormatError(`not plain data: a ${(value as object).constructor?.name ?? "class instance"} cannot cross the wire`);
      }
      const out = entriesChanged(value as Record<string, unknown>, encodeValue) as { [key: string]: WireValue };
      return Object.hasOwn(out, TAG) ? { [TAG]: "object", v: out } : out;
    }
    default:
      throw new WireFormatError(`not plain data: a ${typeof value} cannot cross the wire`);
  }
}

/*
 * Copy on write: an array or object whose items all come out as they went in is returned
 * itself (JSON.stringify reads it as it would the copy), and one that changes is copied from
 * its first changed item on. Most replies are plain JSON already, and a copy of each of them
 * was a visible part of a forwarded command's cost.
 */
function mapChanged(items: readonly unknown[], each: (v: never) => unknown): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const mapped = each(item as never);
    if (out !== undefined) out.push(mapped);
    else if (mapped !== item) {
      out = items.slice(0, i);
      out.push(mapped);
    }
  }
  return out ?? (items as unknown[]);
}

function entriesChanged(obj: Record<string, unknown>, each: (v: never) => unknown): Record<string, unknown> {
  const keys = Object.keys(obj);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = obj[key];
    const mapped = each(item as never);
    if (out !== undefined) setOwn(out, key, mapped);
    else if (mapped !== item) {
      out = {};
      for (let j = 0; j < i; j++) setOwn(out, keys[j]!, obj[keys[j]!]);
      setOwn(out, key, mapped);
    }
  }
  return out ?? obj;
}

export function decodeValue(value: WireValue): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return mapChanged(value, decodeValue);
  if (!Object.hasOwn(value, TAG)) return entriesChanged(value, decodeValue);
  const v = value.v;
  switch (value[TAG]) {
    case "undefined":
      return undefined;
    case "date":
      return new Date(typeof v === "number" ? v : Number.NaN);
    case "number":
      return Number(v);
    case "bigint":
      return BigInt(v as string);
    case "bytes":
      return new Uint8Array(Buffer.from(v as string, "base64"));
    case "buffer":
      return Buffer.from(v as string, "base64");
    case "object":
      if (isObject(v)) return entriesChanged(v, decodeValue);
  }
  throw new WireFormatError(`unknown tagged value ${JSON.stringify(value[TAG])}`);
}

/** A key of the data, even "__proto__" (which plain assignment would take as the prototype). */
function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

function safeValue(value: unknown): WireValue {
  try {
    return encodeValue(value);
  } catch {
    return String(value);
  }
}

function isObject(value: unknown): value is { [key: string]: WireValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const utf8 = new TextDecoder();

function parse(data: unknown): unknown {
  try {
    if (typeof data === "string") return JSON.parse(data);
    if (data instanceof Uint8Array) return JSON.parse(utf8.decode(data));
  } catch {
    throw new WireFormatError("not JSON");
  }
  return data;
}
