/**
 * API-key call windows that survive a change of owner. Under NatsPlacement the owner of a
 * mailbox counts calls in memory, as on one node, and writes every call it admitted to
 * `api_key_calls` within FLUSH_MS (one statement for the calls of all its mailboxes,
 * fenced by the lease); an owner activating the mailbox rebuilds its windows from there.
 * A handover (SIGTERM, rebalancing) writes everything of the partition before releasing
 * it, so the next owner's window is exact; a node killed outright loses at most the calls
 * of its last FLUSH_MS. The calls of one key in one flush are one row (`n` calls, migration
 * 0015) at the time of the last of them: a rebuilt window lets them go at most FLUSH_MS
 * later than the owner's own did, never earlier, so it is never more permissive. A row a
 * call was a tenth of the read path's throughput at 24,000 calls a second. Writing each call before answering it was measured at a seventh of
 * the throughput (a database round trip on every request), which is why it is not done.
 * The send window needs nothing here: the actor rebuilds it from the stored outbound mail.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import type { ActorDefinition, CommandMessage } from "../../actors/runtime/index.ts";
import type { MailboxCommands } from "../../actors/mailbox/commands.ts";
import type { WriteContext } from "../../actors/mailbox/types.ts";
import { SlidingWindow, type RateDecision } from "../../actors/mailbox/rate-window.ts";
import type { ManyAdmitted } from "../../actors/mailbox/admission.ts";
import type { Logger } from "../log.ts";
import { currentLease } from "./fence.ts";
import type { PartitionLeases } from "./leases.ts";

/** The calls of one key admitted since the last flush, under one lease. */
interface Calls {
  mailboxId: string;
  keyId: string;
  /** When the last of them was admitted (epoch ms). */
  at: number;
  n: number;
  partition: number;
  epoch: number;
}

/** How long an admitted call may wait in memory before it is written. */
export const FLUSH_MS = 50;
/** Rows a statement carries at most (as arrays: the parameter count does not grow with it). */
const MAX_BATCH = 20_000;

export class CallLog {
  private pending = new Map<string, Calls>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly leases: PartitionLeases,
    private readonly log: Logger,
    /** How long an admitted call may wait; only tests change it (to drive flushes themselves). */
    private readonly flushMs = FLUSH_MS,
  ) {}

  /** Counts `n` admitted calls (one by default); they are written within FLUSH_MS. Outside an actor message, nothing. */
  record(mailboxId: string, keyId: string, at: number, n = 1): void {
    const lease = currentLease();
    if (lease === undefined) return;
    // By key alone while the key's calls are under one lease, which is all but always: the
    // hot read's every call comes here, and a key string made per call showed in its profile.
    const calls = this.pending.get(keyId);
    if (calls !== undefined && calls.partition === lease.partition && calls.epoch === lease.epoch) {
      calls.n += n;
      calls.at = Math.max(calls.at, at);
    } else {
      this.add({ mailboxId, keyId, at, n, partition: lease.partition, epoch: lease.epoch });
    }
    this.schedule();
  }

  /** Adds calls to what is pending: under the key's slot, or under the key and lease when the key's slot holds another lease's. */
  private add(row: Calls): void {
    let slot = row.keyId;
    let calls = this.pending.get(slot);
    if (calls !== undefined && (calls.partition !== row.partition || calls.epoch !== row.epoch)) {
      slot = `${row.keyId}:${row.partition}:${row.epoch}`;
      calls = this.pending.get(slot);
    }
    if (calls) {
      calls.n += row.n;
      calls.at = Math.max(calls.at, row.at);
    } else {
      this.pending.set(slot, { ...row });
    }
  }

  /** A flush within FLUSH_MS, unless one is already due. */
  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush().catch(() => {});
    }, this.flushMs);
  }

  /**
   * Writes everything queued when its turn comes (a handover calls this after the partition
   * stopped taking calls, so all of them are in it). Calls admitted while it writes wait for
   * their own timer: draining until nothing was pending wrote back to back under load, a
   * statement per database round trip (~600 a second), where one per FLUSH_MS does; with
   * 2,000 keys polling, that cost two nodes a quarter of their throughput (bench/cluster-poll.ts).
   */
  flush(): Promise<void> {
    // One write at a time, in order: a flush waits for the one before it.
    const next = this.writing.then(async () => {
      const rows = [...this.pending.values()];
      this.pending.clear();
      for (let i = 0; i < rows.length; i += MAX_BATCH) await this.write(rows.slice(i, i + MAX_BATCH), rows.slice(i + MAX_BATCH));
    });
    this.writing = next.catch(() => {});
    return next;
  }

  async load(mailboxId: string, since: number): Promise<{ keyId: string; at: number; n: number }[]> {
    const rows = rowsOf<{ key_id: string; at: number | string; n: number | string }>(
      await this.db.execute(sql`SELECT key_id, at, n FROM api_key_calls WHERE mailbox_id = ${mailboxId} AND at > ${since} ORDER BY at`),
    );
    return rows.map((r) => ({ keyId: r.key_id, at: Number(r.at), n: Number(r.n) }));
  }

  /** Puts rows that could not be written back, to go with the next flush. */
  private keep(rows: Calls[]): void {
    for (const row of rows) this.add(row);
  }

  /**
   * One statement: the fence (each partition's row FOR SHARE, still this node's at the
   * call's epoch) and the insert of the calls that pass it, committed without waiting for
   * the WAL flush (synchronous_commit off for this transaction only: a node killed after the
   * statement loses nothing; only a crash of the database server could forget its last
   * fraction of a second of calls). The rows go as six array parameters, so the statement's
   * text is the same whatever the batch (prepared once) and building it costs nothing per
   * call: a VALUES list of five parameters a call was most of the read path's CPU under load.
   */
  private async write(batch: Calls[], after: Calls[]): Promise<void> {
    const parts = [...new Set(batch.map((c) => c.partition))];
    try {
      const rows = rowsOf<{ n: number | string }>(
        await this.db.execute(sql`
          WITH cfg AS (SELECT set_config('synchronous_commit', 'off', true) AS s),
          held AS (SELECT partition, epoch FROM cluster_partitions WHERE partition = ANY(${arrayLiteral(parts)}::int[]) AND owner = ${this.leases.self} FOR SHARE),
          calls AS (
            SELECT * FROM unnest(${arrayLiteral(batch.map((c) => c.mailboxId))}::uuid[], ${arrayLiteral(batch.map((c) => c.keyId))}::uuid[], ${arrayLiteral(batch.map((c) => c.at))}::float8[], ${arrayLiteral(batch.map((c) => c.n))}::int[], ${arrayLiteral(batch.map((c) => c.partition))}::int[], ${arrayLiteral(batch.map((c) => c.epoch))}::bigint[])
              AS c (mailbox_id, key_id, at, n, partition, epoch)
          ),
          ins AS (
            INSERT INTO api_key_calls (mailbox_id, key_id, at, n)
            SELECT c.mailbox_id, c.key_id, c.at, c.n FROM calls c JOIN held h ON h.partition = c.partition AND h.epoch = c.epoch CROSS JOIN cfg
            RETURNING n
          )
          SELECT coalesce(sum(n), 0) AS n FROM ins`),
      );
      const written = Number(rows[0]?.n ?? 0);
      const calls = batch.reduce((n, c) => n + c.n, 0);
      if (written < calls) this.log.warn({ refused: calls - written }, "calls of mailboxes whose lease was lost are not recorded");
    } catch (err) {
      // Kept for the next flush: a window must not forget calls because of one failed write.
      this.keep(batch);
      this.keep(after);
      this.log.warn({ err, rows: batch.length }, "could not record API-key calls; retrying");
      this.schedule();
      throw err;
    }
  }
}

/**
 * The mailbox actor with durable call windows: every admitted call is recorded; activation
 * rebuilds the windows from the calls still inside them.
 */
export type MailboxDefinition = ActorDefinition<WriteContext, CommandMessage<MailboxCommands>, unknown>;

export function durableWindows(def: MailboxDefinition, log: CallLog, rateLimit: { limit: number; windowMs: number }): MailboxDefinition {
  const note = (id: string, keyId: string, at: number, decision: unknown) => {
    if ((decision as RateDecision).allowed) log.record(id, keyId, at);
    return decision;
  };
  const noteMany = (id: string, keyId: string, at: number, admitted: ManyAdmitted) => {
    if (admitted.granted > 0) log.record(id, keyId, at, admitted.granted);
    return admitted;
  };
  return {
    ...def,
    async activate(id) {
      const ctx = await def.activate(id);
      const state = ctx.state;
      const wallNow = Date.now();
      const monoNow = performance.now();
      for (const call of await log.load(id, wallNow - rateLimit.windowMs)) {
        let window = state.windows.get(call.keyId);
        if (!window) {
          window = new SlidingWindow(rateLimit.limit, rateLimit.windowMs);
          state.windows.set(call.keyId, window);
        }
        // The window runs on the monotonic clock: a call's age is what carries over.
        for (let i = 0; i < call.n; i++) window.record(monoNow - (wallNow - call.at));
      }
      return ctx;
    },
    handle(state, msg, ctx) {
      const reply = def.handle(state, msg, ctx);
      if (msg.name === "admitMany") {
        const keyId = msg.args[0] as string;
        const at = Date.now();
        return reply instanceof Promise ? reply.then((r) => noteMany(ctx.id, keyId, at, r as ManyAdmitted)) : noteMany(ctx.id, keyId, at, reply as ManyAdmitted);
      }
      if (msg.name !== "admit" && msg.name !== "admitRuntime" && msg.name !== "poll") return reply;
      const keyId = msg.args[0] as string;
      const at = Date.now();
      // `admit` of a plain key answers synchronously (the hot path); a runtime key's awaits.
      return reply instanceof Promise ? reply.then((d) => note(ctx.id, keyId, at, d)) : note(ctx.id, keyId, at, reply);
    },
  };
}

/**
 * A PostgreSQL array literal of uuids or numbers, sent as one text parameter (the same with
 * every driver, where a JS array parameter is not). Only ids the actor runtime already
 * normalised (lower-case UUIDs) and finite numbers reach it: nothing to quote.
 */
function arrayLiteral(items: readonly (string | number)[]): string {
  return `{${items.join(",")}}`;
}
