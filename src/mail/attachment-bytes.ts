import type { Db } from "../../db/client.ts";
import type { AttachmentRow } from "../../db/schema/index.ts";
import { AppError } from "../errors.ts";
import { getBlob, getBlobRange } from "./blobs.ts";
import { WorkerPool } from "../workers/pool.ts";
import { cleanBase64, decodeBody, type TransferEncoding } from "./parse/body-ranges.ts";

/** Bodies from this size whose decoding is not native go to a worker. */
const OFF_THREAD_FROM = 128 * 1024;
/** Linear work: far past any real body's time. A worker that fails is worked around here. */
const DECODE_BUDGET_MS = 20_000;

/** Stateless and unref'd (its threads never hold the process), so one serves every service. */
let pool: WorkerPool<{ body: Uint8Array; encoding: TransferEncoding }, Uint8Array> | undefined;

/**
 * An attachment's bytes: its own blob, or its encoded body read from the message's raw bytes
 * and decoded as processing proved it decodes (src/mail/parse/convert.ts). Either way the
 * bytes are the ones the parser reported.
 */
export async function attachmentBytes(db: Db, rawSha256: string, file: AttachmentRow): Promise<Uint8Array> {
  if (file.sha256) {
    const bytes = await getBlob(db, file.sha256);
    // The foreign key keeps the blob as long as an attachment names it.
    if (!bytes) throw new AppError("internal_error", `blob ${file.sha256} is missing`);
    return bytes;
  }
  if (file.rawOffset === null || file.rawLength === null || !file.transferEncoding) {
    throw new AppError("internal_error", `attachment ${file.id} has neither a blob nor a range`);
  }
  const body = await getBlobRange(db, rawSha256, file.rawOffset, file.rawLength);
  if (!body || body.byteLength !== file.rawLength) throw new AppError("internal_error", `the raw message ${rawSha256} does not hold attachment ${file.id}`);
  return decodeAttachmentBody(body, file.transferEncoding);
}

/** `decodeBody`, off the event loop for large bodies whose decoding is not native. */
export async function decodeAttachmentBody(body: Uint8Array, encoding: TransferEncoding): Promise<Uint8Array> {
  if (encoding === "identity" || body.byteLength < OFF_THREAD_FROM) return decodeBody(body, encoding);
  if (encoding === "base64") {
    const clean = cleanBase64(body); // native
    if (clean !== null) return clean;
  }
  pool ??= new WorkerPool({ url: new URL("./parse/decode-worker.ts", import.meta.url), workers: 1, timeoutMs: DECODE_BUDGET_MS });
  // Copied, not moved (a memcpy): should the worker fail to answer, the body is still here.
  const outcome = await pool.run({ body, encoding });
  return outcome.ok ? outcome.value : decodeBody(body, encoding);
}
