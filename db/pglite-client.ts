/**
 * PGlite on a thread of its own (./pglite-thread.ts), behind the part of PGlite's interface
 * that drizzle-orm/pglite and db/client.ts use: query, exec, transaction, listen, close.
 * Semantics are PGlite's own: statements run one at a time, a query outside a transaction
 * waits while one is open, and the transaction callback's client runs inside it. What changes
 * is where the engine and its protocol code run: not on the event loop, which a large write
 * held for over a second (./pglite-thread.ts says more).
 */
import type { Results } from "@electric-sql/pglite";
import { resultFromWire, wireValue, transferList, type PgliteCall, type PgliteReply, type RowMode } from "./pglite-wire.ts";

type Pending = { resolve: (value: unknown) => void; reject: (err: unknown) => void };
type QueryOptions = { rowMode?: RowMode; parsers?: Record<number, unknown> };
/** What runs statements: the database, or one open transaction. */
export interface PgliteQueries {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(sql: string): Promise<Results[]>;
}
export interface PgliteTransaction extends PgliteQueries {
  rollback(): Promise<void>;
  readonly closed: boolean;
}

/** Rebuilt from the thread's plain data: PostgreSQL's fields (code, constraint…) as PGlite gives them. */
function asError(data: Record<string, unknown>): Error {
  const err = new Error(String(data.message ?? "PGlite error"));
  Object.assign(err, data);
  if (typeof data.name === "string") err.name = data.name;
  return err;
}

export class PgliteOffThread implements PgliteQueries {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Map<string, Set<(payload: string) => void>>();
  #nextId = 1;
  #closed = false;
  /** When the thread last answered a call (performance.now()). */
  #lastAnswer = performance.now();

  private constructor() {
    this.#worker = new Worker(new URL("./pglite-thread.ts", import.meta.url));
    this.#worker.addEventListener("message", (event: MessageEvent<PgliteReply>) => this.#onReply(event.data));
    this.#worker.addEventListener("error", (event: ErrorEvent) => this.#failAll(new Error(`the PGlite thread failed: ${event.message}`)));
    this.#worker.addEventListener("close", () => this.#failAll(new Error("the PGlite thread exited")));
  }

  /** Starts the thread and opens the cluster in `dataDir` (in memory when undefined). */
  static async open(dataDir: string | undefined): Promise<PgliteOffThread> {
    const client = new PgliteOffThread();
    try {
      await client.#call({ op: "open", dataDir });
    } catch (err) {
      client.#worker.terminate();
      throw err;
    }
    return client;
  }

  query<T = Record<string, unknown>>(sql: string, params: unknown[] = [], options: QueryOptions = {}, tx?: number): Promise<Results<T>> {
    const call = { op: "query" as const, sql, params: params.map(wireValue), rowMode: options.rowMode ?? "object", drizzleParsers: options.parsers !== undefined, ...(tx === undefined ? {} : { tx }) };
    return this.#call(call).then((r) => resultFromWire(r) as Results<T>);
  }

  exec(sql: string, tx?: number): Promise<Results[]> {
    return this.#call({ op: "exec", sql, ...(tx === undefined ? {} : { tx }) }).then((r) => resultFromWire(r) as Results[]);
  }

  /** Runs `fn` in a transaction: committed when it resolves, rolled back when it throws or calls rollback(). */
  async transaction<T>(fn: (tx: PgliteTransaction) => Promise<T>): Promise<T> {
    const txId = this.#nextId++;
    await this.#call({ op: "begin", txId });
    let closed = false;
    let rolledBack = false;
    const check = () => {
      if (closed) throw new Error("Transaction is closed");
    };
    const tx: PgliteTransaction = {
      query: (sql, params, options) => (check(), this.query(sql, params, options, txId)),
      exec: (sql) => (check(), this.exec(sql, txId)),
      rollback: async () => {
        check();
        rolledBack = true;
        closed = true;
      },
      get closed() {
        return closed;
      },
    };
    let value: T;
    try {
      value = await fn(tx);
    } catch (err) {
      closed = true;
      await this.#call({ op: "end", txId, commit: false }).catch(() => {});
      throw err;
    }
    closed = true;
    await this.#call({ op: "end", txId, commit: !rolledBack });
    return value;
  }

  /** LISTEN on `channel`; resolves to an UNLISTEN. */
  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    const listenId = this.#nextId++;
    let set = this.#listeners.get(channel);
    if (!set) this.#listeners.set(channel, (set = new Set()));
    set.add(onNotify);
    await this.#call({ op: "listen", channel, listenId });
    return async () => {
      set!.delete(onNotify);
      if (set!.size === 0) this.#listeners.delete(channel);
      await this.#call({ op: "unlisten", listenId });
    };
  }

  /**
   * Whether the engine is at work: calls are waiting and the thread answered one within
   * `withinMs`. It runs one statement at a time, so a `select 1` to ask would queue behind
   * a large write (hundreds of milliseconds for megabytes) to learn what this already says.
   */
  busyAndAnswering(withinMs: number): boolean {
    return !this.#closed && this.#pending.size > 0 && performance.now() - this.#lastAnswer < withinMs;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#call({ op: "close" });
    } finally {
      this.#closed = true;
      this.#worker.terminate();
    }
  }

  #call(call: DistributiveOmit<PgliteCall, "id">): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error("PGlite is closed"));
    const id = this.#nextId++;
    const message = { ...call, id } as PgliteCall;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      try {
        this.#worker.postMessage(message, transferList(message));
      } catch (err) {
        this.#pending.delete(id);
        reject(err);
      }
    });
  }

  #onReply(reply: PgliteReply): void {
    if (reply.type === "notify") {
      for (const listener of this.#listeners.get(reply.channel) ?? []) listener(reply.payload);
      return;
    }
    this.#lastAnswer = performance.now();
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(asError(reply.error));
  }

  #failAll(err: Error): void {
    this.#closed = true;
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
