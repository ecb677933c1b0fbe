import { is, sql, type SQL } from "drizzle-orm";
import { PgliteSession } from "drizzle-orm/pglite";
import type { Db, Tx } from "./client.ts";
import { Base64Text, Utf8Text } from "./pglite-wire.ts";

/*
 * Bytes cross to the database as base64 text, decoded there (`decode(…, 'base64')`), and come
 * back the same way (`encode`). Both drivers would otherwise spell bytea in hex: postgres.js
 * sends every parameter as text (twice the size), and PGlite builds its hex string one byte at
 * a time in JavaScript (an 8 MiB value held its engine 3.8 s, every other statement waiting).
 * Base64 is a third larger than the bytes and encoded and decoded natively on both ends.
 *
 * On PGlite the base64 is made on PGlite's thread (./pglite-wire.ts `Base64Text`): made here,
 * it took the event loop ~28 ms to encode and ~15 ms more to move for an 8 MiB raw message.
 */

/**
 * A bytea value for a statement: `bytes` as base64, decoded by the database. `move`: the
 * caller hands the bytes over and does not use them again (on PGlite they are moved to its
 * thread rather than copied).
 */
export const byteaParam = (db: Db | Tx, bytes: Uint8Array, move = false): SQL => sql`decode(${base64Param(db, bytes, move)}::text, 'base64')`;

/** A text value for a statement given as its UTF-8 bytes: on PGlite decoded on its thread. `move` as for byteaParam. */
export const textFromUtf8 = (db: Db | Tx, bytes: Uint8Array, move = false): SQL =>
  onPglite(db) ? sql`${new Utf8Text(bytes, move)}::text` : sql`${utf8.decode(bytes)}::text`;

export const fromBase64 = (text: string): Uint8Array => {
  const buf = Buffer.from(text, "base64");
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
};

const utf8 = new TextDecoder();
const base64Param = (db: Db | Tx, bytes: Uint8Array, move: boolean): string | Base64Text =>
  onPglite(db) ? new Base64Text(bytes, move) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
const onPglite = (db: Db | Tx): boolean => is((db as unknown as { session: unknown }).session, PgliteSession);
