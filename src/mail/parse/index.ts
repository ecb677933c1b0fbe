/**
 * Budgeted MIME parsing off the event loop. mailparser is synchronous in places and
 * hostile mail can make it slow, so parses run in a small pool of Bun Workers
 * (src/workers/pool.ts); a parse that overruns its time budget has its worker terminated and
 * replaced. The main thread only copies the input across, receives the result (attachments
 * transferred, not copied) and, on failure, reads the head of the message with a bounded
 * reader (head.ts).
 *
 * Failure reasons (ParseOutcome.reason):
 *   too_large       the input is over `maxBytes`; no worker was involved
 *   parse_timeout   the parse overran `timeoutMs`
 *   parse_error: …  mailparser threw (e.g. more than MAX_PARTS parts, a head over
 *                   MAX_HEAD_BYTES), or the worker died or failed to start
 *   parser_closed   close() was called before the parse finished, or parse() after it
 */
import { WorkerPool } from "../../workers/pool.ts";
import type { ContentVerdict } from "../assess/content.ts";
import type { LearnedWord, TextVectorPieces } from "../text-vector-pieces.ts";
import type { Envelope, HeaderField, ParsedMail, ParseOutcome } from "../types.ts";
import { readHead } from "./head.ts";
import { PARSE_DEFAULTS, PARSE_SPARE } from "./limits.ts";

export { readHead } from "./head.ts";
export { FALLBACK_HEAD_LIMITS, MAX_HEAD_BYTES, MAX_PARTS, PARSE_DEFAULTS } from "./limits.ts";

export interface MailParserOptions {
  /** Parser threads, started on demand. Default 2. One spare beyond them takes mail stuck behind slow mail (PARSE_SPARE). */
  workers?: number;
  /** Time budget of one parse, counted from when a worker takes it (not while queued). Default 5000. */
  timeoutMs?: number;
  /** Size budget of the input in bytes. Default 32 MiB. */
  maxBytes?: number;
}

const MAX_REASON = 300;

/** What the content assessment needs besides the message (src/mail/assess/content.ts). */
export type AssessFacts = { envelope: Envelope; mailDomain: string };

/**
 * What the full-text vector needs of a worker (SEARCH_VECTOR): the pieces of the indexed text
 * (src/mail/text-vector-pieces.ts) when it has at least `fromChars` characters, made with the
 * words it has learned, and those it learns now (learned whatever the text's length).
 */
export type VectorRequest = { numbersPlain: boolean; fromChars?: number; learned?: LearnedWord[] };

/** What a worker is asked: the bytes, whether to make the content verdict too, and whether to make the vector's pieces (`textPieces`). */
export type ParseRequest = { raw: Uint8Array; assess?: AssessFacts; vector?: VectorRequest };

/** What a worker answers for one message; `content` when the request asked for it. */
export type Parsed = { mail: ParsedMail; extractedText: string; quotedText?: string; snippet?: string; content?: ContentVerdict | null; textPieces?: TextVectorPieces | null };

const reasonOf = (prefix: string, message: string) =>
  `${prefix}${message.replace(/[\r\n\0]+/g, " ").trim()}`.slice(0, MAX_REASON);

export class MailParser {
  readonly #maxBytes: number;
  readonly #pool: WorkerPool<ParseRequest, Parsed>;
  /** How many threads may take parses: the pool's, and its spare ones. */
  readonly threads: number;

  constructor(opts: MailParserOptions = {}) {
    const workers = positive(opts.workers, PARSE_DEFAULTS.workers, "workers");
    const timeoutMs = positive(opts.timeoutMs, PARSE_DEFAULTS.timeoutMs, "timeoutMs");
    this.#maxBytes = positive(opts.maxBytes, PARSE_DEFAULTS.maxBytes, "maxBytes");
    this.#pool = new WorkerPool({ url: new URL("./worker.ts", import.meta.url), workers, timeoutMs, spare: PARSE_SPARE });
    this.threads = workers + PARSE_SPARE.workers;
  }

  /**
   * Resolves with the parsed message or a failure carrying the readable headers; never rejects.
   * With `assess`, a parsed message also carries its content verdict, made in the worker; with
   * `vector`, the pieces of its full-text vector (src/mail/text-vector-pieces.ts).
   */
  async parse(raw: Uint8Array, assess?: AssessFacts, opts: { vector?: VectorRequest } = {}): Promise<ParseOutcome> {
    if (raw.byteLength > this.#maxBytes) return failure("too_large", raw);
    // The caller keeps its bytes, so they are copied once, unless they are in shared memory
    // (SMTP's are), which the worker reads in place. Cloning a view would copy its whole
    // underlying buffer, so a view gets a tight copy of its own, which is transferred.
    const whole = raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength;
    const sent = whole ? raw : raw.slice();
    const outcome = await this.#pool.run({ raw: sent, assess, ...(opts.vector ? { vector: opts.vector } : {}) }, whole ? [] : [sent.buffer as ArrayBuffer]);
    if (outcome.ok) return { ok: true, ...outcome.value };
    const reason = outcome.kind === "timeout" ? "parse_timeout" : outcome.kind === "closed" ? "parser_closed" : reasonOf("parse_error: ", outcome.message);
    return failure(reason, raw);
  }

  /** Terminates the workers; parses still queued or running resolve as "parser_closed". */
  close(): Promise<void> {
    return this.#pool.close();
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
