import type { SMTPServerDataStream } from "smtp-server";
import type { Logger } from "../log.ts";
import type { ConnectionHandle } from "./connection.ts";
import { REPLY, type Reply } from "./replies.ts";

export interface SessionLimits {
  sessionTimeoutMs: number;
  dataTimeoutMs: number;
  /** Bytes per second a DATA must average once the grace period is over; 0: no rate check. */
  minDataRate: number;
  dataRateGraceMs: number;
  maxJunkCommands: number;
}

// Commands that move no mail forward (Postfix's junk commands, plus HELP and EXPN).
const JUNK = new Set(["NOOP", "RSET", "VRFY", "EXPN", "HELP", "ETRN"]);
// How often a deadline that found a handler still answering looks again.
const RECHECK_MS = 1000;
const RATE_CHECK_MS = 1000;

const unref = (t: ReturnType<typeof setTimeout>) => (t.unref?.(), t);

/**
 * The limits of one accepted session that smtp-server has no setting for: a total time
 * limit, a cap on commands without progress, and a time limit and a minimum rate for DATA.
 * Every limit ends the session with a 421. A DATA cut while it is still arriving is
 * dropped whole (its read resolves "cut", nothing reaches `accept`); a message already in
 * and being stored is never cut, so nothing that gets a 250 is lost.
 */
export class SessionGuard {
  private junk = 0;
  private sessionTimer: ReturnType<typeof setTimeout> | undefined;
  private data: { abort: AbortController; timers: ReturnType<typeof setTimeout>[] } | undefined;
  private ended = false;

  constructor(
    private readonly conn: ConnectionHandle,
    private readonly limits: SessionLimits,
    private readonly log: Logger,
    private readonly sessionId: string,
  ) {
    this.sessionTimer = unref(setTimeout(() => this.expire(), limits.sessionTimeoutMs));
    conn.beforeCommand((name) => this.beforeCommand(name));
    // Refusals count too (a RCPT dictionary, a client stuck on a 5xx), as Postfix's error limit does.
    conn.onReply((code) => {
      if (code >= 400 && code !== 421) this.junk++;
    });
  }

  /** A message was accepted: the session made progress. */
  progressed(): void {
    this.junk = 0;
  }

  /**
   * Watches one DATA: the returned signal aborts when a limit cuts it (the reply has been
   * sent and the connection is closing by then).
   */
  watchData(stream: SMTPServerDataStream): AbortSignal {
    this.stopData();
    const abort = new AbortController();
    const started = performance.now();
    const { dataTimeoutMs, dataRateGraceMs, minDataRate } = this.limits;
    const timers = [
      unref(setTimeout(() => this.cutData(REPLY.dataTimeLimit, { limitMs: dataTimeoutMs, bytes: stream.byteLength }), dataTimeoutMs)),
    ];
    const checkRate = () => {
      const elapsedMs = performance.now() - started;
      if (stream.byteLength < (minDataRate * elapsedMs) / 1000) {
        this.cutData(REPLY.dataTooSlow, { bytes: stream.byteLength, elapsedMs: Math.round(elapsedMs), minDataRate });
      } else {
        timers.push(unref(setTimeout(checkRate, RATE_CHECK_MS)));
      }
    };
    if (minDataRate > 0) timers.push(unref(setTimeout(checkRate, Math.max(dataRateGraceMs, RATE_CHECK_MS))));
    this.data = { abort, timers };
    const stop = () => this.stopData(abort);
    stream.once("end", stop);
    stream.once("close", stop);
    return abort.signal;
  }

  /** The connection closed: no timer of this session may fire any more. */
  stop(): void {
    this.ended = true;
    clearTimeout(this.sessionTimer);
    this.stopData();
  }

  private beforeCommand(name: string): boolean {
    if (this.ended) return false;
    if (JUNK.has(name)) this.junk++;
    if (this.junk <= this.limits.maxJunkCommands) return true;
    this.end(REPLY.tooManyJunkCommands, { limit: this.limits.maxJunkCommands });
    return false;
  }

  private expire(): void {
    const state = this.conn.state();
    if (state === "closed") return;
    // A reply is owed to the client (a lookup, or a message being stored that may get its
    // 250): cutting now could lose what it is about to be told is accepted.
    if (state === "busy" || state === "storing") {
      this.sessionTimer = unref(setTimeout(() => this.expire(), RECHECK_MS));
      return;
    }
    this.end(REPLY.sessionTimeLimit, { limitMs: this.limits.sessionTimeoutMs, state });
  }

  private cutData(reply: Reply, fields: Record<string, unknown>): void {
    // The end marker may have arrived between the timer's arming and its firing.
    if (this.conn.state() === "receiving") this.end(reply, fields);
  }

  private end(reply: Reply, fields: Record<string, unknown>): void {
    if (this.ended) return;
    this.log.info({ sessionId: this.sessionId, code: reply.code, reply: reply.text, ...fields }, "smtp session cut");
    this.data?.abort.abort();
    this.stop();
    this.conn.hangUp(reply.code, reply.text);
  }

  private stopData(only?: AbortController): void {
    if (!this.data || (only && this.data.abort !== only)) return;
    for (const t of this.data.timers) clearTimeout(t);
    this.data = undefined;
  }
}
