/**
 * The thread behind `offThreadBlobs` (src/mail/native-blobs.ts): runs the native client's
 * blob statements (`nativeBlobWriter`, src/mail/native-sql.ts) on a thread of its own, so the
 * megabytes of a large send or a large raw message are framed for and read from PostgreSQL
 * here rather than on the event loop. A read's bytes go back moved.
 */
import { serveWorker } from "../workers/serve.ts";
import type { BlobItem } from "./blobs.ts";
import { nativeBlobWriter, type AnswerRef, type NativeBlobs } from "./native-sql.ts";

export type BlobCall =
  | { op: "write"; url: string; items: BlobItem[] }
  | { op: "read"; url: string; sha256: string }
  | { op: "stage"; url: string; texts: Uint8Array[] }
  | { op: "writeAnswer"; url: string; claim: AnswerRef & { claimedAt: string }; status: number; key: Uint8Array; parts: Uint8Array[] }
  | { op: "readAnswer"; url: string; ref: AnswerRef; key: Uint8Array };
export type BlobAnswer = { bytes?: Uint8Array | null; ids?: string[]; ok?: boolean };

/** One connection per thread: the pool has as many threads as the event loop had connections. */
const clients = new Map<string, NativeBlobs>();
const client = (url: string) => {
  let c = clients.get(url);
  if (!c) clients.set(url, (c = nativeBlobWriter(url, 1)));
  return c;
};
const own = (b: Uint8Array) => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : b.slice());

serveWorker<BlobCall, BlobAnswer>(
  async (call) => {
    if (call.op === "write") {
      await client(call.url).write(call.items);
      return {};
    }
    if (call.op === "stage") return { ids: await client(call.url).stageTexts(call.texts) };
    if (call.op === "writeAnswer") return { ok: await client(call.url).writeAnswer(call.claim, call.status, call.key, call.parts) };
    const bytes = call.op === "readAnswer" ? await client(call.url).readAnswer(call.ref, call.key) : await client(call.url).read(call.sha256);
    return { bytes: bytes ? own(bytes) : null };
  },
  (answer) => (answer.bytes ? [answer.bytes.buffer as ArrayBuffer] : []),
);
