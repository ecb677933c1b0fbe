/**
 * API-key call windows that survive a change of owner. Under NatsPlacement the owner of a
 * mailbox writes every call it admits to `api_key_calls` before answering (one group commit
 * for the calls of all mailboxes admitted meanwhile, fenced like any actor write), and an
 * owner activating the mailbox rebuilds its windows from there: a failover neither resets
 * a window nor forgets a call that was answered. The send window needs nothing here: the
 * actor already rebuilds it from the stored outbound messages.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import { NotOwnerError, type ActorDefinition } from "../../actors/runtime/index.ts";
import type { MailboxCommand, MailboxState } from "../../actors/mailbox/types.ts";
import { SlidingWindow, type RateDecision } from "../../actors/mailbox/rate-window.ts";
import { currentLease } from "./fence.ts";
import type { PartitionLeases } from "./leases.ts";

interface PendingCall {
  mailboxId: string;
  keyId: string;
  at: number;
  partition: number;
  epoch: number;
  resolve(): void;
  reject(err: unknown): void;
}

const MAX_BATCH = 5000;

/** Calls written in batches: while one insert runs, the next batch gathers. */
export class CallLog {
  private queue: PendingCall[] = [];
  private flushing = false;

  constructor(
    private readonly db: Db,
    private readonly leases: PartitionLeases,
  ) {}

  record(mailboxId: string, keyId: string, at: number): Promise<void> {
    const lease = currentLease();
    if (lease === undefined) return Promise.reject(new NotOwnerError("mailbox", mailboxId));
    return new Promise((resolve, reject) => {
      this.queue.push({ mailboxId, keyId, at, partition: lease.partition, epoch: lease.epoch, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  async load(mailboxId: string, since: number): Promise<{ keyId: string; at: number }[]> {
    const rows = rowsOf<{ key_id: string; at: number | string }>(
      await this.db.execute(sql`SELECT key_id, at FROM api_key_calls WHERE mailbox_id = ${mailboxId} AND at > ${since} ORDER BY at`),
    );
    return rows.map((r) => ({ keyId: r.key_id, at: Number(r.at) }));
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        // Three parameters a call: well under PostgreSQL's 65,535 per statement.
        const batch = this.queue.splice(0, MAX_BATCH);
        await this.write(batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async write(batch: PendingCall[]): Promise<void> {
    const fences = new Map<number, number>();
    for (const c of batch) fences.set(c.partition, c.epoch);
    let refused: PendingCall[] = [];
    try {
      await this.db.transaction(async (tx) => {
        const held = await this.leases.checkFences(tx, fences);
        const kept = batch.filter((c) => held.has(c.partition) && fences.get(c.partition) === c.epoch);
        refused = batch.filter((c) => !kept.includes(c));
        if (kept.length === 0) return;
        const values = kept.map((c) => sql`(${c.mailboxId}::uuid, ${c.keyId}::uuid, ${c.at}::float8)`);
        await tx.execute(sql`INSERT INTO api_key_calls (mailbox_id, key_id, at) VALUES ${sql.join(values, sql`, `)}`);
      });
    } catch (err) {
      for (const c of batch) c.reject(err);
      return;
    }
    for (const c of batch) {
      if (refused.includes(c)) c.reject(new NotOwnerError("mailbox", c.mailboxId, "the lease was lost before the call was recorded"));
      else c.resolve();
    }
  }
}

/**
 * The mailbox actor with durable call windows: `admit` answers only once an admitted call is
 * written; activation rebuilds the windows from the calls still inside them.
 */
export function durableWindows(
  def: ActorDefinition<MailboxState, MailboxCommand, unknown>,
  log: CallLog,
  rateLimit: { limit: number; windowMs: number },
): ActorDefinition<MailboxState, MailboxCommand, unknown> {
  return {
    ...def,
    async activate(id) {
      const state = await def.activate(id);
      const wallNow = Date.now();
      const monoNow = performance.now();
      for (const call of await log.load(id, wallNow - rateLimit.windowMs)) {
        let window = state.windows.get(call.keyId);
        if (!window) {
          window = new SlidingWindow(rateLimit.limit, rateLimit.windowMs);
          state.windows.set(call.keyId, window);
        }
        // The window runs on the monotonic clock: a call's age is what carries over.
        window.record(monoNow - (wallNow - call.at));
      }
      return state;
    },
    handle(state, cmd, ctx) {
      const reply = def.handle(state, cmd, ctx);
      if (cmd.type !== "admit") return reply;
      const at = Date.now();
      return Promise.resolve(reply).then(async (decision) => {
        if ((decision as RateDecision).allowed) await log.record(ctx.id, cmd.keyId, at);
        return decision;
      });
    },
  };
}
