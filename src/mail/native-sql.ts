/**
 * Bun's own PostgreSQL client for large values (src/mail/blobs.ts explains why). Apart from
 * blobs.ts so that the thread running these statements (blob-thread.ts) loads nothing else.
 */
import { sealPartsSync, unsealRawSync } from "../crypto/seal.ts";
import type { BlobItem, WriteBlobs } from "./blobs.ts";

/** Large values moved between the service and PostgreSQL without passing through postgres.js. */
export interface NativeBlobs {
  write: WriteBlobs;
  /** A blob's bytes, received as binary (no base64 or hex decoding on the event loop). */
  read(sha256: string): Promise<Uint8Array | undefined>;
  /**
   * Writes UTF-8 texts to `body_stage` (migration 0012) and answers their ids, so that a
   * transaction on the main client can copy them into text columns inside the database
   * (`stagedText`), instead of sending megabytes as text parameters.
   */
  stageTexts(texts: Uint8Array[]): Promise<string[]>;
  /**
   * Records a large idempotent answer (src/http/idempotency.ts): seals its bytes, given in
   * parts, with `key` (AES-256-GCM, iv ‖ ciphertext ‖ tag) and stores them, if the claim is
   * still the caller's (`claimedAt` unchanged); answers whether it was.
   */
  writeAnswer(claim: AnswerRef & { claimedAt: string }, status: number, key: Uint8Array, parts: Uint8Array[]): Promise<boolean>;
  /** The bytes of a large idempotent answer, unsealed with `key`, if the key has one; throws when they do not open. */
  readAnswer(ref: AnswerRef, key: Uint8Array): Promise<Uint8Array | undefined>;
  close(): Promise<void>;
}

/** An idempotency record: its scope and key digest. */
export type AnswerRef = { scope: string; keyDigest: string };

/**
 * Blob writes and reads on PostgreSQL through Bun's own client, on connections of their own:
 * it sends a Buffer parameter as binary bytea and reads bytea as a Buffer natively, where
 * postgres.js can only send text (and spends several milliseconds of event-loop time per
 * 100 KiB writing it, tens per MiB reading it back). Only plain statements go this way;
 * everything transactional stays on the main client.
 */
export function nativeBlobWriter(databaseUrl: string, connections = 2): NativeBlobs {
  // Commits here do not wait for the WAL flush: a blob or a staged text is only ever used by a
  // transaction that commits after it on the main client, synchronously, and flushing the WAL
  // up to that commit flushes this write, which precedes it. Lost in a crash before then, it
  // was never referenced: the message that needed it got no 250. That saves an fsync wait
  // (milliseconds) in every acceptance. The one write that must stand on its own, an
  // idempotent answer, asks for a synchronous commit itself (writeAnswer).
  const client = new Bun.SQL(databaseUrl, { max: connections, connectionTimeout: 10, connection: { synchronous_commit: "off" } });
  const buffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  return {
    write: async (items) => {
      const seen = new Set<string>();
      const rows = items
        .filter((i) => !seen.has(i.sha256) && seen.add(i.sha256))
        .map((i) => ({ sha256: i.sha256, size: i.bytes.byteLength, bytes: buffer(i.bytes) }));
      if (rows.length > 0) await client`insert into blobs ${client(rows, "sha256", "size", "bytes")} on conflict (sha256) do nothing`;
    },
    read: async (sha256) => {
      const [row] = (await client`select bytes from blobs where sha256 = ${sha256} limit 1`) as { bytes: Uint8Array }[];
      return row?.bytes;
    },
    stageTexts: async (texts) => {
      if (texts.length === 0) return [];
      const rows = texts.map((t) => ({ id: crypto.randomUUID(), bytes: buffer(t) }));
      await client`insert into body_stage ${client(rows, "id", "bytes")}`;
      return rows.map((r) => r.id);
    },
    writeAnswer: async (claim, status, key, parts) => {
      const sealed = sealPartsSync(key, parts);
      const rows = await client`
        update idempotency_keys set state = 'done', status_code = ${status}, response_body = null, response_sealed = ${buffer(sealed)}
        where scope = ${claim.scope} and key_digest = ${claim.keyDigest} and claimed_at = ${claim.claimedAt}::timestamptz
          and set_config('synchronous_commit', 'on', true) is not null
        returning 1 as ok`;
      return rows.length > 0;
    },
    readAnswer: async (ref, key) => {
      const [row] = (await client`select response_sealed from idempotency_keys where scope = ${ref.scope} and key_digest = ${ref.keyDigest} limit 1`) as { response_sealed: Uint8Array | null }[];
      return row?.response_sealed ? unsealRawSync(key, row.response_sealed) : undefined;
    },
    close: () => client.close({ timeout: 5 }),
  };
}
