import { customType } from "drizzle-orm/pg-core";

/**
 * Raw bytes. postgres.js hands back a Buffer and PGlite a Uint8Array; both are Uint8Array,
 * so that is the one type the code sees. The hex text form is decoded in case a driver
 * returns it unparsed.
 */
export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array | string }>({
  dataType: () => "bytea",
  toDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)),
  fromDriver: (value) => (typeof value === "string" ? new Uint8Array(Buffer.from(value.slice(2), "hex")) : value),
});
