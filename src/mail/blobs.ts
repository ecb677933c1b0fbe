import { sql } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { byteaParam, fromBase64 } from "../../db/large-values.ts";

export const sha256Hex = (bytes: Uint8Array): string => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

// Bytes cross as base64 both ways (db/large-values.ts says why).

/** Stores bytes under their SHA-256 (a no-op when already stored) and returns the key. */
export async function putBlob(db: Db | Tx, bytes: Uint8Array): Promise<string> {
  const sha256 = sha256Hex(bytes);
  await putBlobs(db, [{ sha256, bytes }]);
  return sha256;
}

/** Several blobs in one statement (keys already computed); duplicates are fine. `move`: the bytes are handed over (db/large-values.ts). */
export async function putBlobs(db: Db | Tx, items: BlobItem[], opts: { move?: boolean } = {}): Promise<void> {
  const seen = new Set<string>();
  const rows = items.filter((i) => !seen.has(i.sha256) && seen.add(i.sha256));
  if (rows.length === 0) return;
  const values = sql.join(
    rows.map((r) => sql`(${r.sha256}, ${r.bytes.byteLength}::int, ${byteaParam(db, r.bytes, opts.move)})`),
    sql`, `,
  );
  await db.execute(sql`insert into blobs (sha256, size, bytes) values ${values} on conflict (sha256) do nothing`);
}

export async function getBlob(db: Db, sha256: string): Promise<Uint8Array | undefined> {
  const rows = await rowsOf<{ b: string }>(db.execute(sql`select encode(bytes, 'base64') as b from blobs where sha256 = ${sha256} limit 1`));
  return rows[0] ? fromBase64(rows[0].b) : undefined;
}

/** Whether a blob is stored, without reading its bytes. */
export async function hasBlob(db: Db, sha256: string): Promise<boolean> {
  const rows = await rowsOf<{ one: number }>(db.execute(sql`select 1 as one from blobs where sha256 = ${sha256} limit 1`));
  return rows.length > 0;
}

/**
 * `length` bytes of a blob from `offset` (0-based). The blobs' bytes are stored uncompressed
 * (migration 0008), so the database reads only the chunks that hold the range.
 */
export async function getBlobRange(db: Db, sha256: string, offset: number, length: number): Promise<Uint8Array | undefined> {
  const rows = await rowsOf<{ b: string | null }>(
    db.execute(sql`select encode(substring(bytes from ${offset + 1}::int for ${length}::int), 'base64') as b from blobs where sha256 = ${sha256} limit 1`),
  );
  return rows[0] && rows[0].b !== null ? fromBase64(rows[0].b) : undefined;
}

/** postgres.js answers execute() with the rows, PGlite with `{ rows }`. */
async function rowsOf<T>(result: Promise<unknown>): Promise<T[]> {
  const r = (await result) as T[] | { rows: T[] };
  return Array.isArray(r) ? r : r.rows;
}

export type BlobItem = { sha256: string; bytes: Uint8Array };
/** Writes blobs durably (duplicates are no-ops); resolves once committed. */
export type WriteBlobs = (items: BlobItem[]) => Promise<void>;

export { nativeBlobWriter, type NativeBlobs } from "./native-sql.ts";

/** The text staged under `id` (NativeBlobs.stageTexts), as a value for an insert on the main client. */
export const stagedText = (id: string) => sql<string>`(select convert_from(bytes, 'UTF8') from body_stage where id = ${id}::uuid)`;

/** Removes staged texts once copied (in the copying transaction), and any a crash left behind. */
export async function dropStagedTexts(db: Db | Tx, ids: string[]): Promise<void> {
  await db.execute(sql`delete from body_stage where id in (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)}) or created_at < now() - interval '1 day'`);
}

/**
 * Stores the raw bytes of arriving messages with a group commit: puts that arrive while a
 * write is in flight are written together by the next one (one statement, one commit), so a
 * burst costs a commit per batch, not per message. A put resolves once its bytes are durable.
 */
export class BlobWriter {
  private queue: (BlobItem & { done: (err?: unknown) => void })[] = [];
  private inFlight = 0;

  /**
   * `parallel` writes may be in flight at once (PGlite has one connection: 1); a batch holds
   * at most `maxBatchBytes` (one message over it goes alone).
   */
  constructor(
    private readonly write: WriteBlobs,
    private readonly parallel = 2,
    private readonly maxBatchBytes = 4 * 1024 * 1024,
  ) {}

  put(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    return new Promise((resolve, reject) => {
      this.queue.push({ sha256, bytes, done: (err) => (err ? reject(err) : resolve(sha256)) });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.parallel && this.queue.length > 0) {
      let bytes = 0;
      let n = 0;
      while (n < this.queue.length && (n === 0 || bytes + this.queue[n]!.bytes.byteLength <= this.maxBatchBytes)) bytes += this.queue[n++]!.bytes.byteLength;
      const batch = this.queue.splice(0, n);
      this.inFlight++;
      this.write(batch).then(
        () => this.settle(batch),
        (err) => this.settle(batch, err ?? new Error("blob write failed")),
      );
    }
  }

  private settle(batch: { done: (err?: unknown) => void }[], err?: unknown): void {
    this.inFlight--;
    for (const item of batch) item.done(err);
    this.pump();
  }
}
