import { AppError } from "../errors.ts";

/**
 * Thrown by a job handler that knows its job will never succeed (bad data, a row that is
 * gone for good): the runner ends the job after this attempt, with `reason`, instead of
 * retrying it. Restate's TerminalError, JetStream's `term()`.
 */
export class JobFailed extends Error {
  override name = "JobFailed";
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
  }
}

/**
 * A handler may also return when to try again instead of throwing (nothing is wrong, it is not
 * time yet), or `{ recorded: true }`: it marked its job done in its own transaction, so the
 * runner has nothing left to write (one round trip less per job; the lease left on a done row
 * is never read, as claims take only rows not done).
 */
export type JobResult = void | { retryAt: Date } | { recorded: true };

/*
 * PostgreSQL SQLSTATE classes that the same statement with the same data raises every time:
 * 22 data exception (invalid text, value out of range), 23 integrity constraint violation
 * (but 23505 unique: a concurrent writer, the next attempt sees its row), 54 program limit
 * exceeded (an index row too large, too many columns). Everything else (connection, lock,
 * serialization, resources, shutdown) may pass.
 */
const PERMANENT_SQLSTATE = /^(22|23|54)/;
/** Client errors that describe a moment, not the data. */
const TRANSIENT_APP_CODES = new Set(["rate_limit_exceeded", "service_unavailable", "idempotency_key_in_use"]);

/**
 * Whether an error thrown by a handler can never go away by retrying: a JobFailed, a public
 * AppError (the input is wrong: validation, not found), or a PostgreSQL data error, found
 * anywhere on the error's `cause` chain (drizzle and the actor runtime wrap what they throw).
 */
export function isPermanent(err: unknown): boolean {
  for (let e: any = err, depth = 0; e && depth < 8; e = e.cause, depth++) {
    if (e instanceof JobFailed) return true;
    if (e instanceof AppError) return e.isPublic && !TRANSIENT_APP_CODES.has(e.code);
    if (typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code) && e.code !== "23505" && PERMANENT_SQLSTATE.test(e.code)) return true;
  }
  return false;
}

/**
 * The reason recorded and logged for a failed attempt: the messages along the cause chain.
 * Drizzle's own wrapper is skipped: its message quotes the SQL and its parameters, which may
 * hold secrets and whole message bodies.
 */
export function reasonOf(err: unknown): string {
  if (err instanceof JobFailed) return err.reason.slice(0, 2000);
  const parts: string[] = [];
  for (let e: any = err, depth = 0; e && depth < 8; e = e.cause, depth++) {
    const text = typeof e === "object" ? String(e.message ?? "") : String(e);
    if (e.name === "DrizzleQueryError" || text.startsWith("Failed query:")) continue;
    const code = typeof e.code === "string" ? e.code : "";
    if (text && !parts.some((p) => p.includes(text))) parts.push(code ? `${text} (${code})` : text);
  }
  return (parts.join(": ") || "unknown error").slice(0, 2000);
}
