import { AppError } from "../errors.ts";
import { WorkerPool } from "../workers/pool.ts";
import { BodyRefusal, fromWire, parseJsonObject, type ParseWire } from "./json-parse.ts";

export interface JsonIntakeOptions {
  workers: number;
  /** Budget of one parse in a worker; a body is at most 10 MiB, so only an overloaded node runs past it. */
  timeoutMs: number;
  /** Bodies up to this size are parsed on the event loop: a worker round trip costs more than they do. */
  inlineMaxBytes?: number;
}

/**
 * Parses JSON request bodies. Decoding, the bounds scan and JSON.parse are linear, but on a
 * body of megabytes they hold the event loop for a hundred milliseconds and more (a 10 MiB
 * string, tens of thousands of keys), so bodies past `inlineMaxBytes` are parsed in a worker
 * and only the resulting object is copied back.
 */
export class JsonIntake {
  readonly #pool: WorkerPool<Uint8Array, ParseWire>;
  readonly #inlineMaxBytes: number;

  constructor(opts: JsonIntakeOptions) {
    this.#pool = new WorkerPool({ url: new URL("./json-worker.ts", import.meta.url), workers: opts.workers, timeoutMs: opts.timeoutMs });
    this.#inlineMaxBytes = opts.inlineMaxBytes ?? 64 * 1024;
  }

  async parse(bytes: Uint8Array): Promise<object | null | BodyRefusal> {
    if (bytes.byteLength <= this.#inlineMaxBytes) return parseJsonObject(bytes);
    // Move the bytes to the worker when they own their buffer; a view into a shared one is copied.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    const outcome = await this.#pool.run(own, [own.buffer as ArrayBuffer]);
    if (outcome.ok) return fromWire(outcome.value);
    // Nothing was applied: the request never reached its handler.
    return new BodyRefusal(new AppError("service_unavailable", "the request body could not be read in time; retry", { applied: false }, { "Retry-After": "1" }));
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
