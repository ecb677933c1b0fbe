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
 *
 * Reads of one row that overlap share one forwarded read. And every authenticated request
 * first counts its call (`admit`, or `admitMany` for calls counted together, forwarded to
 * the owner); when no row is kept then, the
 * row's read is sent beside it, so the request that reads the row next (most do) waits one
 * round trip to the owner, not two in a row. The placement sends both in one NATS message.
 */
import type { AskOptions, Placement } from "../../actors/runtime/index.ts";
import { MAILBOX_ACTOR } from "../../actors/mailbox/client.ts";

/** Commands that count a call and change no row: they leave the kept row alone. */
const ROW_UNCHANGED = new Set(["admit", "admitMany", "admitRuntime", "poll"]);
const MAX_ROWS = 100_000;
const GET = Object.freeze({ name: "get", args: Object.freeze([]) });

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
  /** Forwarded reads of a row under way, for reads that come meanwhile (dropped by a forget). */
  private readonly reading = new Map<string, Promise<unknown>>();
  /** Bumped by every forget: a read that started before one is not kept. */
  private version = 0;

  constructor(
    private readonly inner: Placement,
    private readonly own: Holder,
    private readonly ttlMs: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  ask<R = unknown>(kind: string, id: string, msg: unknown, opts?: AskOptions): Promise<R> {
    if (kind !== MAILBOX_ACTOR) return this.inner.ask<R>(kind, id, msg, opts);
    const name = nameOf(msg);
    if (ROW_UNCHANGED.has(name)) {
      // `poll` brings the row back with its answer.
      if (name !== "poll" && this.remote(id)) this.prefetch(id, opts);
      return this.inner.ask<R>(kind, id, msg, opts);
    }
    this.forget(id);
    return this.inner.ask<R>(kind, id, msg, opts).finally(() => this.forget(id));
  }

  read<R = unknown>(kind: string, id: string, msg: unknown, opts?: AskOptions): Promise<R> {
    if (kind !== MAILBOX_ACTOR || !isBareGet(msg) || !this.remote(id)) return this.inner.read<R>(kind, id, msg, opts);
    const kept = this.rows.get(id);
    if (kept !== undefined && kept.until > this.now()) return Promise.resolve(kept.value as R);
    return (this.reading.get(id) ?? this.fetch(id, opts)) as Promise<R>;
  }

  readNow(kind: string, id: string, msg: unknown): { value: unknown } | undefined {
    if (kind !== MAILBOX_ACTOR || !isBareGet(msg) || !this.remote(id)) return undefined;
    const kept = this.rows.get(id);
    return kept !== undefined && kept.until > this.now() ? { value: kept.value } : undefined;
  }

  runNow(kind: string, id: string, msg: unknown): { value: unknown } | undefined {
    if (kind === MAILBOX_ACTOR && !ROW_UNCHANGED.has(nameOf(msg))) return undefined;
    return this.inner.runNow?.(kind, id, msg);
  }

  tell(kind: string, id: string, msg: unknown): void {
    if (kind === MAILBOX_ACTOR) this.forget(id);
    this.inner.tell(kind, id, msg);
  }

  close(): Promise<void> {
    this.rows.clear();
    this.reading.clear();
    return this.inner.close();
  }

  /** Whether rows of this mailbox are kept here: caching is on and another node holds it. */
  private remote(id: string): boolean {
    return this.ttlMs > 0 && this.own.held(this.own.partitionOf(id)) === undefined;
  }

  /** A call is being counted: read the row beside it unless it is kept or being read. */
  private prefetch(id: string, opts: AskOptions | undefined): void {
    const kept = this.rows.get(id);
    if ((kept !== undefined && kept.until > this.now()) || this.reading.has(id)) return;
    // Nobody may ever wait on it (the request may not read the row): its failure is dropped here.
    this.fetch(id, opts).catch(() => {});
  }

  private fetch(id: string, opts: AskOptions | undefined): Promise<unknown> {
    const version = this.version;
    const read = this.inner.read(MAILBOX_ACTOR, id, GET, opts).then(
      (value) => {
        if (this.reading.get(id) === read) this.reading.delete(id);
        if (version === this.version) {
          if (this.rows.size >= MAX_ROWS) this.rows.clear();
          this.rows.set(id, { value, until: this.now() + this.ttlMs });
        }
        return value;
      },
      (err: unknown) => {
        if (this.reading.get(id) === read) this.reading.delete(id);
        throw err;
      },
    );
    this.reading.set(id, read);
    return read;
  }

  private forget(id: string): void {
    this.version++;
    this.rows.delete(id);
    this.reading.delete(id);
  }
}

const nameOf = (msg: unknown): string => (msg as { name?: string } | null)?.name ?? "";
const isBareGet = (msg: unknown): boolean => nameOf(msg) === "get" && ((msg as { args?: unknown[] }).args?.length ?? 0) === 0;
