import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { eq, sql } from "drizzle-orm";
import { bigint, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { openDatabase, type Database } from "../db/client.ts";
import { rowsOf } from "../db/migrate.ts";
import { bytea } from "../db/schema/bytea.ts";
import { jsonb } from "../db/schema/json.ts";
import { uniqueViolation } from "../src/errors.ts";
import { isPermanent } from "../src/jobs/failure.ts";
import { usingPostgres } from "./harness.ts";

/*
 * What the rest of the code assumes of db/client.ts, whichever driver is underneath
 * (postgres.js on PostgreSQL, PGlite embedded): values round-trip with their types, the
 * SQLSTATE of a failure is on `.code`, transactions and savepoints roll back, NOTIFY arrives
 * after commit, execute() answers rows. A driver change must keep all of it (Bun's native
 * client, tried, stored jsonb double-encoded and put the SQLSTATE in `errno`).
 */
const table = `driver_probe_${process.pid}_${Date.now().toString(36)}`;
const probe = pgTable(table, {
  id: text("id").primaryKey(),
  doc: jsonb("doc"),
  bytes: bytea("bytes"),
  at: timestamp("at", { withTimezone: true, mode: "date" }),
  big: bigint("big", { mode: "number" }),
  tags: text("tags").array(),
});

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: tmpdir(), inMemory: true, poolSize: 4 });
  await database.db.execute(sql.raw(`create table ${table} (id text primary key, doc jsonb, bytes bytea, at timestamptz, big bigint, tags text[])`));
});
afterAll(async () => {
  await database?.db.execute(sql.raw(`drop table if exists ${table}`));
  await database?.close();
});

const typeOf = async (id: string) =>
  rowsOf<{ t: string | null }>(await database.db.execute(sql`select jsonb_typeof(doc) as t from ${probe} where id = ${id}`))[0]?.t;

describe(`the database driver (${usingPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  test("jsonb values are stored as JSON, not as a JSON string of their text", async () => {
    const docs: [string, unknown, string][] = [
      ["object", { a: 1, nested: { list: [1, "two"] } }, "object"],
      ["array", [1, "x"], "array"],
      ["string", "plain text", "string"],
      // A string that is itself JSON text stays a string (a second parse made "10.5" the number 10.5).
      ["json-text", "10.5", "string"],
      ["json-text-object", '{"a":1}', "string"],
      ["number", 42, "number"],
      ["bool", true, "boolean"],
    ];
    for (const [id, doc, type] of docs) {
      await database.db.insert(probe).values({ id: `j-${id}`, doc });
      expect(await typeOf(`j-${id}`)).toBe(type);
      const [row] = await database.db.select({ doc: probe.doc }).from(probe).where(eq(probe.id, `j-${id}`));
      expect(row!.doc).toEqual(doc);
    }
    // jsonb operators see the structure.
    const hit = rowsOf<{ id: string }>(await database.db.execute(sql`select id from ${probe} where doc @> '{"a":1}'::jsonb`));
    expect(hit.map((r) => r.id)).toEqual(["j-object"]);
    // An update, and a lone surrogate repaired on the way.
    await database.db.update(probe).set({ doc: { text: "cut \ud83d" } }).where(eq(probe.id, "j-array"));
    const [updated] = await database.db.select({ doc: probe.doc }).from(probe).where(eq(probe.id, "j-array"));
    expect(updated!.doc).toEqual({ text: "cut \ufffd" });
    expect(await typeOf("j-array")).toBe("object");
    // Raw SQL passing JSON text casts it from text.
    await database.db.execute(sql`insert into ${probe} (id, doc) values ('j-raw', ${JSON.stringify({ raw: true })}::text::jsonb)`);
    expect(await typeOf("j-raw")).toBe("object");
  });

  test("bytea, timestamptz to the millisecond, bigint and text[] round-trip", async () => {
    const bytes = new Uint8Array([0, 1, 127, 128, 255]);
    const at = new Date("2026-01-02T03:04:05.678Z");
    const tags = ["a", "b,c", 'd"e', "f g"];
    await database.db.insert(probe).values({ id: "types", bytes, at, big: 9_007_199_254_740_991, tags });
    const [row] = await database.db.select().from(probe).where(eq(probe.id, "types"));
    expect([...row!.bytes!]).toEqual([...bytes]);
    expect(row!.at!.toISOString()).toBe(at.toISOString());
    expect(row!.big).toBe(9_007_199_254_740_991);
    expect(row!.tags).toEqual(tags);
  });

  test("execute() rows are read one way (rowsOf) on every driver; an update's row count is on its result", async () => {
    const rows = await database.db.execute(sql`select 1::int as one`);
    expect(rowsOf<{ one: number }>(rows)).toEqual([{ one: 1 }]);
    await database.db.insert(probe).values([{ id: "count-1" }, { id: "count-2" }]);
    const res = (await database.db.execute(sql`update ${probe} set big = 1 where id like 'count-%'`)) as { count?: number; affectedRows?: number };
    expect(res.count ?? res.affectedRows).toBe(2); // as src/http/idempotency.ts reads it
  });

  test("the SQLSTATE of a failure is on .code along the cause chain, in and out of a transaction", async () => {
    await database.db.insert(probe).values({ id: "dup" });
    const dup = await database.db.insert(probe).values({ id: "dup" }).then(() => undefined, (e: unknown) => e);
    expect(uniqueViolation(dup)).toEqual({ constraint: `${table}_pkey` });
    const inTx = await database.db
      .transaction(async (tx) => {
        await tx.insert(probe).values({ id: "dup" });
      })
      .then(() => undefined, (e: unknown) => e);
    expect(uniqueViolation(inTx)).toBeDefined();
    const divide = await database.db.execute(sql`select 1/0`).then(() => undefined, (e: unknown) => e);
    expect(isPermanent(divide)).toBe(true); // 22012, a data exception
  });

  test("a transaction rolls back on a throw; a nested one rolls back to its savepoint only; select for update works", async () => {
    await database.db
      .transaction(async (tx) => {
        await tx.insert(probe).values({ id: "tx-gone" });
        throw new Error("roll back");
      })
      .catch(() => {});
    await database.db.transaction(async (tx) => {
      await tx.insert(probe).values({ id: "tx-kept" });
      await tx
        .transaction(async (inner) => {
          await inner.insert(probe).values({ id: "tx-inner" });
          throw new Error("inner only");
        })
        .catch(() => {});
      const locked = rowsOf<{ id: string }>(await tx.execute(sql`select id from ${probe} where id = 'tx-kept' for update`));
      expect(locked).toEqual([{ id: "tx-kept" }]);
    });
    const ids = rowsOf<{ id: string }>(await database.db.execute(sql`select id from ${probe} where id like 'tx-%' order by id`)).map((r) => r.id);
    expect(ids).toEqual(["tx-kept"]);
  });

  test("LISTEN receives a NOTIFY once its transaction commits, and not after unlisten", async () => {
    const channel = `probe_${process.pid}`;
    const got: string[] = [];
    const unlisten = await database.listen(channel, (p) => got.push(p));
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_notify(${channel}, 'one')`);
    });
    for (let i = 0; i < 100 && got.length === 0; i++) await Bun.sleep(20);
    expect(got).toEqual(["one"]);
    await unlisten();
    await database.db.execute(sql`select pg_notify(${channel}, 'two')`);
    await Bun.sleep(100);
    expect(got).toEqual(["one"]);
  });
  test("a repeated statement answers for its own values each time, in and out of a transaction (prepared from its second use on PostgreSQL)", async () => {
    for (let i = 0; i < 8; i++) await database.db.insert(probe).values({ id: `rep-${i}`, doc: i % 2 ? { n: i } : `text ${i}`, big: i });
    for (let i = 0; i < 8; i++) {
      const [row] = await database.db.select({ doc: probe.doc, big: probe.big }).from(probe).where(eq(probe.id, `rep-${i}`));
      expect(row).toEqual({ doc: i % 2 ? { n: i } : `text ${i}`, big: i });
    }
    await database.db.transaction(async (tx) => {
      for (let i = 0; i < 4; i++) {
        const [row] = await tx.select({ big: probe.big }).from(probe).where(eq(probe.id, `rep-${i}`)).for("update");
        expect(row!.big).toBe(i);
      }
    });
  });
  test.if(usingPostgres)("on PostgreSQL a statement is prepared from its second use (one round trip after), and one-off statements are not", async () => {
    const one = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: tmpdir(), poolSize: 1 });
    try {
      const held = async (like: string) =>
        rowsOf<{ n: number }>(await one.db.execute(sql`select count(*)::int as n from pg_prepared_statements where statement like ${like}`))[0]!.n;
      await one.db.select({ big: probe.big }).from(probe).where(eq(probe.id, "rep-1"));
      expect(await held(`%"big" from "${table}"%`)).toBe(0);
      for (let i = 0; i < 3; i++) {
        const [row] = await one.db.select({ big: probe.big }).from(probe).where(eq(probe.id, `rep-${i}`));
        expect(row!.big).toBe(i);
      }
      expect(await held(`%"big" from "${table}"%`)).toBe(1);
    } finally {
      await one.close();
    }
  });
});
