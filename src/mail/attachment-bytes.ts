import type { Db } from "../../db/client.ts";
import type { AttachmentRow } from "../../db/schema/index.ts";
import { AppError } from "../errors.ts";
import { getBlob, getBlobRange } from "./blobs.ts";
import { decodeBody } from "./parse/body-ranges.ts";

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
  return decodeBody(body, file.transferEncoding);
}
