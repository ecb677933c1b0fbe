/**
 * Validating a tenant's instance (protocol `parameters`, response `structured_data`) against
 * a tenant's schema without holding the event loop. The instance is measured first and
 * refused over MAX_INSTANCE_BYTES. A small instance against a schema whose validation is
 * linear in it (no patterns, uniqueItems or references: schema-bounds.ts) is validated inline
 * with the cached validator; anything else runs in a worker pool with a time budget, and a
 * validation that overruns it is refused as schema_validation_failed with
 * `reason: "validation_budget_exceeded"` while its worker is replaced.
 */
import { WorkerPool } from "../workers/pool.ts";
import { type SchemaIssue, ValidatorCache } from "./json-schema.ts";
import { schemaShape } from "./schema-bounds.ts";
import type { ValidationCall } from "./validation-worker.ts";

/** Largest instance validated, as JSON. */
export const MAX_INSTANCE_BYTES = 256 * 1024;
/** Instances up to this size are validated inline when the schema is linear to validate. */
export const INLINE_INSTANCE_BYTES = 8 * 1024;

export type Validated =
  | { ok: true; issues: SchemaIssue[] }
  | { ok: false; reason: "instance_too_large" | "validation_budget_exceeded" | "validation_failed" | "unavailable"; message: string };

export interface SchemaValidatorsOptions {
  /** Time budget of one validation in a worker. Default 1000. */
  timeoutMs?: number;
  /** Validation threads, started on demand. Default 1. */
  workers?: number;
  /** Compiled validators kept inline. Default 2000. */
  cacheSize?: number;
}

export class SchemaValidators {
  readonly #cache: ValidatorCache;
  readonly #costly = new Map<string, boolean>();
  readonly #pool: WorkerPool<ValidationCall, SchemaIssue[]>;
  readonly #timeoutMs: number;

  constructor(opts: SchemaValidatorsOptions = {}) {
    this.#timeoutMs = opts.timeoutMs ?? 1000;
    this.#cache = new ValidatorCache(opts.cacheSize ?? 2000);
    this.#pool = new WorkerPool({ url: new URL("./validation-worker.ts", import.meta.url), workers: opts.workers ?? 1, timeoutMs: this.#timeoutMs });
  }

  /** `version` changes whenever the schema may have (the action's update time). */
  async validate(actionId: string, version: number, which: "parameters" | "response", schema: object, instance: unknown): Promise<Validated> {
    const bytes = JSON.stringify(instance)?.length ?? 0;
    if (bytes > MAX_INSTANCE_BYTES) {
      return { ok: false, reason: "instance_too_large", message: `is ${bytes} bytes of JSON; at most ${MAX_INSTANCE_BYTES} are validated` };
    }
    const key = `${actionId}:${version}:${which}`;
    if (bytes <= INLINE_INSTANCE_BYTES && !this.#isCostly(key, schema)) {
      return { ok: true, issues: this.#cache.issues(actionId, version, which, schema, instance) };
    }
    const outcome = await this.#pool.run({ key, schema, instance });
    if (outcome.ok) return { ok: true, issues: outcome.value };
    if (outcome.kind === "timeout") {
      return { ok: false, reason: "validation_budget_exceeded", message: `took longer than its budget of ${this.#timeoutMs} ms: simplify the schema or send a smaller value` };
    }
    if (outcome.kind === "closed") return { ok: false, reason: "unavailable", message: "cannot be validated while the node shuts down" };
    // A validator throws on input it cannot walk (too deep for the stack, out of memory).
    return { ok: false, reason: "validation_failed", message: `could not be validated: ${outcome.message.slice(0, 200)}` };
  }

  close(): Promise<void> {
    return this.#pool.close();
  }

  #isCostly(key: string, schema: object): boolean {
    let costly = this.#costly.get(key);
    if (costly === undefined) {
      const shape = schemaShape(schema);
      // A stored schema over today's bounds (written before them) is validated in a worker.
      costly = !shape.ok || shape.costly;
      if (this.#costly.size >= 2000) this.#costly.delete(this.#costly.keys().next().value!);
      this.#costly.set(key, costly);
    }
    return costly;
  }
}
