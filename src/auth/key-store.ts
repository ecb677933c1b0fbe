import { eq, gt } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { apiKeys } from "../../db/schema/index.ts";

export interface KeyRecord {
  id: string;
  mailboxId: string;
  status: "active" | "revoked";
  /** A key issued with an agent-runtime binding: its permission tier and policy mode apply. */
  runtime?: boolean;
  digest: Buffer;
}

interface Entry {
  record: KeyRecord | null;
  expiresAt: number;
  /** Until when an active key may be kept while the revocation watch runs (see watchRevocations). */
  keptUntil: number;
  /** The watch's generation when it was filled: a gap in the watch ends every entry before it. */
  generation: number;
}

const MAX_ENTRIES = 100_000;
/** How long an active key is kept while the revocation watch keeps up. */
const KEEP_MS = 10 * 60_000;
/** A watch older than this no longer vouches for kept keys: they fall back to `ttlMs`. */
const WATCH_VALID_MS = 900;
/** Revocations are read again this far back: a revoke stamped by a node's clock commits a little later. */
const WATCH_OVERLAP_MS = 10_000;
/**
 * A pause of the watch longer than this could let a revocation slip past the overlap above:
 * what was kept before it is forgotten. A shorter one (a loaded machine, a slow query) costs
 * nothing: the next read covers the pause, so the kept keys stay.
 */
const WATCH_GAP_MS = WATCH_OVERLAP_MS / 2;

/**
 * Read-through cache of API keys for the authentication hot path.
 *
 * Two promises hold whatever the timing:
 * - no entry outlives `ttlMs` (at most one second), so a revoke on another node is seen
 *   within a second even if its broadcast is lost; except an active key while the
 *   revocation watch (watchRevocations) keeps up, which reads every revocation a few times a
 *   second and so gives the same bound without a query per key;
 * - a revoke is never overwritten by a stale fill: every invalidation bumps `epoch`, and a
 *   fill that started before it is not stored; a cached `revoked` is never replaced by an
 *   `active` (revocation is final).
 * Concurrent misses for one key share one query.
 */
export class KeyStore {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<KeyRecord | null>>();
  private epoch = 0;
  private generation = 0;
  /** performance.now() until which the watch vouches for every revocation committed before it read. */
  private watchedUntil = 0;
  /** When the last successful read of revocations started. */
  private lastReadAt = -Infinity;
  /** The read of revocations under way (resolves with when it started): concurrent callers share it. */
  private reading: Promise<number> | undefined;
  private watching = false;
  private cursor = Date.now();
  private readonly seenRevoked = new Map<string, number>();
  /** Every revocation is made in this process (an embedded database): no watch is needed. */
  private local = false;

  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  /** The cached record while it is fresh (null: known not to exist); undefined when a look-up is needed. */
  peek(keyId: string): KeyRecord | null | undefined {
    const hit = this.entries.get(keyId);
    if (hit === undefined) return undefined;
    const now = this.now();
    if (hit.expiresAt > now) return hit.record;
    // Kept longer: an active key, while the watch has read every revocation up to a moment ago.
    if (hit.keptUntil > now && hit.generation === this.generation && (this.local || now < this.watchedUntil)) return hit.record;
    return undefined;
  }

  /**
   * The database is this process's own (embedded): every revocation goes through this
   * process's mailbox actors, which invalidate the key here at once, so active keys are kept.
   */
  revocationsAreLocal(): void {
    this.local = true;
  }

  /**
   * Reads the revocations of the last seconds every `intervalMs` (an index scan of a few rows),
   * so that every node honours a revoke within about that long even if the cluster broadcast
   * is lost, and may therefore keep active keys far longer than `ttlMs` instead of reading
   * each one from the database every second. If the watch stalls (database down, event loop
   * blocked) past WATCH_VALID_MS, a kept key asked for waits for one read of the revocations
   * shared by all (see get) and falls back to `ttlMs` if even that is late; a gap longer than
   * WATCH_GAP_MS drops every entry filled before it (the overlap may not cover it).
   * Returns a stop function.
   */
  watchRevocations(intervalMs = 200): () => void {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    this.watching = true;
    const loop = async () => {
      const started = this.now();
      // A failed round: the next tries again; meanwhile kept keys fall back to the short bound.
      await this.readNow().catch(() => {});
      if (!stopped) {
        // Reads start every `intervalMs` (right away when one took longer), not `intervalMs`
        // after the last one ended: under load a read takes hundreds of milliseconds, and
        // waiting the full interval after it let the watch's vouching lapse (WATCH_VALID_MS),
        // which made every request of a kept key wait for a read of its own (the poll bench's tail).
        timer = setTimeout(() => void loop(), Math.max(0, intervalMs - (this.now() - started)));
        timer.unref?.();
      }
    };
    void loop();
    return () => {
      stopped = true;
      this.watching = false;
      if (timer !== undefined) clearTimeout(timer);
    };
  }

  /** One read of the recent revocations, shared by whoever asks while it runs. */
  private readNow(): Promise<number> {
    this.reading ??= (async () => {
      const started = this.now();
      try {
        await this.readRevocations();
        if (started - this.lastReadAt > WATCH_GAP_MS) this.generation++;
        this.lastReadAt = started;
        this.watchedUntil = Math.max(this.watchedUntil, started + WATCH_VALID_MS);
        return started;
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }

  private async readRevocations(): Promise<void> {
    const since = new Date(this.cursor - WATCH_OVERLAP_MS);
    const rows = await this.db.select({ id: apiKeys.id, revokedAt: apiKeys.revokedAt }).from(apiKeys).where(gt(apiKeys.revokedAt, since));
    for (const row of rows) {
      const at = row.revokedAt?.getTime() ?? 0;
      if (at > this.cursor) this.cursor = at;
      if (this.seenRevoked.has(row.id)) continue;
      this.seenRevoked.set(row.id, at);
      const cached = this.entries.get(row.id)?.record;
      this.invalidate(row.id, cached ? { ...cached, status: "revoked" } : undefined);
    }
    for (const [id, at] of this.seenRevoked) if (at < this.cursor - 2 * WATCH_OVERLAP_MS) this.seenRevoked.delete(id);
    // The cursor follows the clock too, so a quiet database is not read further and further back.
    this.cursor = Math.max(this.cursor, Date.now() - WATCH_OVERLAP_MS);
  }

  async get(keyId: string): Promise<KeyRecord | null> {
    const hit = this.peek(keyId);
    if (hit !== undefined) return hit;
    if (this.keptButUnvouched(keyId)) {
      // The watch fell behind (a loaded machine): one read of the revocations, shared by every
      // such key, vouches for them all again, instead of a query per key, which under load
      // is what kept the watch behind. peek() still decides: a read that took too long vouches for nothing.
      const started = await this.readNow().catch(() => undefined);
      const again = this.peek(keyId);
      if (again !== undefined) {
        // That read vouches for the key as a fill would (no revoke committed before it started):
        // the same `ttlMs` from then, so it is not waited for again on the next call.
        const e = this.entries.get(keyId);
        if (e !== undefined && started !== undefined) e.expiresAt = Math.max(e.expiresAt, started + this.ttlMs);
        return again;
      }
    }
    const pending = this.inflight.get(keyId);
    if (pending) return pending;
    const fill = this.fill(keyId).finally(() => this.inflight.delete(keyId));
    this.inflight.set(keyId, fill);
    return fill;
  }

  /** An active key kept long whose only want is a recent read of the revocations. */
  private keptButUnvouched(keyId: string): boolean {
    const e = this.entries.get(keyId);
    return this.watching && e !== undefined && e.keptUntil > this.now() && e.generation === this.generation;
  }

  /** Forget what we know of a key; `known` is the fresh state when the caller has it. */
  invalidate(keyId: string, known?: KeyRecord): void {
    this.epoch++;
    this.inflight.delete(keyId);
    if (known && this.ttlMs > 0) this.entries.set(keyId, this.entry(known));
    else this.entries.delete(keyId);
  }

  private async fill(keyId: string): Promise<KeyRecord | null> {
    const epoch = this.epoch;
    const rows = await this.db
      .select({ id: apiKeys.id, mailboxId: apiKeys.mailboxId, status: apiKeys.status, scope: apiKeys.scope, secretDigest: apiKeys.secretDigest })
      .from(apiKeys)
      .where(eq(apiKeys.id, keyId))
      .limit(1);
    const row = rows[0];
    const record: KeyRecord | null = row
      ? { id: row.id, mailboxId: row.mailboxId, status: row.status === "revoked" ? "revoked" : "active", runtime: row.scope === "runtime", digest: Buffer.from(row.secretDigest, "hex") }
      : null;
    const cached = this.entries.get(keyId)?.record;
    const wouldUnrevoke = cached?.status === "revoked" && record?.status !== "revoked";
    if (epoch === this.epoch && !wouldUnrevoke && this.ttlMs > 0) {
      if (this.entries.size >= MAX_ENTRIES) this.evictExpired();
      this.entries.set(keyId, this.entry(record));
    }
    return wouldUnrevoke ? cached! : record;
  }

  private entry(record: KeyRecord | null): Entry {
    const now = this.now();
    // Only an active key is kept long: "unknown" may become a key, and revoked is final anyway.
    const keptUntil = record?.status === "active" ? now + KEEP_MS : 0;
    return { record, expiresAt: now + this.ttlMs, keptUntil, generation: this.generation };
  }

  private evictExpired(): void {
    const now = this.now();
    for (const [id, e] of this.entries) if (e.expiresAt <= now && e.keptUntil <= now) this.entries.delete(id);
    // Still full of live entries: drop the oldest half rather than grow without bound.
    if (this.entries.size >= MAX_ENTRIES) {
      let n = this.entries.size / 2;
      for (const id of this.entries.keys()) {
        if (n-- <= 0) break;
        this.entries.delete(id);
      }
    }
  }
}
