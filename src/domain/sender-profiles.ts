import { and, count, desc, eq, ilike, sql, type SQL } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { CompiledRows } from "../../db/compiled.ts";
import { batched } from "../../db/tx-batch.ts";
import { intelResults, mailboxes, senderProfiles, type Disposition, type SenderProfileRow } from "../../db/schema/index.ts";
import { AppError, notFound } from "../errors.ts";
import type { Accounts } from "./accounts.ts";
import { normalizeAddress } from "./email.ts";
import { newId } from "./ids.ts";
import { likeSubstring } from "./like.ts";

export const DISPOSITIONS: readonly Disposition[] = ["neutral", "trusted", "blocked"];

export interface ProfileChanges {
  disposition?: Disposition;
  notes?: string;
  displayName?: string | null;
}

/** A sender seen in inbound mail, for keeping its profile current. */
export interface SenderSighting {
  address: string;
  name: string | null;
  at: Date;
}

/**
 * What an account knows about the addresses that write to it. Inbound processing keeps the
 * counts current (touch); people set the disposition, which assessment reads (dispositionFor).
 */
export class SenderProfiles {
  constructor(
    private readonly db: Db,
    private readonly accounts: Accounts,
  ) {}

  async list(accountId: string, filter: { address?: string; disposition?: Disposition }, page: number, limit: number) {
    await this.accounts.get(accountId);
    const conditions: SQL[] = [eq(senderProfiles.accountId, accountId)];
    if (filter.address) conditions.push(ilike(senderProfiles.address, likeSubstring(filter.address.trim().toLowerCase())));
    if (filter.disposition) conditions.push(eq(senderProfiles.disposition, filter.disposition));
    const where = and(...conditions);
    const [items, totals] = await Promise.all([
      this.db
        .select()
        .from(senderProfiles)
        .where(where)
        .orderBy(sql`${senderProfiles.lastSeenAt} desc nulls last`, desc(senderProfiles.createdAt), desc(senderProfiles.id))
        .limit(limit)
        .offset((page - 1) * limit),
      this.db.select({ n: count() }).from(senderProfiles).where(where),
    ]);
    return { items, total: totals[0]?.n ?? 0 };
  }

  /**
   * Creates the profile of an address, or, when inbound mail already made one, sets the given
   * fields on it (`created` false): either way the caller ends with the profile it described.
   */
  async create(accountId: string, rawAddress: string, changes: ProfileChanges): Promise<{ profile: SenderProfileRow; created: boolean }> {
    const address = addressOrThrow(rawAddress);
    await this.accounts.get(accountId);
    const [inserted] = await this.db
      .insert(senderProfiles)
      .values({ id: newId(), accountId, address, disposition: changes.disposition ?? "neutral", notes: changes.notes ?? "", displayName: changes.displayName ?? null })
      .onConflictDoNothing()
      .returning();
    if (inserted) return { profile: inserted, created: true };
    const [existing] = await this.db
      .select({ id: senderProfiles.id })
      .from(senderProfiles)
      .where(and(eq(senderProfiles.accountId, accountId), eq(senderProfiles.address, address)))
      .limit(1);
    if (!existing) throw new Error("sender profile vanished between insert and read");
    return { profile: await this.update(existing.id, changes), created: false };
  }

  async get(id: string): Promise<SenderProfileRow> {
    const [row] = await this.db.select().from(senderProfiles).where(eq(senderProfiles.id, id)).limit(1);
    if (!row) throw notFound("sender profile", id);
    return row;
  }

  async update(id: string, changes: ProfileChanges): Promise<SenderProfileRow> {
    const set: Partial<typeof senderProfiles.$inferInsert> = { updatedAt: new Date() };
    if (changes.disposition !== undefined) set.disposition = changes.disposition;
    if (changes.notes !== undefined) set.notes = changes.notes;
    if (changes.displayName !== undefined) set.displayName = changes.displayName;
    const [row] = await this.db.update(senderProfiles).set(set).where(eq(senderProfiles.id, id)).returning();
    if (!row) throw notFound("sender profile", id);
    return row;
  }

  async remove(id: string): Promise<SenderProfileRow> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.delete(senderProfiles).where(eq(senderProfiles.id, id)).returning();
      if (!row) throw notFound("sender profile", id);
      await tx.delete(intelResults).where(and(eq(intelResults.kind, "sender_intelligence"), eq(intelResults.subjectId, id)));
      return row;
    });
  }
}

/** The disposition an account gave the sender of mail arriving at `mailboxId` ("neutral" when none). */
export async function dispositionFor(db: Db, mailboxId: string, address: string): Promise<Disposition> {
  if (!address) return "neutral";
  const [row] = await db
    .select({ disposition: senderProfiles.disposition })
    .from(senderProfiles)
    .innerJoin(mailboxes, eq(mailboxes.accountId, senderProfiles.accountId))
    .where(and(eq(mailboxes.id, mailboxId), eq(senderProfiles.address, address.toLowerCase())))
    .limit(1);
  return row?.disposition ?? "neutral";
}

/**
 * Counts sightings into the account's profiles, making the missing ones: one statement for
 * a batch. Sightings of one address are folded first, because one INSERT … ON CONFLICT may
 * not touch a row twice.
 */
export async function touchSenderProfiles(tx: Tx, accountId: string, sightings: readonly SenderSighting[]): Promise<void> {
  const byAddress = new Map<string, { address: string; name: string | null; first: Date; last: Date; n: number }>();
  for (const s of sightings) {
    const address = s.address.toLowerCase();
    if (!address) continue;
    const seen = byAddress.get(address);
    if (!seen) byAddress.set(address, { address, name: s.name || null, first: s.at, last: s.at, n: 1 });
    else {
      seen.n++;
      if (s.at < seen.first) seen.first = s.at;
      if (s.at >= seen.last) {
        seen.last = s.at;
        seen.name = s.name || seen.name;
      }
    }
  }
  if (byAddress.size === 0) return;
  const rows = [...byAddress.values()].map((s) => ({
    id: newId(),
    accountId,
    address: s.address,
    displayName: s.name,
    messageCount: s.n,
    firstSeenAt: s.first,
    lastSeenAt: s.last,
  }));
  // In a shared transaction, with the other mailboxes' sightings (db/tx-batch.ts).
  await batched(tx, "sender profiles", rows, (db, all) => TOUCH.run(db, onePerSender(all)), () => undefined);
}

type Sighted = { [K in (typeof SIGHTED)[number]]: (typeof senderProfiles.$inferInsert)[K] };

/**
 * The rows of several mailboxes' sightings with one per account and address: an upsert may
 * not touch a row twice, and two mailboxes of an account can see the same sender at once.
 */
function onePerSender(rows: Sighted[]): Sighted[] {
  const byKey = new Map<string, Sighted>();
  for (const r of rows) {
    const key = `${r.accountId} ${r.address}`;
    const seen = byKey.get(key);
    if (!seen) {
      byKey.set(key, { ...r });
      continue;
    }
    seen.messageCount = (seen.messageCount ?? 0) + (r.messageCount ?? 0);
    if (r.firstSeenAt! < seen.firstSeenAt!) seen.firstSeenAt = r.firstSeenAt;
    if (r.lastSeenAt! >= seen.lastSeenAt!) {
      seen.lastSeenAt = r.lastSeenAt;
      seen.displayName = r.displayName || seen.displayName;
    }
  }
  return [...byKey.values()];
}

/** The sightings' rows, in `touchSenderProfiles`'s one statement; the other columns take their defaults. */
const SIGHTED = ["id", "accountId", "address", "displayName", "messageCount", "firstSeenAt", "lastSeenAt"] as const;

/** Every processed batch runs it: built once per number of senders (db/compiled.ts). */
const TOUCH = new CompiledRows<Sighted, unknown>(SIGHTED, (db, rows) =>
  db
    .insert(senderProfiles)
    .values(rows)
    .onConflictDoUpdate({
      target: [senderProfiles.accountId, senderProfiles.address],
      set: {
        messageCount: sql`${senderProfiles.messageCount} + excluded.message_count`,
        firstSeenAt: sql`least(coalesce(${senderProfiles.firstSeenAt}, excluded.first_seen_at), excluded.first_seen_at)`,
        lastSeenAt: sql`greatest(coalesce(${senderProfiles.lastSeenAt}, excluded.last_seen_at), excluded.last_seen_at)`,
        // A name the sender stopped using is kept rather than wiped.
        displayName: sql`coalesce(excluded.display_name, ${senderProfiles.displayName})`,
      },
    }),
);

function addressOrThrow(raw: string): string {
  const checked = normalizeAddress(raw);
  if (!checked.ok) throw new AppError("validation_error", `address ${checked.reason}`, { fields: [{ path: "body.address", message: checked.reason }] });
  return checked.address;
}
