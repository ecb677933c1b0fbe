/**
 * Messages between the event loop and the PGlite thread (./pglite-thread.ts), and how values
 * cross. Bun's postMessage copies a large string or byte array slowly on the sending thread
 * (45-80 ms for 8 MiB, measured), while moving a buffer is free: a string of LARGE or more is
 * sent as its UTF-8 bytes and a byte array as a buffer of its own, both moved, and made back
 * on the other side. Only top-level values are looked at: a statement's parameters, a result
 * row's columns.
 *
 * A marker is an object with the key "\0w", which no value from PostgreSQL can have (jsonb
 * refuses NUL) and no parameter has (drizzle passes jsonb as text).
 */

export type RowMode = "array" | "object";

export type PgliteCall =
  | { id: number; op: "open"; dataDir: string | undefined }
  | { id: number; op: "query"; sql: string; params: unknown[]; rowMode: RowMode; drizzleParsers: boolean; tx?: number }
  | { id: number; op: "exec"; sql: string; tx?: number }
  | { id: number; op: "begin"; txId: number }
  | { id: number; op: "end"; txId: number; commit: boolean }
  | { id: number; op: "listen"; channel: string; listenId: number }
  | { id: number; op: "unlisten"; listenId: number }
  | { id: number; op: "close" };

export type PgliteReply =
  | { type: "done"; id: number; ok: true; value: unknown }
  | { type: "done"; id: number; ok: false; error: Record<string, unknown> }
  | { type: "notify"; channel: string; payload: string };

/** Values from this size cross as moved bytes. */
export const LARGE = 64 * 1024;
const MARK = "\u0000w";

type Marker = { [MARK]: "t" | "b" | "64" | "u8"; bytes: Uint8Array };

/**
 * A parameter that is the base64 text of `bytes`, made on the PGlite thread: for a statement
 * that decodes it there (`decode($1::text, 'base64')`). PGlite frames a bytea parameter as
 * hex one byte at a time (seconds for 8 MiB, holding the engine); base64 is native, and made
 * on the thread it costs the event loop only the copy of the bytes, or nothing when `move`.
 */
export class Base64Text {
  /** move: the caller hands the bytes over (their buffer is detached when sent). */
  constructor(
    readonly bytes: Uint8Array,
    readonly move = false,
  ) {}
}

/**
 * A text parameter given as its UTF-8 bytes, decoded on the PGlite thread: a large send's
 * bodies, which the composer hands back as bytes. Decoding them here and encoding them again
 * to cross cost the event loop ~36 ms for two 4 MiB bodies.
 */
export class Utf8Text {
  constructor(
    readonly bytes: Uint8Array,
    readonly move = false,
  ) {}
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * One value as it crosses: large strings and byte arrays become markers. A byte array is
 * copied into a buffer of its own (a memcpy) before it is moved: the sender's array stays
 * usable, as a parameter must.
 */
export function wireValue(value: unknown): unknown {
  if (value instanceof Base64Text) return { [MARK]: "64", bytes: handed(value) } satisfies Marker;
  if (value instanceof Utf8Text) return { [MARK]: "u8", bytes: handed(value) } satisfies Marker;
  if (typeof value === "string") return value.length >= LARGE ? ({ [MARK]: "t", bytes: encoder.encode(value) } satisfies Marker) : value;
  // new Uint8Array(x) copies; a Buffer's slice() would not.
  if (value instanceof Uint8Array && value.byteLength >= LARGE) return { [MARK]: "b", bytes: new Uint8Array(value) } satisfies Marker;
  return value;
}

/**
 * Bytes to move: the caller's own when handed over with a buffer of their own (copying 8 MiB
 * into fresh memory costs the event loop ~20 ms, mostly page faults), else a copy.
 */
const handed = ({ bytes, move }: { bytes: Uint8Array; move: boolean }): Uint8Array =>
  move && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);

/** The value a marker stands for (anything else as it is). */
export function fromWire(value: unknown): unknown {
  if (value === null || typeof value !== "object" || !(MARK in value)) return value;
  const m = value as Marker;
  if (m[MARK] === "64") return Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength).toString("base64");
  return m[MARK] === "t" || m[MARK] === "u8" ? decoder.decode(m.bytes) : m.bytes;
}

/** A query result (or exec's list of them) with its rows' large columns as markers. */
export function toWire(result: unknown): unknown {
  if (Array.isArray(result)) return result.map(toWire);
  const rows = (result as { rows?: unknown[] } | null)?.rows;
  if (!Array.isArray(rows)) return result;
  return { ...(result as object), rows: rows.map(mapRow(wireValue)) };
}

/** toWire undone. */
export function resultFromWire(result: unknown): unknown {
  if (Array.isArray(result)) return result.map(resultFromWire);
  const rows = (result as { rows?: unknown[] } | null)?.rows;
  if (!Array.isArray(rows)) return result;
  for (let i = 0; i < rows.length; i++) rows[i] = mapRow(fromWire)(rows[i]);
  return result;
}

const mapRow = (f: (v: unknown) => unknown) => (row: unknown): unknown => {
  if (Array.isArray(row)) return row.map(f);
  if (row === null || typeof row !== "object") return row;
  const out: Record<string, unknown> = {};
  for (const key in row) out[key] = f((row as Record<string, unknown>)[key]);
  return out;
};

/** The buffers of a message's markers, to move with it. */
export function transferList(message: unknown): ArrayBuffer[] {
  // A set: one buffer listed twice makes postMessage throw.
  const out = new Set<ArrayBuffer>();
  const visit = (v: unknown, depth: number) => {
    if (v === null || typeof v !== "object" || depth > 4) return;
    if (MARK in v) {
      out.add((v as Marker).bytes.buffer as ArrayBuffer);
      return;
    }
    if (Array.isArray(v)) for (const x of v) visit(x, depth + 1);
    else if (!(v instanceof Uint8Array)) for (const key in v) visit((v as Record<string, unknown>)[key], depth + 1);
  };
  visit(message, 0);
  return [...out];
}
