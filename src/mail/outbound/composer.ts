/**
 * Outgoing messages composed off the event loop. Building the MIME of a large send (two
 * 4 MiB bodies encoded as quoted-printable, then CRLF-normalised) costs hundreds of
 * milliseconds of CPU, so it runs in a pool of workers (src/workers/pool.ts) with a time
 * budget; the bodies cross as strings (shared, not re-encoded) and the built bytes come back
 * transferred. A composition that cannot finish is a 503 with nothing written: composition
 * comes before the send's transaction.
 */
import { AppError } from "../../errors.ts";
import { WorkerPool } from "../../workers/pool.ts";
import type { Composition } from "./compose.ts";

export interface ComposerOptions {
  /** Composer threads, started on demand. */
  workers?: number;
  /** Budget of one composition; bodies are bounded by the JSON body limit, so only an overloaded node runs past it. */
  timeoutMs?: number;
}

/** What a composer thread answers: the message, and the thread that built it (0 would be the main thread). */
export type Composed = { raw: Uint8Array; threadId: number };

export class Composer {
  readonly #pool: WorkerPool<Composition, Composed>;

  constructor(opts: ComposerOptions = {}) {
    this.#pool = new WorkerPool({ url: new URL("./compose-worker.ts", import.meta.url), workers: opts.workers ?? 1, timeoutMs: opts.timeoutMs ?? 30_000 });
  }

  /** The RFC 5322 message of a send (compose.ts), built in a worker. */
  async compose(c: Composition): Promise<Composed> {
    const outcome = await this.#pool.run(c);
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
