/**
 * Recent SPF/DKIM/DMARC verdicts of unsigned mail, reused for the next message that gives
 * mailauth the same inputs. Without a DKIM signature or an ARC set, what mailauth decides is a
 * function of the client's IP, HELO and MAIL FROM, the head's From and Return-Path fields and
 * the DNS answers (which the auth thread caches for up to 5 minutes anyway: dns-cache.ts). A
 * notification system, a mailing list or a flood from one sender sends thousands of messages
 * that differ only in fields mailauth never reads (Message-ID, Date, Subject); each one cost a
 * trip to the auth thread and ~0.2 ms of mailauth there (0.8 ms of the process's CPU per
 * message on two busy cores, bench/smtp-ingest.ts: a tenth of what ingesting a small message
 * costs). A verdict is kept for VERDICT_TTL_MS, so a change to a sender's records is seen that
 * much later than the DNS cache alone would see it.
 *
 * Signed mail is never reused: its DKIM result depends on the body and on every signed field.
 * Nor is a temperror (a DNS failure or timeout says nothing about the next message).
 */
import { createRequire } from "node:module";
import type { AuthResults, Envelope } from "../types.ts";
import { headLength } from "./auth-head.ts";

const VERDICT_TTL_MS = 30_000;
const MAX_VERDICTS = 4096;
/**
 * Heads longer than this, or of more lines, go to the auth thread without a look: the key is
 * read on the event loop with mailauth's own header parser, whose folding is quadratic in the
 * number of lines.
 */
const KEY_HEAD_BYTES = 16 * 1024;
const KEY_HEAD_LINES = 256;
/** A key this long (a From of hundreds of addresses) is not worth the memory of keeping. */
const KEY_CHARS = 2048;

/** mailauth's header parser (lib/tools.js), so that the key reads the head exactly as mailauth does. */
const { parseHeaders } = createRequire(import.meta.url)("mailauth/lib/tools") as {
  parseHeaders: (head: Buffer) => { parsed: { key: string | null; line: Buffer }[] };
};

/**
 * What mailauth reads of an unsigned message (checkAuth gives it the envelope and the head),
 * as a string; null when the message is signed, carries an ARC set, or its head is too large
 * to read here.
 */
export function verdictKey(raw: Uint8Array, envelope: Envelope): string | null {
  // Only as far as a head may reach here: a long head is not scanned to its end on the event loop.
  const probe = raw.subarray(0, Math.min(raw.byteLength, KEY_HEAD_BYTES));
  const headEnd = headLength(probe);
  if (headEnd === probe.byteLength && probe.byteLength < raw.byteLength) return null;
  let lines = 0;
  for (let i = probe.indexOf(0x0a); i !== -1 && i < headEnd; i = probe.indexOf(0x0a, i + 1)) if (++lines > KEY_HEAD_LINES) return null;
  const parts: string[] = [envelope.remoteAddress || "", envelope.heloName || "", envelope.mailFrom || ""];
  for (const row of parseHeaders(Buffer.from(raw.buffer, raw.byteOffset, headEnd)).parsed) {
    const key = row.key;
    if (key === "dkim-signature" || key?.startsWith("arc-")) return null;
    if (key === "from" || key === "return-path") parts.push(key, row.line.toString("latin1"));
  }
  const key = JSON.stringify(parts);
  return key.length > KEY_CHARS ? null : key;
}

/** Only a verdict DNS could answer is worth reusing. */
const reusable = (v: AuthResults) => v.spf !== "temperror" && v.dkim !== "temperror" && v.dmarc !== "temperror";

/**
 * Verdicts by key, each kept VERDICT_TTL_MS, the oldest dropped beyond MAX_VERDICTS. A
 * verdict still being made is shared: the messages of a burst from one sender wait for the
 * first one's instead of each going to the auth thread.
 */
export class AuthVerdicts {
  readonly #verdicts = new Map<string, { expires: number; verdict: Promise<AuthResults> }>();
  /** Messages whose verdict was reused (tests, metrics). */
  reused = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = VERDICT_TTL_MS,
    private readonly max = MAX_VERDICTS,
  ) {}

  /** The verdict for `key` if one is recent or on its way, else `make()`'s, kept when reusable. */
  verdictFor(key: string, make: () => Promise<AuthResults>): Promise<AuthResults> {
    const kept = this.#verdicts.get(key);
    if (kept && kept.expires > this.now()) {
      this.reused++;
      return kept.verdict;
    }
    if (kept) this.#verdicts.delete(key);
    if (this.#verdicts.size >= this.max) this.#verdicts.delete(this.#verdicts.keys().next().value!);
    const entry = { expires: this.now() + this.ttlMs, verdict: make() };
    this.#verdicts.set(key, entry);
    const forget = () => {
      if (this.#verdicts.get(key) === entry) this.#verdicts.delete(key);
    };
    entry.verdict.then((v) => reusable(v) || forget(), forget);
    return entry.verdict;
  }

  get size(): number {
    return this.#verdicts.size;
  }
}
