import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import type { Db } from "./client.ts";

const MIGRATIONS_FOLDER = fileURLToPath(new URL("./migrations", import.meta.url));
// Any fixed 64-bit number; every node that starts against the same database takes it.
const MIGRATION_LOCK_ID = 7_242_011_920_931n;

/**
 * Applies the drizzle-kit migrations in db/migrations that this database has not seen.
 * The whole run is one transaction holding an advisory lock, so several nodes starting at
 * once against one PostgreSQL apply each migration exactly once and never half of one.
 */
export async function migrate(db: Db): Promise<{ applied: number }> {
  const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`);
    await tx.execute(sql`
      create table if not exists mailroom_migrations (
        hash text primary key,
        created_at bigint not null,
        applied_at timestamptz not null default now()
      )`);
    const rows = await tx.execute<{ hash: string }>(sql`select hash from mailroom_migrations`);
    const done = new Set(rowsOf<{ hash: string }>(rows).map((r) => r.hash));
    let applied = 0;
    for (const m of migrations) {
      if (done.has(m.hash)) continue;
      for (const statement of m.sql) {
        if (statement.trim()) await tx.execute(sql.raw(statement));
      }
      await tx.execute(sql`insert into mailroom_migrations (hash, created_at) values (${m.hash}, ${m.folderMillis})`);
      applied++;
    }
    return { applied };
  });
}

/** postgres.js returns an array of rows, PGlite an object with `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}
