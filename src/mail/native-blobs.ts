/**
 * The native client's blob statements (src/mail/blobs.ts) run on worker threads. On the event
 * loop, Bun's client spent ~100 ms of the thread's CPU framing a large send's raw message and
 * bodies (two 4 MiB bodies, ~16 MiB in all) in one stretch, past issue 13's 50 ms; here the
 * event loop only posts the buffers. Buffers passed with `move` are transferred (the caller
 * must not use them again); others are copied, which is a memcpy.
 */
import { AppError } from "../errors.ts";
import { WorkerPool } from "../workers/pool.ts";
import type { BlobAnswer, BlobCall } from "./blob-thread.ts";
import type { BlobItem, NativeBlobs } from "./blobs.ts";

/** A statement is bounded by the database, not by us: this only frees a thread that hangs. */
const CALL_BUDGET_MS = 60_000;

export interface OffThreadBlobs extends NativeBlobs {
  write(items: BlobItem[], opts?: { move?: boolean }): Promise<void>;
  stageTexts(texts: Uint8Array[], opts?: { move?: boolean }): Promise<string[]>;
}

/** A buffer of its own, so it can be moved (a view into a shared one is copied first). */
const own = (b: Uint8Array) => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : b.slice());

export function offThreadBlobs(databaseUrl: string, threads = 2): OffThreadBlobs {
  const pool = new WorkerPool<BlobCall, BlobAnswer>({ url: new URL("./blob-thread.ts", import.meta.url), workers: threads, timeoutMs: CALL_BUDGET_MS });
  const run = async (call: BlobCall, transfer: Uint8Array[]): Promise<BlobAnswer> => {
    const outcome = await pool.run(call, transfer.map((b) => b.buffer as ArrayBuffer));
    if (outcome.ok) return outcome.value;
    // The statement's own failure (a database error) is a fault, as it was on the event loop;
    // a thread that could not answer leaves nothing referenced (blobs are content-addressed,
    // staged texts are dropped after a day), so whoever asked may retry.
    if (outcome.kind === "failed") throw new Error(`blob statement failed: ${outcome.message}`);
    throw new AppError("service_unavailable", "the database could not be written in time; nothing was applied, retry shortly", { applied: false }, { "Retry-After": "2" });
  };
  return {
    write: async (items, opts = {}) => {
      if (items.length === 0) return;
      // Only the key and the bytes cross: a caller's item may carry more (a callback, say).
      const moved = items.map((i) => ({ sha256: i.sha256, bytes: opts.move ? own(i.bytes) : i.bytes }));
      await run({ op: "write", url: databaseUrl, items: moved }, opts.move ? moved.map((i) => i.bytes) : []);
    },
    read: async (sha256) => (await run({ op: "read", url: databaseUrl, sha256 }, [])).bytes ?? undefined,
    stageTexts: async (texts, opts = {}) => {
      if (texts.length === 0) return [];
      const moved = opts.move ? texts.map(own) : texts;
      return (await run({ op: "stage", url: databaseUrl, texts: moved }, opts.move ? moved : [])).ids ?? [];
    },
    // The parts are joined into a buffer of our own and moved, then sealed on the thread. Bun's
    // postMessage copies a buffer slowly (45-80 ms of the event loop for 8 MiB, measured), a
    // join is a memcpy (under 1 ms), and moving costs nothing.
    writeAnswer: async (claim, status, key, parts) => {
      const whole = own(Buffer.concat(parts));
      return (await run({ op: "writeAnswer", url: databaseUrl, claim, status, key, parts: [whole] }, [whole])).ok === true;
    },
    readAnswer: async (ref, key) => (await run({ op: "readAnswer", url: databaseUrl, ref, key }, [])).bytes ?? undefined,
    close: () => pool.close(),
  };
}
