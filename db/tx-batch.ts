/**
 * Statements of one kind that the pieces of work sharing a transaction (./shared-commit.ts)
 * send in the same turn of the event loop, sent as one statement.
 *
 * A shared transaction carries the writes of several mailboxes' actors, and each sends its
 * own statements: spread over 50 mailboxes the ingest bench's node ran fifteen statements a
 * message where one busy mailbox runs four, each costing the event loop and the database its
 * parse, bind, plan and answer however few rows it carries. The pieces run side by side and
 * reach the same steps together (they all lock their rows first, then write their
 * attachment records, their senders, their jobs' completions, their events), so a statement a
 * piece hands here waits for the turn to end, gathering what the others hand in meanwhile, and
 * goes out once for all; each piece gets its own part of the answer.
 *
 * Only shared transactions have a batch (a piece alone gains nothing from waiting). A merged
 * statement that fails fails every piece in it, and the shared transaction is then given up and
 * each piece runs again alone, as for any failure of a piece.
 */
import type { Db, Tx } from "./client.ts";

interface Caller<I, A> {
  mine: I[];
  part: (answer: A, mine: I[]) => unknown;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

interface Gathering<I, A> {
  items: I[];
  send: (tx: Db | Tx, items: I[]) => Promise<A>;
  callers: Caller<I, A>[];
}

const batches = new WeakMap<object, TxBatch>();

/** The batch of a shared transaction; undefined for the pool or a transaction of one piece. */
export const batchOf = (db: Db | Tx): TxBatch | undefined => batches.get(db);

export class TxBatch {
  private readonly gathering = new Map<string, Gathering<unknown, unknown>>();
  /** Statements sent for several callers, and the calls they carried (GET /metrics through SharedCommit). */
  readonly counts = { statements: 0, calls: 0 };

  private constructor(private readonly tx: Tx) {}

  /** Runs `work` with a batch on `tx`, which ends with it. */
  static async within<T>(tx: Tx, work: () => Promise<T>): Promise<{ value: T; counts: TxBatch["counts"] }> {
    const batch = new TxBatch(tx);
    batches.set(tx, batch);
    try {
      const value = await work();
      // A piece may settle without awaiting a statement it handed in (one of a Promise.all
      // whose other call failed first): it goes now, inside the transaction, as it would have
      // unmerged, never after the commit or rollback on a connection back in the pool.
      while (batch.gathering.size > 0) await Promise.all([...batch.gathering.keys()].map((kind) => batch.flush(kind)));
      return { value, counts: batch.counts };
    } finally {
      batches.delete(tx);
    }
  }

  /**
   * `items` join what the other pieces add under `kind` in this turn; `send` (the first
   * caller's: the callers of one kind must send alike) runs once for all of them, and this
   * caller gets `part(answer, items)`. Items keep their callers' order, each caller's together.
   */
  add<I, A, R>(kind: string, items: I[], send: (tx: Db | Tx, items: I[]) => Promise<A>, part: (answer: A, mine: I[]) => R): Promise<R> {
    let g = this.gathering.get(kind) as Gathering<I, A> | undefined;
    if (!g) {
      g = { items: [], send, callers: [] };
      this.gathering.set(kind, g as Gathering<unknown, unknown>);
      // After the turn's microtasks: every piece woken by the same answer has handed in its part.
      setImmediate(() => void this.flush(kind));
    }
    const gathering = g;
    return new Promise<R>((resolve, reject) => {
      gathering.callers.push({ mine: items, part, resolve: resolve as (value: unknown) => void, reject });
      for (const item of items) gathering.items.push(item);
    });
  }

  private async flush(kind: string): Promise<void> {
    const g = this.gathering.get(kind);
    if (!g) return;
    this.gathering.delete(kind);
    if (g.callers.length > 1) {
      this.counts.statements++;
      this.counts.calls += g.callers.length;
    }
    let answer: unknown;
    try {
      answer = await g.send(this.tx, g.items);
    } catch (err) {
      for (const c of g.callers) c.reject(err);
      return;
    }
    for (const c of g.callers) {
      try {
        c.resolve(c.part(answer, c.mine));
      } catch (err) {
        c.reject(err);
      }
    }
  }
}

/** `add` on the transaction's batch when it has one, else `send` with the caller's items alone. */
export function batched<I, A, R>(tx: Db | Tx, kind: string, items: I[], send: (tx: Db | Tx, items: I[]) => Promise<A>, part: (answer: A, mine: I[]) => R): Promise<R> {
  const batch = batchOf(tx);
  return batch ? batch.add(kind, items, send, part) : send(tx, items).then((answer) => part(answer, items));
}
