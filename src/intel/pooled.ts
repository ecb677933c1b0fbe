/**
 * The local engine run off the event loop: summaries, extractions and digests are CPU work
 * that grows with the text (hundreds of milliseconds for a hostile 200 KB message, more for
 * a digest of a long thread), so they run in a pool of workers (src/workers/pool.ts), each
 * call with a time budget. A call that overruns it is run once more on a bounded text (the
 * first FALLBACK_TEXT characters of each message), a result that is still right about what
 * it covers; when even that overruns, or the pool is closed, the answer is 503.
 */
import { AppError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { WorkerPool } from "../workers/pool.ts";
import type { IntelEngine } from "./engine.ts";
import { localEngine } from "./local/index.ts";
import type { LocalCall } from "./local/worker.ts";
import type { Digest, Extractions, IntelMessage, IntelThread, Summary } from "./types.ts";

/** Characters of each message's text the bounded second run reads. */
export const FALLBACK_TEXT = 20_000;

export interface PooledEngineOptions {
  workers: number;
  timeoutMs: number;
  log?: Logger;
}

export class PooledLocalEngine implements IntelEngine {
  readonly info = localEngine.info;
  readonly #pool: WorkerPool<LocalCall, unknown>;
  readonly #log: Logger | undefined;

  constructor(opts: PooledEngineOptions) {
    this.#pool = new WorkerPool({ url: new URL("./local/worker.ts", import.meta.url), workers: opts.workers, timeoutMs: opts.timeoutMs });
    this.#log = opts.log;
  }

  summarize(m: IntelMessage): Promise<Summary> {
    return this.#call({ op: "summarize", input: m }, { op: "summarize", input: bounded(m) }) as Promise<Summary>;
  }

  extract(m: IntelMessage): Promise<Extractions> {
    return this.#call({ op: "extract", input: m }, { op: "extract", input: bounded(m) }) as Promise<Extractions>;
  }

  digest(t: IntelThread): Promise<Digest> {
    return this.#call({ op: "digest", input: t }, { op: "digest", input: { ...t, messages: t.messages.map(bounded) } }) as Promise<Digest>;
  }

  /** extractText() of each message's parts (messages without extracted_text). */
  extractTexts(parts: { text: string | null; html: string | null }[]): Promise<string[]> {
    const bounded = parts.map((p) => ({ text: p.text?.slice(0, FALLBACK_TEXT) ?? null, html: p.html?.slice(0, FALLBACK_TEXT) ?? null }));
    return this.#call({ op: "texts", input: parts }, { op: "texts", input: bounded }) as Promise<string[]>;
  }

  /** Sender assessments are a few sentences from counts: no text to bound, so no worker. */
  assessSender = localEngine.assessSender;

  close(): Promise<void> {
    return this.#pool.close();
  }

  async #call(call: LocalCall, fallback: LocalCall): Promise<unknown> {
    const first = await this.#pool.run(call);
    if (first.ok) return first.value;
    if (first.kind === "timeout") {
      this.#log?.warn({ op: call.op, reason: first.message }, "local engine overran its budget; running it on a bounded text");
      const second = await this.#pool.run(fallback);
      if (second.ok) return second.value;
      if (second.kind === "failed") throw new Error(`local engine ${call.op} failed: ${second.message}`);
    } else if (first.kind === "failed") {
      throw new Error(`local engine ${call.op} failed: ${first.message}`);
    }
    throw new AppError("service_unavailable", `the local intelligence engine could not finish this ${call.op} within its budget (INTEL_LOCAL_TIMEOUT_MS)`, { op: call.op }, { "Retry-After": "60" });
  }
}

const bounded = (m: IntelMessage): IntelMessage => (m.text.length > FALLBACK_TEXT ? { ...m, text: m.text.slice(0, FALLBACK_TEXT) } : m);
