/**
 * Logging helpers: a fallback for systems built without a logger, and the
 * per-actor logger handed to handlers so every line names its actor.
 */
import type { ActorLogger } from "./types.ts";

/**
 * Used when the caller gives no logger. Failures must never vanish silently
 * (a failed `tell` has nobody else to report to), so warn/error go to stderr.
 */
export const consoleLogger: ActorLogger = {
  debug() {},
  warn(obj, msg) {
    console.warn(msg ?? "", obj);
  },
  error(obj, msg) {
    console.error(msg ?? "", obj);
  },
};

/**
 * Adds { kind, id } to every line. The ActorLogger contract has no child(), so
 * we merge fields ourselves; one instance per actor, allocated at creation.
 */
export class ActorScopedLogger implements ActorLogger {
  constructor(
    private readonly base: ActorLogger,
    private readonly kind: string,
    private readonly id: string,
  ) {}

  debug(obj: object, msg?: string): void {
    this.base.debug({ kind: this.kind, id: this.id, ...obj }, msg);
  }

  warn(obj: object, msg?: string): void {
    this.base.warn({ kind: this.kind, id: this.id, ...obj }, msg);
  }

  error(obj: object, msg?: string): void {
    this.base.error({ kind: this.kind, id: this.id, ...obj }, msg);
  }
}

/**
 * The runtime logs from timer callbacks and its own message loop; a logger
 * that throws there would wedge an actor or surface as an uncaught exception.
 */
export function safeLog(logger: ActorLogger, level: "debug" | "warn" | "error", obj: object, msg: string): void {
  try {
    logger[level](obj, msg);
  } catch {
    // Nothing sensible left to report to.
  }
}
