/**
 * Placement: where a message for (kind, id) gets handled. Callers talk to a
 * Placement, never to an ActorSystem directly, so the single-node deployment
 * and a clustered one are interchangeable.
 */
import type { ActorSystem } from "./system.ts";
import type { AskOptions } from "./types.ts";

/**
 * Routes every (kind, id) to exactly one live actor in the deployment.
 *
 * A NATS-based placement will implement this same interface: it routes each
 * (kind, id) to exactly one node (which hosts the actor in its own
 * ActorSystem) and forwards the message there. Messages and replies must
 * therefore be plain JSON-serialisable data (no class instances, functions,
 * Dates, Maps, Buffers or bigints), even when using LocalPlacement, so code
 * written today keeps working when the placement changes.
 */
export interface Placement {
  ask<R = unknown>(kind: string, id: string, msg: unknown, opts?: AskOptions): Promise<R>;
  /** A read-only message, answered from the actor's memory when possible (see ActorDefinition.read). */
  read<R = unknown>(kind: string, id: string, msg: unknown, opts?: AskOptions): Promise<R>;
  tell(kind: string, id: string, msg: unknown): void;
  /**
   * The synchronous fast path of a local actor: `ask` run at once on the caller's stack when
   * the actor lives on this node, in memory and idle (ActorSystem.runNow). undefined: nothing
   * ran; the caller asks as usual.
   */
  runNow?(kind: string, id: string, msg: unknown): { value: unknown } | undefined;
  /**
   * A `read` this node can answer from what it keeps, at once and with no promise; undefined:
   * it cannot (the caller reads as usual).
   */
  readNow?(kind: string, id: string, msg: unknown): { value: unknown } | undefined;
  /** Stops accepting messages and finishes in-flight work. Safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Single-node placement: every actor lives in the given local system, so this
 * only forwards. close() shuts that system down gracefully (same as
 * system.shutdown(); calling both is fine).
 */
export class LocalPlacement implements Placement {
  constructor(private readonly system: ActorSystem) {}

  ask<R = unknown>(kind: string, id: string, msg: unknown, opts?: AskOptions): Promise<R> {
    return this.system.ask<R>(kind, id, msg, opts);
  }

  read<R = unknown>(kind: string, id: string, msg: unknown, opts?: AskOptions): Promise<R> {
    return this.system.read<R>(kind, id, msg, opts);
  }

  tell(kind: string, id: string, msg: unknown): void {
    this.system.tell(kind, id, msg);
  }

  runNow(kind: string, id: string, msg: unknown): { value: unknown } | undefined {
    return this.system.runNow(kind, id, msg);
  }

  close(): Promise<void> {
    return this.system.shutdown();
  }
}
