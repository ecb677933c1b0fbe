import { AppError } from "../errors.ts";
import { WorkerPool } from "../workers/pool.ts";
import { BodyRefusal, fromWire, parseJsonObject, type DetachedTexts, type ParseWire } from "./json-parse.ts";

/** What the JSON worker is asked: the bytes, and the route's body schema (schema-wire.ts) to check them against. */
export type JsonRequest = { bytes: Uint8Array; schema?: string; /** Top-level string fields to hand back as bytes when large (detachTexts). */ texts?: readonly string[] };

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
 * string, tens of thousands of keys), so bodies past `inlineMaxBytes` are parsed in a worker.
 * Given its route's schema, the worker checks the body too: a refused body never comes back
 * (only its refusal), and an accepted one is not walked again on the event loop (`checked`).
 */
export class JsonIntake {
  readonly #pool: WorkerPool<JsonRequest, ParseWire>;
  readonly #inlineMaxBytes: number;
  readonly #checked = new WeakSet<object>();
  readonly #texts = new WeakMap<object, DetachedTexts>();

  constructor(opts: JsonIntakeOptions) {
    this.#pool = new WorkerPool({ url: new URL("./json-worker.ts", import.meta.url), workers: opts.workers, timeoutMs: opts.timeoutMs });
    this.#inlineMaxBytes = opts.inlineMaxBytes ?? 64 * 1024;
  }

  /** `schema` is the route's body schema in wire form (schema-wire.ts); without it only the parse happens off the loop. */
  async parse(bytes: Uint8Array, schema?: string, texts?: readonly string[]): Promise<object | null | BodyRefusal> {
    if (bytes.byteLength <= this.#inlineMaxBytes) return parseJsonObject(bytes);
    // Move the bytes to the worker when they own their buffer; a view into a shared one is copied.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    const request: JsonRequest = schema === undefined ? { bytes: own } : { bytes: own, schema, ...(texts && texts.length > 0 ? { texts } : {}) };
    const outcome = await this.#pool.run(request, [own.buffer as ArrayBuffer]);
    if (outcome.ok) {
      const parsed = fromWire(outcome.value);
      if (outcome.value.kind === "value" && outcome.value.checked && parsed !== null && !(parsed instanceof BodyRefusal)) {
        this.#checked.add(parsed);
        if (outcome.value.texts) this.#texts.set(parsed, outcome.value.texts);
      }
      return parsed;
    }
    // Nothing was applied: the request never reached its handler.
    return new BodyRefusal(new AppError("service_unavailable", "the request body could not be read in time; retry", { applied: false }, { "Retry-After": "1" }));
  }

  /** Whether `body` came from parse() already checked against the schema it was given. */
  checked(body: unknown): boolean {
    return typeof body === "object" && body !== null && this.#checked.has(body);
  }

  /** The large fields parse() took out of `body` as UTF-8 bytes, if any. */
  texts(body: unknown): DetachedTexts | undefined {
    return typeof body === "object" && body !== null ? this.#texts.get(body) : undefined;
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}
