import type { Readable } from "node:stream";

export type ReadResult = { kind: "complete"; raw: Buffer } | { kind: "too-big"; bytes: number } | { kind: "aborted" };

/**
 * Collects the DATA stream into one buffer (chunks, then a single concat). Past the limit the
 * chunks are dropped instead of kept, so an oversized message costs no memory while the rest
 * of it is drained. A stream that closes without 'end' means the client went away mid-DATA.
 */
export function readMessage(stream: Readable & { sizeExceeded?: boolean }, maxBytes: number): Promise<ReadResult> {
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let bytes = 0;
    const tooBig = () => stream.sizeExceeded === true || bytes > maxBytes;
    stream.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (tooBig()) chunks = [];
      else chunks.push(chunk);
    });
    stream.once("end", () => resolve(tooBig() ? { kind: "too-big", bytes } : { kind: "complete", raw: Buffer.concat(chunks, bytes) }));
    // 'close' also follows a normal 'end'; the promise has settled by then and ignores it.
    stream.once("close", () => resolve({ kind: "aborted" }));
    stream.once("error", () => resolve({ kind: "aborted" }));
  });
}
