/**
 * The mailbox row as a node that does not own the mailbox reads it: kept for `ttlMs` (the
 * same one-second bound CACHE_TTL_MS gives every other cached read) instead of asking the
 * owner over NATS on every GET /v1/mailboxes/{id}. Under that bound, a kept row is forgotten
 * at once when
 * - this node forwards any write of the mailbox (before and after it runs), so a caller reads
 *   its own change through this node;
 * - another node announces a change (the bus's mailboxChanged arrives as a `reload` tell).
 * A read that overlapped a forget is not kept. The owner itself answers from its actor's
 * memory, so nothing is kept for the mailboxes this node holds. Errors are never kept.
 */
import type { AskOptions, Placement } from "../../actors/runtime/index.ts";
import { MAILBOX_ACTOR } from "../../actors/mailbox/client.ts";

/** Commands that count a call and change no row: they leave the kept row alone. */
const ROW_UNCHANGED = new Set(["admit", "admitRuntime"]);
const MAX_ROWS = 100_000;

interface Kept {
  value: unknown;
  until: number;
}

interface Holder {
  partitionOf(id: string): number;
  held(partition: number): number | undefined;
}

export class RemoteReads implements Placement {
  private readonly rows = new Map<string, Kept>();
  /** Bumped by every forget: a read that started before one is not kept. */
  private version = 0;

  constructor(
    private readonly inner: Placement,
    private readonly own: Holder,
    private readonly ttlMs: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  ask<R = unknown>(kind: string, id: string, msg: unknown, opts?: AskOptions): Promise<R> {
    if (kind !== MAILBOX_ACTOR || ROW_UNCHANGED.has(nameOf(msg))) return this.inner.ask<R>(kind, id, msg, opts);
    this.forget(id);
    return this.inner.ask<R>(kind, id, msg, opts).finally(() => this.forget(id));
  }

  read<R = unknown>(kind: string, id: string, msg: unknown, opts?: AskOptions): Promise<R> {
    if (this.ttlMs <= 0 || kind !== MAILBOX_ACTOR || !isBareGet(msg) || this.own.held(this.own.partitionOf(id)) !== undefined) {
      return this.inner.read<R>(kind, id, msg, opts);
    }
    const kept = this.rows.get(id);
    if (kept !== undefined && kept.until > this.now()) return Promise.resolve(kept.value as R);
    const version = this.version;
    return this.inner.read<R>(kind, id, msg, opts).then((value) => {
      if (version === this.version) {
        if (this.rows.size >= MAX_ROWS) this.rows.clear();
        this.rows.set(id, { value, until: this.now() + this.ttlMs });
      }
      return value;
    });
  }

  runNow(kind: string, id: string, msg: unknown): { value: unknown } | undefined {
    if (kind === MAILBOX_ACTOR && !ROW_UNCHANGED.has(nameOf(msg))) return undefined;
    return this.inner.runNow?.(kind, id, msg);
  }

  readNow(kind: string, id: string, msg: unknown): unknown {
    return this.inner.readNow?.(kind, id, msg);
  }

  tell(kind: string, id: string, msg: unknown): void {
    if (kind === MAILBOX_ACTOR) this.forget(id);
    this.inner.tell(kind, id, msg);
  }

  close(): Promise<void> {
    this.rows.clear();
    return this.inner.close();
  }

  private forget(id: string): void {
    this.version++;
    this.rows.delete(id);
  }
}

const nameOf = (msg: unknown): string => (msg as { name?: string } | null)?.name ?? "";
const isBareGet = (msg: unknown): boolean => nameOf(msg) === "get" && ((msg as { args?: unknown[] }).args?.length ?? 0) === 0;
