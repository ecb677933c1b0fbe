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
 *
 * The rows are scoped by cluster (the NATS prefix): nodes can only forward to nodes of their
 * own prefix, so deployments (or tests) with different prefixes on one database lease their
 * partitions apart. Statements naming this node's own id need no scope: ids are unique.
 *
 * Under NATS a node also serves only while its NATS connection was proven alive within
 * PROVEN_MS (a PING it sent since then was answered), which lets the others take over a
 * dead node's partitions well before its lease runs out: see `unreachable`.
 */
import { sql } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import { NotOwnerError, type Ownership } from "../../actors/runtime/index.ts";
import type { Logger } from "../log.ts";

export const PARTITIONS = 64;

/** A node serves a partition only while a PING it sent within this long was answered. */
export const PROVEN_MS = 1000;
/**
 * After this node's NATS connection changed (lost or remade), what it holds is served again
 * only on a renewal sent at least this long later; and a takeover proceeds only if its read
 * of the dead node's leases came back within this long of the request that found it gone.
 */
export const RECONNECT_HOLD_MS = 1000;
/** Waited on top of PROVEN_MS before an early takeover (timers and clocks are not exact). */
const TAKEOVER_SLACK_MS = 100;

/** What the leases need of the node's NATS connection (NatsPlacement provides it). */
export interface Reachability {
  /** This node's subject was served by the NATS server at some moment after `since`. */
  reachableSince(since: number): boolean;
  /** Whether the NATS server has a subscriber for `node`'s subject now. */
  probe(node: string): Promise<"absent" | "present" | "unknown">;
}

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
  private reach: Reachability | undefined;
  /** Renewals sent before this (performance.now()) do not make a partition servable (see connectionChanged). */
  private renewAfter = -Infinity;
  private readonly takeovers = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Db,
    /** `cluster`: the NATS prefix; clusters on one database lease apart (nodes can only forward within one). */
    private readonly opts: { cluster: string; nodeId: string; leaseMs: number; log: Logger; rateWindowMs: number },
  ) {
    this.self = `${opts.nodeId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 48)}-${crypto.randomUUID().slice(0, 8)}`;
    this.leaseMs = opts.leaseMs;
    this.marginMs = Math.max(200, opts.leaseMs / 5);
  }

  setHooks(hooks: LeaseHooks): void {
    this.hooks = hooks;
  }

  /** Under NATS: serving is conditional on the node's connection, and dead nodes are taken over early. */
  setReachability(reach: Reachability): void {
    this.reach = reach;
  }

  /**
   * This node's NATS connection was lost or remade: nothing is served until a PING on the
   * new connection is answered (its subscription is then on the server) and a renewal sent
   * RECONNECT_HOLD_MS after that confirms the leases (see `unreachable` for why the wait).
   */
  connectionChanged(): void {
    this.renewAfter = Infinity;
    for (const h of this.held_.values()) h.validUntil = 0;
  }

  /** The first PING on a new connection was answered. */
  connectionProven(): void {
    this.renewAfter = performance.now() + RECONNECT_HOLD_MS;
    if (!this.stopped) setTimeout(() => void this.refresh(), RECONNECT_HOLD_MS + 10).unref?.();
  }

  /**
   * The NATS server had no subscriber for `node`'s subject when a request queued at `sentAt`
   * reached it (answered at `seenAt`): the node's connection is gone, most likely the node
   * with it. Its partitions are taken over without waiting for its leases to run out, once
   * that is safe:
   *
   * 1. Read its leases (owner, epoch, expires_at). The read must come back within
   *    RECONNECT_HOLD_MS of `sentAt`, else give up (the lease expiry still applies).
   * 2. Wait until PROVEN_MS (and a margin) after `seenAt`, then probe its subject again: it
   *    must still have no subscriber, else it is back and keeps its partitions.
   * 3. Take each partition in one UPDATE conditional on the owner, epoch AND expires_at read
   *    in step 1, raising the epoch as any takeover does; drop the node's heartbeat row.
   *
   * Why no message of that node runs on its memory after step 3 commits, though its own
   * clock may say its lease is still valid: to serve, a node needs (a) a PING sent within
   * PROVEN_MS answered on its current connection and (b) a lease renewal sent after that
   * connection came up plus RECONNECT_HOLD_MS (held()). The server answered "no responders"
   * at some moment T ≤ seenAt, so the node's subscription was not on the server then.
   * - If the connection it then had was already closed at T, no PING it sent after T was
   *   answered on it, so by (a) it stopped serving by T + PROVEN_MS < the commit of step 3.
   * - Otherwise its subscription reached the server after T on a new connection; the node
   *   counts that connection only once a PING sent after its subscription is answered, so by
   *   (b) its first renewal that counts is sent after T + RECONNECT_HOLD_MS ≥ sentAt +
   *   RECONNECT_HOLD_MS, i.e. after the read of step 1 came back. Any renewal changes expires_at: if it ran before step 3, step 3
   *   matches nothing; if after, the renewal finds another owner and the node loses the lease.
   * A node whose connection is alive is never taken over this way (no "no responders"); a
   * frozen (SIGSTOP) one keeps its connection open, so it keeps the lease-expiry bound, and
   * after it resumes (a) refuses until a new PING is answered. Its writes are fenced
   * regardless (checkFence). The argument takes "no responders" as saying the node's
   * subscription is not on the server: true of one nats-server, and of a cluster of servers
   * whose routes are up.
   */
  unreachable(node: string, sentAt: number, seenAt: number): void {
    if (node === this.self || this.stopped || this.draining || this.reach === undefined || this.takeovers.has(node)) return;
    const run = this.takeOver(node, sentAt, seenAt)
      .catch((err) => this.opts.log.warn({ err, node }, "cluster: early takeover failed; the lease expiry still applies"))
      .finally(() => this.takeovers.delete(node));
    this.takeovers.set(node, run);
  }

  private async takeOver(node: string, sentAt: number, seenAt: number): Promise<void> {
    const leases = rowsOf<{ partition: number; epoch: string | number; expires: string; heartbeat: string | null }>(
      await this.db.execute(sql`
        SELECT p.partition, p.epoch, p.expires_at::text AS expires, n.heartbeat_at::text AS heartbeat
        FROM cluster_partitions p LEFT JOIN cluster_nodes n ON n.node_id = p.owner
        WHERE p.owner = ${node} AND p.expires_at > now()`),
    );
    if (leases.length === 0 || performance.now() - sentAt >= RECONNECT_HOLD_MS) return;
    const wait = seenAt + PROVEN_MS + TAKEOVER_SLACK_MS - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    if (this.stopped || this.draining || (await this.reach!.probe(node)) !== "absent") return;
    const sent = performance.now();
    const values = sql.join(
      leases.map((l) => sql`(${Number(l.partition)}::int, ${Number(l.epoch)}::bigint, ${l.expires}::timestamptz)`),
      sql`, `,
    );
    const heartbeat = leases[0]!.heartbeat;
    const taken = await this.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL lock_timeout = '1s'`);
      const rows = rowsOf<{ partition: number; epoch: string | number }>(
        await tx.execute(sql`
          UPDATE cluster_partitions p SET owner = ${this.self}, epoch = p.epoch + 1, expires_at = now() + make_interval(secs => ${this.leaseMs / 1000})
          FROM (VALUES ${values}) AS v(partition, epoch, expires)
          WHERE p.partition = v.partition AND p.owner = ${node} AND p.epoch = v.epoch AND p.expires_at = v.expires
          RETURNING p.partition, p.epoch`),
      );
      // Gone with its partitions: no node counts it live (and wants its share back) any more.
      if (rows.length > 0 && heartbeat !== null) await tx.execute(sql`DELETE FROM cluster_nodes WHERE node_id = ${node} AND heartbeat_at = ${heartbeat}::timestamptz`);
      return rows;
    });
    for (const r of taken) {
      const p = Number(r.partition);
      this.held_.set(p, { epoch: Number(r.epoch), validUntil: sent >= this.renewAfter ? sent + this.leaseMs - this.marginMs : 0 });
      this.owners[p] = this.self;
    }
    if (taken.length > 0) {
      this.opts.log.info({ partitions: taken.map((r) => Number(r.partition)), from: node, node: this.self }, "cluster: partitions of an unreachable node taken");
      this.hooks.released();
    }
  }

  partitionOf(id: string): number {
    return partitionOf(id);
  }

  held(partition: number): number | undefined {
    const h = this.held_.get(partition);
    if (h === undefined || this.releasing.has(partition)) return undefined;
    const now = performance.now();
    if (now >= h.validUntil || (this.reach !== undefined && !this.reach.reachableSince(now - PROVEN_MS))) return undefined;
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
    await this.db.execute(sql`INSERT INTO cluster_partitions (cluster, partition) SELECT ${this.opts.cluster}, generate_series(0, ${PARTITIONS - 1}) ON CONFLICT DO NOTHING`);
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
          INSERT INTO cluster_nodes (cluster, node_id, heartbeat_at, draining) VALUES (${this.opts.cluster}, ${this.self}, now(), ${this.draining})
          ON CONFLICT (cluster, node_id) DO UPDATE SET heartbeat_at = now(), draining = EXCLUDED.draining
        ), renew AS (
          UPDATE cluster_partitions SET expires_at = now() + make_interval(secs => ${leaseMs / 1000})
          WHERE owner = ${this.self} RETURNING partition, epoch
        )
        SELECT p.partition, p.owner, p.expires_at > now() AS live, r.epoch AS renewed
        FROM cluster_partitions p LEFT JOIN renew r ON r.partition = p.partition WHERE p.cluster = ${this.opts.cluster}`),
    );
    const nodes = rowsOf<{ node_id: string }>(
      await this.db.execute(sql`SELECT node_id FROM cluster_nodes WHERE cluster = ${this.opts.cluster} AND heartbeat_at > now() - make_interval(secs => ${leaseMs / 1000}) AND NOT draining`),
    ).map((r) => r.node_id);
    if (!this.draining && !nodes.includes(this.self)) nodes.push(this.self);

    const free: number[] = [];
    const release: number[] = [];
    for (const row of rows) {
      const p = Number(row.partition);
      if (p < 0 || p >= PARTITIONS) continue;
      if (row.renewed !== null && row.owner === this.self) {
        this.held_.set(p, { epoch: Number(row.renewed), validUntil: sentAt >= this.renewAfter ? sentAt + leaseMs - this.marginMs : 0 });
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
          WHERE cluster = ${this.opts.cluster} AND partition IN (${sql.join(partitions.map((p) => sql`${p}`), sql`, `)}) AND (owner IS NULL OR expires_at <= now())
          RETURNING partition, epoch`),
      );
    });
    for (const r of rows) {
      const p = Number(r.partition);
      this.held_.set(p, { epoch: Number(r.epoch), validUntil: sentAt >= this.renewAfter ? sentAt + this.leaseMs - this.marginMs : 0 });
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
