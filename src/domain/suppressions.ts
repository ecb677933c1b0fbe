import { and, count, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { suppressions, type SuppressionRow } from "../../db/schema/index.ts";
import { AppError, notFound } from "../errors.ts";
import type { Accounts } from "./accounts.ts";
import { normalizeAddress } from "./email.ts";
import { newId } from "./ids.ts";

/** An account's suppression list: addresses its mailboxes never send to. */
export class Suppressions {
  constructor(
    private readonly db: Db,
    private readonly accounts: Accounts,
  ) {}

  async list(accountId: string, page: number, limit: number): Promise<{ items: SuppressionRow[]; total: number }> {
    await this.accounts.get(accountId);
    const where = eq(suppressions.accountId, accountId);
    const [items, totals] = await Promise.all([
      this.db.select().from(suppressions).where(where).orderBy(desc(suppressions.createdAt), desc(suppressions.id)).limit(limit).offset((page - 1) * limit),
      this.db.select({ n: count() }).from(suppressions).where(where),
    ]);
    return { items, total: totals[0]?.n ?? 0 };
  }

  /** Adds an address; adding one already listed returns the existing entry (`created` false). */
  async add(accountId: string, rawAddress: string, reason: string | undefined): Promise<{ entry: SuppressionRow; created: boolean }> {
    const address = addressOrThrow(rawAddress, "body.address");
    await this.accounts.get(accountId);
    const [inserted] = await this.db
      .insert(suppressions)
      .values({ id: newId(), accountId, address, reason: reason ?? null })
      .onConflictDoNothing()
      .returning();
    if (inserted) return { entry: inserted, created: true };
    const [existing] = await this.db
      .select()
      .from(suppressions)
      .where(and(eq(suppressions.accountId, accountId), eq(suppressions.address, address)))
      .limit(1);
    if (!existing) throw new Error("suppression vanished between insert and read");
    return { entry: existing, created: false };
  }

  async remove(accountId: string, rawAddress: string): Promise<SuppressionRow> {
    const address = addressOrThrow(rawAddress, "query.address");
    await this.accounts.get(accountId);
    const [deleted] = await this.db
      .delete(suppressions)
      .where(and(eq(suppressions.accountId, accountId), eq(suppressions.address, address)))
      .returning();
    if (!deleted) throw notFound("suppression for", address);
    return deleted;
  }
}

function addressOrThrow(raw: string, path: string): string {
  const checked = normalizeAddress(raw);
  if (!checked.ok) throw new AppError("validation_error", `address ${checked.reason}`, { fields: [{ path, message: checked.reason }] });
  return checked.address;
}
