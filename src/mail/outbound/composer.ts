/**
 * Outgoing messages composed off the event loop. Building the MIME of a large send (two
 * 4 MiB bodies encoded as quoted-printable, then CRLF-normalised) costs hundreds of
 * milliseconds of CPU, so it runs in a pool of workers (src/workers/pool.ts) with a time
 * budget. The bodies cross as UTF-8 bytes, moved both ways: a structured clone of two 4 MiB
 * strings held the event loop ~50 ms, encoding them is a few. A composition that cannot finish
 * is a 503 with nothing written: composition comes before the send's transaction.
 */
import { AppError } from "../../errors.ts";
import { WorkerPool } from "../../workers/pool.ts";
import type { BodyText } from "../../domain/body-text.ts";
import type { Composition } from "./compose.ts";

export interface ComposerOptions {
  /** Composer threads, started on demand. */
  workers?: number;
  /** Budget of one composition; bodies are bounded by the JSON body limit, so only an overloaded node runs past it. */
  timeoutMs?: number;
}

/** What crosses to a composer thread: the composition without its bodies, and the bodies as UTF-8. */
export type ComposeRequest = { composition: Omit<Composition, "textBody" | "htmlBody">; textBody: Uint8Array | null; htmlBody: Uint8Array | null };

/**
 * What a composer thread answers: the message and its SHA-256, the bodies as UTF-8 (the bytes
 * sent over, handed back) and as JSON text (a JSON string literal each), and the thread that
 * built it (0 would be the main thread).
 */
export type Composed = {
  raw: Uint8Array;
  sha256: string;
  threadId: number;
  bodies: { text: Uint8Array | null; html: Uint8Array | null };
  bodiesJson: { text: Uint8Array | null; html: Uint8Array | null };
};

/** A buffer of its own, so it can be transferred (small Buffers share a pool). */
export const ownBuffer = (b: Uint8Array): Uint8Array => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : b.slice());

/** Bodies given as bytes are moved to the composer thread: the caller must not use them again. */
const utf8 = (body: BodyText | null) => (body === null ? null : typeof body === "string" ? ownBuffer(Buffer.from(body, "utf8")) : ownBuffer(body));

export class Composer {
  readonly #pool: WorkerPool<ComposeRequest, Composed>;

  constructor(opts: ComposerOptions = {}) {
    this.#pool = new WorkerPool({ url: new URL("./compose-worker.ts", import.meta.url), workers: opts.workers ?? 1, timeoutMs: opts.timeoutMs ?? 30_000 });
  }

  /** The RFC 5322 message of a send (compose.ts), built in a worker. */
  async compose(c: Omit<Composition, "textBody" | "htmlBody"> & { textBody: BodyText | null; htmlBody: BodyText | null }): Promise<Composed> {
    const { textBody, htmlBody, ...composition } = c;
    const request: ComposeRequest = { composition, textBody: utf8(textBody), htmlBody: utf8(htmlBody) };
    const transfer = [request.textBody, request.htmlBody].filter((b) => b !== null).map((b) => b.buffer as ArrayBuffer);
    const outcome = await this.#pool.run(request, transfer);
    if (outcome.ok) return outcome.value;
    throw new AppError(
      "service_unavailable",
      outcome.kind === "closed" ? "the service is shutting down; the message was not sent, retry shortly" : "the message could not be composed in time; it was not sent, retry later",
      { applied: false },
      { "Retry-After": outcome.kind === "closed" ? "2" : "5" },
    );
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
