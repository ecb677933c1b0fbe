/**
 * Partition leases in PostgreSQL: which node owns which mailboxes, with a fencing epoch.
 *
 * Mailboxes hash to PARTITIONS partitions. Each node, every tick (a third of a lease):
 * - heartbeats its `cluster_nodes` row and renews the leases it holds (one statement);
 * - reads every partition's owner and the live nodes;
 * - computes the wanted owner of each partition by rendezvous hashing over the live,
 *   non-draining nodes (a node joining or leaving moves only its share);
 * - releases what it holds but another live node should hold (after draining it), and
 *   takes what it should hold once free or expired, raising the epoch.
 *
 * A node serves a partition only while its own clock says the lease it last renewed is
 * still valid (the renewal's send time + lease, less a margin), so a frozen node stops
 * serving before anyone may take over. What it writes commits only through `checkFence`,
 * run in the same transaction as the write: the partition row must still name this node
 * and its epoch, read FOR SHARE, so a takeover (an UPDATE of that row) waits for writes of
 * the old owner in flight, and any write after it fails.
 */
import { sql } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import { NotOwnerError, type Ownership } from "../../actors/runtime/index.ts";
import type { Logger } from "../log.ts";

export const PARTITIONS = 64;

/** The partition of a mailbox id (lower case, as the mailbox client sends it). */
export function partitionOf(id: string): number {
  return fnv1a(id) % PARTITIONS;
}

export interface LeaseHooks {
  /** Stop and passivate the partition's actors (it is out of held() already). */
  drain(partition: number): Promise<void>;
  /** A partition was released: tell the others to look now. */
  released(): void;
}

interface Held {
  epoch: number;
  /** performance.now() until which this node may serve it. */
  validUntil: number;
}

export class PartitionLeases implements Ownership {
  readonly self: string;
  private readonly held_ = new Map<number, Held>();
  /** Partitions being handed over: not served here any more, not yet released. */
  private readonly releasing = new Set<number>();
  private readonly releases = new Map<number, Promise<void>>();
  private readonly owners: (string | undefined)[] = new Array(PARTITIONS).fill(undefined);
  private readonly leaseMs: number;
  private readonly marginMs: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private draining = false;
  private stopped = false;
  private hooks: LeaseHooks = { drain: async () => {}, released: () => {} };
  private lastPurge = 0;

  constructor(
    private readonly db: Db,
    private readonly opts: { nodeId: string; leaseMs: number; log: Logger; rateWindowMs: number },
  ) {
    this.self = `${opts.nodeId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 48)}-${crypto.randomUUID().slice(0, 8)}`;
    this.leaseMs = opts.leaseMs;
    this.marginMs = Math.max(200, opts.leaseMs / 5);
  }

  setHooks(hooks: LeaseHooks): void {
    this.hooks = hooks;
  }

  partitionOf(id: string): number {
    return partitionOf(id);
  }

  held(partition: number): number | undefined {
    const h = this.held_.get(partition);
    if (h === undefined || this.releasing.has(partition) || performance.now() >= h.validUntil) return undefined;
    return h.epoch;
  }

  ownerOf(partition: number): string | undefined {
    return this.owners[partition];
  }

  /** Partitions this node holds now (for tests and /health). */
  heldPartitions(): number[] {
    return [...this.held_.keys()].filter((p) => this.held(p) !== undefined);
  }

  async start(): Promise<void> {
    await this.db.execute(sql`INSERT INTO cluster_partitions (partition) SELECT generate_series(0, ${PARTITIONS - 1}) ON CONFLICT DO NOTHING`);
    await this.refresh();
    // A second tick at once: the first only announced this node; now it takes its share.
    await this.refresh();
  }

  refresh(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = this.tick()
      .catch((err) => this.opts.log.warn({ err }, "cluster lease tick failed"))
      .finally(() => {
        this.ticking = undefined;
        if (this.stopped) return;
        if (this.again) {
          this.again = false;
          void this.refresh();
        } else this.schedule();
      });
    return this.ticking;
  }

  /**
   * SIGTERM: take no new share, drain and release everything held, and tell the others, so
   * they take over at once instead of after the lease.
   */
  async handOver(): Promise<void> {
    this.draining = true;
    await this.refresh();
    const mine = [...this.held_.keys()];
    await Promise.all(mine.map((p) => this.release(p)));
    this.opts.log.info({ partitions: mine.length }, "cluster: handed over every partition");
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.ticking;
    const mine = [...this.held_.keys()];
    this.held_.clear();
    try {
      if (mine.length > 0) await this.db.execute(sql`UPDATE cluster_partitions SET owner = NULL, expires_at = 'epoch' WHERE owner = ${this.self}`);
      await this.db.execute(sql`DELETE FROM cluster_nodes WHERE node_id = ${this.self}`);
    } catch (err) {
      this.opts.log.warn({ err }, "cluster: could not clear this node's rows; they expire by themselves");
    }
  }

  /**
   * In the transaction of an actor's write, before it commits: refuses it unless this node
   * still holds `partition` at `epoch`. The row stays share-locked until commit, so no
   * takeover can slip in between. A frozen node cannot hold that lock for long either:
   * past a few seconds idle in the transaction the server ends its session.
   */
  async checkFence(tx: Tx, partition: number, epoch: number, id: string): Promise<void> {
    const rows = rowsOf<{ epoch: string | number }>(
      await tx.execute(
        sql`SELECT set_config('idle_in_transaction_session_timeout', ${String(Math.max(2000, this.leaseMs))}, true) AS t, epoch FROM cluster_partitions WHERE partition = ${partition} AND owner = ${this.self} FOR SHARE`,
      ),
    );
    if (rows.length === 0 || Number(rows[0]!.epoch) !== epoch) {
      this.opts.log.warn({ mailbox_id: id, partition, epoch }, "write refused: this node no longer holds the mailbox's lease");
      throw new NotOwnerError("mailbox", id, "the lease was lost before the write committed; nothing was written");
    }
  }

  /** Epochs of several partitions at once, for writes that span them (the call log). */
  async checkFences(tx: Tx, fences: Map<number, number>): Promise<Set<number>> {
    const parts = [...fences.keys()];
    const rows = rowsOf<{ partition: number; epoch: string | number }>(
      await tx.execute(
        sql`SELECT partition, epoch FROM cluster_partitions WHERE partition IN (${sql.join(parts.map((p) => sql`${p}`), sql`, `)}) AND owner = ${this.self} FOR SHARE`,
      ),
    );
    const ok = new Set<number>();
    for (const r of rows) if (fences.get(Number(r.partition)) === Number(r.epoch)) ok.add(Number(r.partition));
    return ok;
  }

  private schedule(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), Math.max(100, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const leaseMs = this.leaseMs;
    const sentAt = performance.now();
    const rows = rowsOf<{ partition: number; owner: string | null; live: boolean; renewed: string | number | null }>(
      await this.db.execute(sql`
        WITH hb AS (
          INSERT INTO cluster_nodes (node_id, heartbeat_at, draining) VALUES (${this.self}, now(), ${this.draining})
          ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = now(), draining = EXCLUDED.draining
        ), renew AS (
          UPDATE cluster_partitions SET expires_at = now() + make_interval(secs => ${leaseMs / 1000})
          WHERE owner = ${this.self} RETURNING partition, epoch
        )
        SELECT p.partition, p.owner, p.expires_at > now() AS live, r.epoch AS renewed
        FROM cluster_partitions p LEFT JOIN renew r ON r.partition = p.partition`),
    );
    const nodes = rowsOf<{ node_id: string }>(
      await this.db.execute(sql`SELECT node_id FROM cluster_nodes WHERE heartbeat_at > now() - make_interval(secs => ${leaseMs / 1000}) AND NOT draining`),
    ).map((r) => r.node_id);
    if (!this.draining && !nodes.includes(this.self)) nodes.push(this.self);

    const free: number[] = [];
    const release: number[] = [];
    for (const row of rows) {
      const p = Number(row.partition);
      if (p < 0 || p >= PARTITIONS) continue;
      if (row.renewed !== null && row.owner === this.self) {
        this.held_.set(p, { epoch: Number(row.renewed), validUntil: sentAt + leaseMs - this.marginMs });
      } else if (this.held_.has(p) && !this.releasing.has(p)) {
        this.lose(p);
      }
      this.owners[p] = row.owner !== null && row.live ? row.owner : undefined;
      const wanted = rendezvous(nodes, p);
      const mine = this.held_.has(p);
      if (mine && wanted !== undefined && wanted !== this.self && !this.releasing.has(p)) release.push(p);
      if (!mine && wanted === this.self && !this.draining && (row.owner === null || !row.live)) free.push(p);
    }
    if (free.length > 0) await this.acquire(free);
    for (const p of release) void this.release(p);
    if (Date.now() - this.lastPurge > 60_000) {
      this.lastPurge = Date.now();
      await this.db.execute(sql`DELETE FROM api_key_calls WHERE at < ${Date.now() - this.opts.rateWindowMs}`);
    }
  }

  private async acquire(partitions: number[]): Promise<void> {
    const sentAt = performance.now();
    const rows = await this.db.transaction(async (tx) => {
      // A takeover waits for the old owner's writes in flight (their FOR SHARE), but not forever.
      await tx.execute(sql`SET LOCAL lock_timeout = '1s'`);
      return rowsOf<{ partition: number; epoch: string | number }>(
        await tx.execute(sql`
          UPDATE cluster_partitions SET owner = ${this.self}, epoch = epoch + 1, expires_at = now() + make_interval(secs => ${this.leaseMs / 1000})
          WHERE partition IN (${sql.join(partitions.map((p) => sql`${p}`), sql`, `)}) AND (owner IS NULL OR expires_at <= now())
          RETURNING partition, epoch`),
      );
    });
    for (const r of rows) {
      const p = Number(r.partition);
      this.held_.set(p, { epoch: Number(r.epoch), validUntil: sentAt + this.leaseMs - this.marginMs });
      this.owners[p] = this.self;
    }
    if (rows.length > 0) this.opts.log.info({ partitions: rows.map((r) => Number(r.partition)), node: this.self }, "cluster: partitions taken");
  }

  /** Drains and releases one partition; a second call while it runs shares the first. */
  private release(p: number): Promise<void> {
    const running = this.releases.get(p);
    if (running) return running;
    const h = this.held_.get(p);
    if (h === undefined) return Promise.resolve();
    this.releasing.add(p);
    const done = (async () => {
      try {
        await this.hooks.drain(p);
        await this.db.execute(sql`UPDATE cluster_partitions SET owner = NULL, expires_at = 'epoch' WHERE partition = ${p} AND owner = ${this.self} AND epoch = ${h.epoch}`);
        this.owners[p] = undefined;
        this.hooks.released();
      } catch (err) {
        this.opts.log.warn({ err, partition: p }, "cluster: could not release a partition; its lease expires by itself");
      } finally {
        this.held_.delete(p);
        this.releasing.delete(p);
        this.releases.delete(p);
      }
    })();
    this.releases.set(p, done);
    return done;
  }

  /** The lease is gone (expired, or taken): stop serving and drop the actors' memory. */
  private lose(p: number): void {
    this.held_.delete(p);
    this.opts.log.warn({ partition: p }, "cluster: lease lost");
    this.releasing.add(p);
    void this.hooks
      .drain(p)
      .catch(() => {})
      .finally(() => this.releasing.delete(p));
  }
}

/** The live node with the highest hash for the partition: stable, and a change moves only its share. */
function rendezvous(nodes: string[], p: number): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const n of nodes) {
    const score = mix(fnv1a(n) ^ Math.imul(p + 1, 0x9e3779b1));
    if (score > bestScore || (score === bestScore && best !== undefined && n < best)) {
      best = n;
      bestScore = score;
    }
  }
  return best;
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
