/**
 * The fence around a mailbox actor's writes under NatsPlacement, in two pieces and nowhere
 * else (no handler knows about it):
 * - `fencedActor` runs each message of an actor with the lease it started under (partition
 *   and epoch) in async context, and refuses to start one when this node does not hold the
 *   lease (NotOwnerError: nothing ran, the placement asks the owner);
 * - `fencedDb` is the database the actor writes through: every transaction it opens runs
 *   `checkFence` last, before its commit, and every bare insert/update/delete runs inside
 *   such a transaction. A node that lost its lease (frozen, partitioned, slow) therefore
 *   never commits a write for that mailbox: its transaction reads another owner or epoch
 *   and rolls back.
 * Work the actor hands to a shared commit (db/shared-commit.ts) checks the same fence with
 * `checkLeaseFence`, in the shared transaction.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Db, Tx } from "../../db/client.ts";
import { NotOwnerError, type ActorDefinition } from "../../actors/runtime/index.ts";
import type { PartitionLeases } from "./leases.ts";

export interface LeaseContext {
  id: string;
  partition: number;
  epoch: number;
}

const current = new AsyncLocalStorage<LeaseContext>();

/** The lease the running actor message started under; undefined outside one. */
export const currentLease = (): LeaseContext | undefined => current.getStore();

export function fencedActor<S, M, R>(def: ActorDefinition<S, M, R>, leases: PartitionLeases): ActorDefinition<S, M, R> {
  const leaseOf = (kind: string, id: string): LeaseContext => {
    const partition = leases.partitionOf(id);
    const epoch = leases.held(partition);
    if (epoch === undefined) throw new NotOwnerError(kind, id);
    return { id, partition, epoch };
  };
  const wrapped: ActorDefinition<S, M, R> = {
    ...def,
    handle: (state, msg, ctx) => current.run(leaseOf(ctx.kind, ctx.id), () => def.handle(state, msg, ctx)),
  };
  if (def.read) {
    const read = def.read.bind(def);
    // Not held: no answer from memory; `handle` then refuses with NotOwnerError.
    wrapped.read = (state, msg) => (leases.held(leases.partitionOf(idOf(state))) === undefined ? undefined : read(state, msg));
  }
  if (def.handleBatch) {
    const batch = def.handleBatch.bind(def);
    wrapped.handleBatch = (state, msgs, ctx) => current.run(leaseOf(ctx.kind, ctx.id), () => batch(state, msgs, ctx));
  }
  return wrapped;
}

/** The actor's state names its id only through the mailbox row it keeps (`{state: {mailbox}}`). */
function idOf(state: unknown): string {
  const s = state as { mailbox?: { id?: string }; state?: { mailbox?: { id?: string } } };
  return ((s.mailbox ?? s.state?.mailbox)?.id ?? "").toLowerCase();
}

/** The fence of the lease the running actor message started under, checked in `tx` (nothing outside one). */
export function checkLeaseFence(leases: PartitionLeases): (tx: Tx) => Promise<void> {
  return async (tx) => {
    const lease = current.getStore();
    if (lease !== undefined) await leases.checkFence(tx, lease.partition, lease.epoch, lease.id);
  };
}

const WRITES = new Set(["insert", "update", "delete"]);

export function fencedDb(db: Db, leases: PartitionLeases): Db {
  const transaction = (fn: (tx: Tx) => Promise<unknown>, config?: unknown) => {
    const lease = current.getStore();
    if (lease === undefined) return db.transaction(fn, config as never);
    return db.transaction(async (tx) => {
      const result = await fn(tx);
      await leases.checkFence(tx, lease.partition, lease.epoch, lease.id);
      return result;
    }, config as never);
  };
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === "transaction") return transaction;
      if (typeof prop === "string" && WRITES.has(prop)) {
        return (...args: unknown[]) => (current.getStore() === undefined ? (target as any)[prop](...args) : deferredWrite(transaction, [[prop, args]]));
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

type Call = [string | symbol, unknown[]];

/**
 * A bare write (`db.update(t).set(…).where(…).returning()`) built on a recorder: the calls
 * are replayed on a fenced transaction when the statement is awaited.
 */
function deferredWrite(transaction: (fn: (tx: Tx) => Promise<unknown>) => Promise<unknown>, calls: Call[]): unknown {
  const run = () =>
    transaction(async (tx) => {
      let q: any = tx;
      for (const [name, args] of calls) q = q[name](...args);
      return await q;
    });
  return new Proxy(function () {}, {
    get(_t, prop) {
      if (prop === "then") {
        return (ok: (v: unknown) => unknown, fail: (e: unknown) => unknown) => run().then(ok, fail);
      }
      if (prop === "catch") return (fail: (e: unknown) => unknown) => run().catch(fail);
      if (prop === "finally") return (f: () => void) => run().finally(f);
      if (prop === "execute") return () => run();
      return (...args: unknown[]) => deferredWrite(transaction, [...calls, [prop, args]]);
    },
  });
}
