import type { Readable } from "node:stream";

export type ReadResult = { kind: "complete"; raw: Buffer } | { kind: "too-big"; bytes: number } | { kind: "aborted" } | { kind: "cut" };

/**
 * Collects the DATA stream into one buffer (chunks, then a single copy into shared memory). Past the limit the
 * chunks are dropped instead of kept, so an oversized message costs no memory while the rest
 * of it is drained. A stream that closes without 'end' means the client went away mid-DATA;
 * `cut` aborting means a session limit ended the DATA (see SessionGuard). Either way the
 * partial message is dropped.
 *
 * The message lands in a SharedArrayBuffer: processing hands the same bytes to the parser's
 * and the authentication worker, and shared memory crosses to a thread without being copied
 * (a 158 KiB message was cloned twice on the event loop and twice more in the workers). Nothing
 * writes to a message's bytes once read, so sharing them is safe.
 */
export function readMessage(stream: Readable & { sizeExceeded?: boolean }, maxBytes: number, cut?: AbortSignal): Promise<ReadResult> {
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let bytes = 0;
    const tooBig = () => stream.sizeExceeded === true || bytes > maxBytes;
    stream.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (tooBig() || cut?.aborted) chunks = [];
      else chunks.push(chunk);
    });
    // The first of these to fire settles the promise; 'close' also follows a normal 'end'.
    stream.once("end", () => resolve(tooBig() ? { kind: "too-big", bytes } : { kind: "complete", raw: sharedConcat(chunks, bytes) }));
    stream.once("close", () => resolve({ kind: "aborted" }));
    stream.once("error", () => resolve({ kind: "aborted" }));
    if (cut?.aborted) resolve({ kind: "cut" });
    cut?.addEventListener(
      "abort",
      () => {
        chunks = [];
        resolve({ kind: "cut" });
      },
      { once: true },
    );
  });
}

/** The chunks in one Buffer over a SharedArrayBuffer of exactly `bytes`. */
function sharedConcat(chunks: Buffer[], bytes: number): Buffer {
  const out = Buffer.from(new SharedArrayBuffer(bytes));
  let at = 0;
  for (const c of chunks) at += c.copy(out, at);
  return out;
}
