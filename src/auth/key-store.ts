import { eq } from "drizzle-orm";
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
}

const MAX_ENTRIES = 100_000;

/**
 * Read-through cache of API keys for the authentication hot path.
 *
 * Two promises hold whatever the timing:
 * - no entry outlives `ttlMs` (at most one second), so a revoke on another node is seen
 *   within a second even if its broadcast is lost;
 * - a revoke is never overwritten by a stale fill: every invalidation bumps `epoch`, and a
 *   fill that started before it is not stored; a cached `revoked` is never replaced by an
 *   `active` (revocation is final).
 * Concurrent misses for one key share one query.
 */
export class KeyStore {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<KeyRecord | null>>();
  private epoch = 0;

  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  /** The cached record while it is fresh (null: known not to exist); undefined when a look-up is needed. */
  peek(keyId: string): KeyRecord | null | undefined {
    const hit = this.entries.get(keyId);
    return hit && hit.expiresAt > this.now() ? hit.record : undefined;
  }

  async get(keyId: string): Promise<KeyRecord | null> {
    const hit = this.peek(keyId);
    if (hit !== undefined) return hit;
    const pending = this.inflight.get(keyId);
    if (pending) return pending;
    const fill = this.fill(keyId).finally(() => this.inflight.delete(keyId));
    this.inflight.set(keyId, fill);
    return fill;
  }

  /** Forget what we know of a key; `known` is the fresh state when the caller has it. */
  invalidate(keyId: string, known?: KeyRecord): void {
    this.epoch++;
    this.inflight.delete(keyId);
    if (known && this.ttlMs > 0) this.entries.set(keyId, { record: known, expiresAt: this.now() + this.ttlMs });
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
      this.entries.set(keyId, { record, expiresAt: this.now() + this.ttlMs });
    }
    return wouldUnrevoke ? cached! : record;
  }

  private evictExpired(): void {
    const now = this.now();
    for (const [id, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(id);
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
