import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { openDatabase, type Database } from "../db/client.ts";
import { migrate, rowsOf } from "../db/migrate.ts";
import { usingPostgres } from "./harness.ts";

const journal = JSON.parse(readFileSync(join(import.meta.dir, "../db/migrations/meta/_journal.json"), "utf8")) as { entries: unknown[] };
const MIGRATION_COUNT = journal.entries.length;

const TABLES = ["accounts", "actions", "api_keys", "idempotency_keys", "mailboxes", "mailroom_migrations"];
const UNIQUE_INDEXES = ["accounts_slug_key", "mailboxes_account_slug_key", "mailboxes_email_address_key", "mailboxes_protocol_host_key", "actions_mailbox_name_key"];

/** The error text of a query that must fail (drizzle queries are thenables, not promises). */
async function fails(query: PromiseLike<unknown>): Promise<string> {
  try {
    await query;
  } catch (err) {
    const e = err as { message?: string; cause?: { message?: string; constraint?: string; constraint_name?: string } };
    return [e.message, e.cause?.message, e.cause?.constraint, e.cause?.constraint_name].filter(Boolean).join(" | ");
  }
  throw new Error("the query succeeded");
}

/** The storage options of the two tables whose rows are updated after every insert. */
async function fillfactors(database: Database): Promise<Record<string, string[] | null>> {
  const rows = rowsOf<{ relname: string; options: string[] | null }>(
    await database.db.execute(sql`select relname, reloptions as options from pg_class where relname in ('messages', 'outbox') and relkind = 'r'`),
  );
  return Object.fromEntries(rows.map((r) => [r.relname, r.options]));
}

async function uniqueIndexes(database: Database): Promise<Map<string, string>> {
  const rows = rowsOf<{ name: string; table: string }>(
    await database.db.execute(sql`
      select ci.relname as name, ct.relname as "table"
      from pg_index i
      join pg_class ci on ci.oid = i.indexrelid
      join pg_class ct on ct.oid = i.indrelid
      join pg_namespace n on n.oid = ct.relnamespace
      where n.nspname = 'public' and i.indisunique`),
  );
  return new Map(rows.map((r) => [r.name, r.table]));
}

describe("migrations on PGlite", () => {
  let database: Database;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mailroom-migrate-"));
    database = await openDatabase({ dataDir: dir, inMemory: true });
  });
  afterAll(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the first run applies every migration, the second none", async () => {
    expect(MIGRATION_COUNT).toBeGreaterThanOrEqual(1);
    expect(await migrate(database.db)).toEqual({ applied: MIGRATION_COUNT });
    expect(await migrate(database.db)).toEqual({ applied: 0 });
    const recorded = rowsOf<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from mailroom_migrations`));
    expect(recorded[0]!.n).toBe(MIGRATION_COUNT);
  });

  test("the tables and unique constraints exist", async () => {
    const tables = rowsOf<{ table_name: string }>(
      await database.db.execute(sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`),
    ).map((r) => r.table_name);
    expect(tables.sort()).toEqual(expect.arrayContaining(TABLES));

    const unique = await uniqueIndexes(database);
    expect(unique.get("accounts_slug_key")).toBe("accounts");
    expect(unique.get("mailboxes_account_slug_key")).toBe("mailboxes");
    expect(unique.get("mailboxes_email_address_key")).toBe("mailboxes");
    for (const name of UNIQUE_INDEXES) expect(unique.has(name)).toBe(true);
  });

  test("messages and outbox leave room on each page for the updates that follow every insert (HOT)", async () => {
    expect(await fillfactors(database)).toEqual({ messages: ["fillfactor=35"], outbox: ["fillfactor=80"] });
  });

  test("the unique constraints are enforced", async () => {
    const db = database.db;
    const accountId = crypto.randomUUID();
    await db.execute(sql`insert into accounts (id, slug, display_name) values (${accountId}, 'dup-acct', 'A')`);
    expect(await fails(db.execute(sql`insert into accounts (id, slug, display_name) values (${crypto.randomUUID()}, 'dup-acct', 'B')`))).toContain("accounts_slug_key");

    const mailbox = (slug: string, email: string, host: string) =>
      db.execute(sql`insert into mailboxes (id, account_id, slug, kind, email_address, protocol_host) values (${crypto.randomUUID()}, ${accountId}, ${slug}, 'agent', ${email}, ${host})`);
    await mailbox("one", "one.dup-acct@mail.localhost", "one.dup-acct.agents.localhost");
    // Same slug in the same account.
    expect(await fails(mailbox("one", "x1@mail.localhost", "x1.agents.localhost"))).toContain("mailboxes_account_slug_key");
    // Same email address.
    expect(await fails(mailbox("two", "one.dup-acct@mail.localhost", "x2.agents.localhost"))).toContain("mailboxes_email_address_key");
    // A mailbox of an account that does not exist (foreign key).
    expect(
      await fails(db.execute(sql`insert into mailboxes (id, account_id, slug, kind, email_address, protocol_host) values (${crypto.randomUUID()}, ${crypto.randomUUID()}, 'x', 'agent', 'fk@mail.localhost', 'fk.agents.localhost')`)),
    ).toContain("mailboxes_account_id_accounts_id_fk");
  });
});

describe.if(usingPostgres)("migrations on PostgreSQL", () => {
  const name = `mailroom_migrate_${randomBytes(6).toString("hex")}`;
  let admin: postgres.Sql;
  let url: string;
  const opened: Database[] = [];

  beforeAll(async () => {
    admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${name}"`);
    const u = new URL(process.env.DATABASE_URL!);
    u.pathname = `/${name}`;
    url = u.toString();
  });

  afterAll(async () => {
    await Promise.allSettled(opened.map((d) => d.close()));
    if (!admin) return;
    await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
    await admin.unsafe(`drop database if exists "${name}"`);
    await admin.end({ timeout: 5 });
  });

  test("four nodes migrating one fresh database at once apply each migration exactly once", async () => {
    for (let i = 0; i < 4; i++) opened.push(await openDatabase({ databaseUrl: url, dataDir: tmpdir(), poolSize: 2 }));
    const results = await Promise.allSettled(opened.map((d) => migrate(d.db)));
    const failures = results.filter((r) => r.status === "rejected");
    expect(failures).toEqual([]);
    const applied = results.map((r) => (r as PromiseFulfilledResult<{ applied: number }>).value.applied);
    expect(applied.reduce((a, b) => a + b, 0)).toBe(MIGRATION_COUNT);

    const recorded = rowsOf<{ n: number }>(await opened[0]!.db.execute(sql`select count(*)::int as n from mailroom_migrations`));
    expect(recorded[0]!.n).toBe(MIGRATION_COUNT);
    const unique = await uniqueIndexes(opened[0]!);
    for (const index of UNIQUE_INDEXES) expect(unique.has(index)).toBe(true);

    // And once more from every node: nothing left to apply.
    const again = await Promise.all(opened.map((d) => migrate(d.db)));
    expect(again.map((r) => r.applied)).toEqual([0, 0, 0, 0]);
  });

  test("messages and outbox leave room on each page for the updates that follow every insert (HOT)", async () => {
    expect(await fillfactors(opened[0]!)).toEqual({ messages: ["fillfactor=35"], outbox: ["fillfactor=80"] });
  });

  test("the columns that carry message bodies compress with lz4, and a large payload is stored so", async () => {
    const db = opened[0]!.db;
    const columns = rowsOf<{ col: string; compression: string }>(
      await db.execute(sql`
        select c.relname || '.' || a.attname as col, a.attcompression::text as compression
        from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and a.attnum > 0 and not a.attisdropped
          and (c.relname, a.attname) in (('messages', 'text_body'), ('messages', 'html_body'), ('messages', 'search_tsv'), ('outbox', 'payload'), ('webhook_deliveries', 'body'))`),
    );
    expect(Object.fromEntries(columns.map((r) => [r.col, r.compression]))).toEqual({
      "messages.text_body": "l",
      "messages.html_body": "l",
      "messages.search_tsv": "l",
      "outbox.payload": "l",
      "webhook_deliveries.body": "l",
    });
    // A payload with 20 KiB of compressible text, as a message event carries, is stored compressed with lz4.
    const id = crypto.randomUUID();
    const text = "The quarterly figures are attached. ".repeat(600);
    await db.execute(sql`insert into outbox (id, kind, topic, payload) values (${id}, 'event', 'message.received', ${JSON.stringify({ text_body: text })}::jsonb)`);
    const [stored] = rowsOf<{ method: string | null; size: number }>(
      await db.execute(sql`select pg_column_compression(payload) as method, pg_column_size(payload)::int as size from outbox where id = ${id}`),
    );
    expect(stored!.method).toBe("lz4");
    expect(stored!.size).toBeLessThan(text.length / 4);
  });
});
