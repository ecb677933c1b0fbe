/**
 * Budgeted MIME parsing off the event loop. mailparser is synchronous in places and
 * hostile mail can make it slow, so parses run in a small pool of Bun Workers; a parse that
 * overruns its time budget has its worker terminated and replaced. The main thread only
 * copies the input across, receives the result (attachments transferred, not copied) and,
 * on failure, reads the head of the message with a bounded reader (head.ts).
 *
 * Failure reasons (ParseOutcome.reason):
 *   too_large       the input is over `maxBytes`; no worker was involved
 *   parse_timeout   the parse overran `timeoutMs`
 *   parse_error: …  mailparser threw (e.g. more than MAX_PARTS parts, a head over
 *                   MAX_HEAD_BYTES), or the worker died or failed to start
 *   parser_closed   close() was called before the parse finished, or parse() after it
 */
import type { HeaderField, ParseOutcome } from "../types.ts";
import { readHead } from "./head.ts";
import { PARSE_DEFAULTS } from "./limits.ts";
import type { WorkerReply, WorkerRequest } from "./worker.ts";

export { readHead } from "./head.ts";
export { FALLBACK_HEAD_LIMITS, MAX_HEAD_BYTES, MAX_PARTS, PARSE_DEFAULTS } from "./limits.ts";

export interface MailParserOptions {
  /** Parser threads, started on demand. Default 2. */
  workers?: number;
  /** Time budget of one parse, counted from when a worker takes it (not while queued). Default 5000. */
  timeoutMs?: number;
  /** Size budget of the input in bytes. Default 32 MiB. */
  maxBytes?: number;
}

/** A worker that has not said "ready" by then is taken for broken. */
const BOOT_TIMEOUT_MS = 15_000;
/** close() waits this long at most for terminated workers to report closed. */
const CLOSE_WAIT_MS = 2000;
const MAX_REASON = 300;

interface Job {
  id: number;
  raw: Uint8Array;
  resolve: (outcome: ParseOutcome) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | null;
  timer: ReturnType<typeof setTimeout> | null;
  closed: Promise<void>;
}

const reasonOf = (prefix: string, message: string) =>
  `${prefix}${message.replace(/[\r\n\0]+/g, " ").trim()}`.slice(0, MAX_REASON);

export class MailParser {
  readonly #workers: number;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #queue: Job[] = [];
  readonly #slots: Slot[] = [];
  #nextId = 1;
  #closed = false;

  constructor(opts: MailParserOptions = {}) {
    this.#workers = positive(opts.workers, PARSE_DEFAULTS.workers, "workers");
    this.#timeoutMs = positive(opts.timeoutMs, PARSE_DEFAULTS.timeoutMs, "timeoutMs");
    this.#maxBytes = positive(opts.maxBytes, PARSE_DEFAULTS.maxBytes, "maxBytes");
  }

  /** Resolves with the parsed message or a failure carrying the readable headers; never rejects. */
  parse(raw: Uint8Array): Promise<ParseOutcome> {
    if (this.#closed) return Promise.resolve(failure("parser_closed", raw));
    if (raw.byteLength > this.#maxBytes) return Promise.resolve(failure("too_large", raw));
    return new Promise((resolve) => {
      this.#queue.push({ id: this.#nextId++, raw, resolve });
      this.#pump();
    });
  }

  /** Terminates the workers; parses still queued or running resolve as "parser_closed". */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.resolve(failure("parser_closed", job.raw));
    const slots = this.#slots.splice(0);
    for (const slot of slots) {
      this.#settle(slot, "parser_closed");
      slot.worker.terminate();
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const gaveUp = new Promise<void>((r) => (timer = setTimeout(r, CLOSE_WAIT_MS)));
    await Promise.race([Promise.all(slots.map((s) => s.closed)), gaveUp]);
    clearTimeout(timer);
  }

  /** Hands queued jobs to idle ready workers, starting workers up to the pool size. */
  #pump(): void {
    if (this.#closed) return;
    while (this.#queue.length > 0) {
      const slot = this.#slots.find((s) => s.ready && !s.job);
      if (!slot) break;
      this.#dispatch(slot, this.#queue.shift()!);
    }
    const starting = this.#slots.filter((s) => !s.ready).length;
    while (this.#queue.length > starting && this.#slots.length < this.#workers) this.#spawn();
  }

  #dispatch(slot: Slot, job: Job): void {
    slot.job = job;
    slot.timer = setTimeout(() => this.#kill(slot, "parse_timeout"), this.#timeoutMs);
    try {
      // The caller keeps its bytes, so they are copied once. Cloning a view would copy its
      // whole underlying buffer, so a view gets a tight copy of its own, which is transferred.
      const raw = job.raw;
      if (raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength) {
        slot.worker.postMessage({ id: job.id, raw } satisfies WorkerRequest);
      } else {
        const copy = raw.slice();
        slot.worker.postMessage({ id: job.id, raw: copy } satisfies WorkerRequest, [copy.buffer]);
      }
    } catch (err) {
      this.#kill(slot, reasonOf("parse_error: ", `could not send the message to a worker: ${String(err)}`));
    }
  }

  #spawn(): void {
    const worker = new Worker(new URL("./worker.ts", import.meta.url));
    // Idle parser threads must not keep the process alive; a running parse holds its timer.
    worker.unref();
    let onClose!: () => void;
    const slot: Slot = { worker, ready: false, job: null, timer: null, closed: new Promise((r) => (onClose = r)) };
    slot.timer = setTimeout(() => this.#kill(slot, "parse_error: worker did not start"), BOOT_TIMEOUT_MS);
    this.#slots.push(slot);

    worker.addEventListener("message", (event: MessageEvent<WorkerReply>) => {
      if (!this.#slots.includes(slot)) return; // a late message from a worker already dropped
      const msg = event.data;
      if (msg.type === "ready") {
        clearTimeout(slot.timer!);
        slot.timer = null;
        slot.ready = true;
      } else if (slot.job?.id === msg.id) {
        const job = slot.job;
        clearTimeout(slot.timer!);
        slot.timer = null;
        slot.job = null;
        job.resolve(msg.ok ? { ok: true, mail: msg.mail } : failure(reasonOf("parse_error: ", msg.error), job.raw));
      }
      this.#pump();
    });
    worker.addEventListener("error", (event: ErrorEvent) => {
      this.#kill(slot, reasonOf("parse_error: worker failed: ", event.message || "unknown error"));
    });
    worker.addEventListener("messageerror", () => {
      this.#kill(slot, "parse_error: worker reply could not be read");
    });
    worker.addEventListener("close", () => {
      onClose();
      this.#kill(slot, "parse_error: worker exited");
    });
  }

  /**
   * Drops a worker, failing the job it holds. A worker that dies while starting takes the
   * oldest queued job with it, so a worker that can never start fails parses instead of
   * leaving them queued for ever, and is not respawned in a tight loop.
   */
  #kill(slot: Slot, reason: string): void {
    const at = this.#slots.indexOf(slot);
    if (at < 0) return;
    this.#slots.splice(at, 1);
    const bootFailure = !slot.ready;
    this.#settle(slot, reason);
    slot.worker.terminate();
    if (bootFailure) {
      const job = this.#queue.shift();
      job?.resolve(failure(reason, job.raw));
    }
    // Replace it at once so the pool stays warm; #pump starts one only if work is waiting.
    if (!this.#closed && !bootFailure && this.#slots.length < this.#workers) this.#spawn();
    this.#pump();
  }

  #settle(slot: Slot, reason: string): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    const job = slot.job;
    slot.job = null;
    job?.resolve(failure(reason, job.raw));
  }
}

function failure(reason: string, raw: Uint8Array): ParseOutcome {
  let headers: HeaderField[] = [];
  try {
    headers = readHead(raw);
  } catch {
    // readHead does not throw; this guards a caller handing us something that is not bytes.
  }
  return { ok: false, reason, headers };
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`MailParser: ${name} must be a positive number`);
  return name === "workers" ? Math.max(1, Math.floor(value)) : value;
}
