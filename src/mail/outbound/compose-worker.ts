/**
 * One composer thread of the pool in composer.ts: builds the MIME message (quoted-printable
 * or base64 bodies, folded headers, CRLF) and hands the bytes back, moved rather than copied.
 */
import { threadId } from "node:worker_threads";
import { serveWorker } from "../../workers/serve.ts";
import { compose, type Composition } from "./compose.ts";
import type { Composed } from "./composer.ts";

serveWorker<Composition, Composed>(
  async (c) => {
    const built = await compose(c);
    // A buffer of its own, so it can be transferred (small Buffers share a pool).
    const raw = built.byteOffset === 0 && built.byteLength === built.buffer.byteLength ? built : built.slice();
    return { raw, threadId };
  },
  ({ raw }) => [raw.buffer as ArrayBuffer],
);
