import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { blobs } from "../../db/schema/index.ts";

export const sha256Hex = (bytes: Uint8Array): string => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

/** Stores bytes under their SHA-256 (a no-op when already stored) and returns the key. */
export async function putBlob(db: Db | Tx, bytes: Uint8Array): Promise<string> {
  const sha256 = sha256Hex(bytes);
  await db.insert(blobs).values({ sha256, size: bytes.byteLength, bytes }).onConflictDoNothing();
  return sha256;
}

export async function getBlob(db: Db, sha256: string): Promise<Uint8Array | undefined> {
  const [row] = await db.select({ bytes: blobs.bytes }).from(blobs).where(eq(blobs.sha256, sha256)).limit(1);
  return row?.bytes;
}
