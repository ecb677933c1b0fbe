/**
 * One transaction, and so one commit, for the writes of many mailbox actors.
 *
 * Each actor commits its own batch (the arrivals queued behind its last commit, say). With one
 * busy mailbox the batches are large and commits few; spread over many mailboxes each batch is
 * a message or two, and a node made two commits and a statement of each kind per message (half
 * a commit and a fourth of a statement for one mailbox), each commit a BEGIN and COMMIT, a WAL
 * flush and its own socket writes. Here the actors' transactions that come together share one:
 * work handed over while a transaction is in flight waits for it and then runs in the next,
 * each piece on the same connection alongside the others (their statements go out together),
 * and commits with them; work handed over when none is in flight goes at once.
 *
 * What the actor sees is unchanged: its work runs in a transaction and its promise settles after
 * the commit. If any piece of work fails, or the commit does, the shared transaction is rolled
 * back and every piece runs again in a transaction of its own, so one mailbox's failure (a
 * constraint, a lost lease) is its own alone; work must therefore be safe to run again after a
 * rollback, as a transaction's body is when a retry may run it again.
 *
 * One shared transaction at a time: two in flight could each hold a row the other wants (the
 * sender profiles of one account are touched by all its mailboxes) and wait for PostgreSQL's
 * deadlock check. Work of different kinds (arrivals, processing results) goes through
 * instances of its own, so an arrival never waits for a commit of processing results.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Db, Tx } from "./client.ts";
import { TxBatch } from "./tx-batch.ts";

export interface SharedCommitOptions {
  /**
   * Runs after each piece of work, in the shared transaction and in the async context the work
   * was handed over in (the mailbox's fence: src/cluster/fence.ts).
   */
  finish?: (tx: Tx) => Promise<void>;
  /** The most pieces of work one transaction takes; the rest wait for the next. */
  maxMembers?: number;
}

interface Member {
  work: (tx: Tx) => Promise<unknown>;
  /** Runs a function in the async context the work was handed over in. */
  within: <R>(fn: () => R) => R;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/** A piece of work failed: the shared transaction is given up and each piece runs alone. */
class MemberFailed extends Error {}

export class SharedCommit {
  private queue: Member[] = [];
  private running = false;
  private readonly maxMembers: number;
  /**
   * Shared transactions committed and the pieces of work they carried; transactions of one
   * piece begun (a piece on its own, or run again after a shared one was given up); shared
   * transactions given up; statements of committed shared transactions that carried several
   * pieces' calls (./tx-batch.ts), and those calls (GET /metrics).
   */
  readonly counts = { shared: 0, members: 0, alone: 0, givenUp: 0, merged: 0, mergedCalls: 0 };

  constructor(
    private readonly db: Db,
    private readonly opts: SharedCommitOptions = {},
  ) {
    this.maxMembers = opts.maxMembers ?? 64;
  }

  /** Runs `work` in a transaction shared with the work other actors hand over at the same time; settles after its commit. */
  run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const within = AsyncLocalStorage.snapshot();
    if (this.running) return new Promise<T>((resolve, reject) => void this.queue.push({ work, within, resolve: resolve as (v: unknown) => void, reject }));
    // None in flight: this work goes at once, in a transaction of its own (waiting for company
    // would be latency for nothing on a quiet node, and one mailbox's actor, which hands over its
    // next work only once this is done, always finds the way clear); the work handed over
    // meanwhile goes together in the next. The callback returns nothing: the caller does not
    // wait for the next transaction, and finds `running` cleared when there is none.
    this.running = true;
    this.counts.alone++;
    return this.db.transaction((tx) => this.perform({ work, within }, tx) as Promise<T>).finally(() => void this.drain());
  }

  /** Runs what queued while a transaction was in flight, a shared transaction at a time; called with `running` set. */
  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, this.maxMembers);
        // Settled whatever happens (settling twice is a no-op): a piece is never left waiting.
        await this.commit(group).catch((err: unknown) => group.forEach((m) => m.reject(err)));
      }
    } finally {
      this.running = false;
    }
  }

  private async commit(group: Member[]): Promise<void> {
    if (group.length === 1) return this.alone(group[0]!);
    let values: unknown[];
    try {
      values = await this.db.transaction(async (tx) => {
        // Every piece settles before the transaction ends, failed or not: none is left with
        // statements on a connection that has gone back to the pool. Their statements of one
        // kind sent in the same turn go as one (./tx-batch.ts).
        const { value: settled, counts } = await TxBatch.within(tx, () => Promise.allSettled(group.map((m) => this.perform(m, tx))));
        if (settled.some((s) => s.status === "rejected")) throw new MemberFailed();
        this.counts.merged += counts.statements;
        this.counts.mergedCalls += counts.calls;
        return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
      });
    } catch {
      this.counts.givenUp++;
      // The error a piece met may be another's (the transaction was aborted under it), and a
      // failed commit names none (a deferred constraint two pieces broke together): each alone.
      await Promise.all(group.map((m) => this.alone(m)));
      return;
    }
    this.counts.shared++;
    this.counts.members += group.length;
    group.forEach((m, i) => m.resolve(values[i]));
  }

  private async alone(m: Member): Promise<void> {
    this.counts.alone++;
    try {
      m.resolve(await this.db.transaction((tx) => this.perform(m, tx)));
    } catch (err) {
      m.reject(err);
    }
  }

  private perform(m: Pick<Member, "work" | "within">, tx: Tx): Promise<unknown> {
    return m.within(async () => {
      const value = await m.work(tx);
      if (this.opts.finish) await this.opts.finish(tx);
      return value;
    });
  }
}
