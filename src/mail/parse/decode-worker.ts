/**
 * One thread of the attachment decoder (../attachment-bytes.ts): an encoded body in, its bytes
 * out. Unclean base64 takes regular expressions and string passes (tens of milliseconds per
 * megabyte) and quoted-printable a loop over bytes (a few per megabyte): from the sizes sent
 * here, too long for the event loop.
 */
import { serveWorker } from "../../workers/serve.ts";
import { decodeBody, type TransferEncoding } from "./body-ranges.ts";

serveWorker<{ body: Uint8Array; encoding: TransferEncoding }, Uint8Array>(
  ({ body, encoding }) => {
    const out = decodeBody(body, encoding);
    // Only a buffer of its own may be moved (a small Buffer can sit in a shared slab).
    return out.byteOffset === 0 && out.byteLength === out.buffer.byteLength ? out : out.slice();
  },
  (out) => [out.buffer as ArrayBuffer],
);
