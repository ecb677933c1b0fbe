import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PgliteOffThread } from "../db/pglite-client.ts";
import { Base64Text, LARGE } from "../db/pglite-wire.ts";

/**
 * The embedded database on its own thread (db/pglite-client.ts): what crosses between the
 * threads comes back as PGlite gives it in-process (errors with PostgreSQL's fields, large
 * values, transactions, notifications), and a large write leaves the event loop free.
 */
let pg: PgliteOffThread;
beforeAll(async () => {
  pg = await PgliteOffThread.open(undefined);
  await pg.exec("create table t (id int primary key, body text, bytes bytea, doc jsonb)");
});
afterAll(() => pg.close());

describe("PGlite on its own thread", () => {
  test("large and small values round-trip: text past the moved-bytes size (not ASCII), bytea, jsonb", async () => {
    const body = "žluťoučký kůň ".repeat(Math.ceil(LARGE / 10));
    const bytes = new Uint8Array(LARGE * 3).map((_, i) => i % 251);
    await pg.query("insert into t values ($1, $2, $3, $4), ($5, $6, $7, $8)", [1, body, bytes, JSON.stringify({ a: [1, "x"] }), 2, "short", new Uint8Array([0, 255]), "null"]);
    const rows = (await pg.query<{ id: number; body: string; bytes: Uint8Array; doc: unknown }>("select * from t order by id")).rows;
    expect(rows[0]!.body).toBe(body);
    expect(rows[0]!.bytes).toEqual(bytes);
    expect(rows[0]!.doc).toEqual({ a: [1, "x"] });
    expect(rows[1]).toEqual({ id: 2, body: "short", bytes: new Uint8Array([0, 255]), doc: null });
    // The parameters are the caller's still (a Buffer, as drizzle's bytea passes, included).
    const buffer = Buffer.from(bytes);
    await pg.query("insert into t (id, bytes) values (3, $1)", [buffer]);
    expect(buffer.byteLength).toBe(bytes.byteLength);
    expect(bytes.byteLength).toBe(LARGE * 3);
    expect((await pg.query<{ bytes: Uint8Array }>("select bytes from t where id = 3")).rows[0]!.bytes).toEqual(new Uint8Array(buffer));
    const asArrays = await pg.query<unknown[]>("select id, body from t where id = 2", [], { rowMode: "array" });
    expect(asArrays.rows).toEqual([[2, "short"]]);
    expect(asArrays.fields.map((f) => f.name)).toEqual(["id", "body"]);
  });

  test("Base64Text is made into base64 on the thread, for the statement to decode; the caller's bytes stay", async () => {
    const bytes = new Uint8Array(LARGE * 2).map((_, i) => (i * 7) % 256);
    const got = await pg.query<{ b: Uint8Array }>("select decode($1::text, 'base64') as b", [new Base64Text(bytes)]);
    expect(got.rows[0]!.b).toEqual(bytes);
    expect(bytes.byteLength).toBe(LARGE * 2);
    const small = await pg.query<{ b: Uint8Array }>("select decode($1::text, 'base64') as b", [new Base64Text(new Uint8Array([1, 2, 3]))]);
    expect(small.rows[0]!.b).toEqual(new Uint8Array([1, 2, 3]));
  });

  test("a database error keeps PostgreSQL's fields", async () => {
    const err = (await pg.query("insert into t (id) values (1)").catch((e) => e)) as Record<string, unknown>;
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toBe("23505");
    expect(err.constraint).toBe("t_pkey");
    expect(String(err.message)).toContain("duplicate key");
  });

  test("a transaction commits, rolls back on a throw or on rollback(), and a query outside waits for it", async () => {
    await pg.transaction(async (tx) => {
      await tx.query("insert into t (id) values (10)");
    });
    await pg
      .transaction(async (tx) => {
        await tx.query("insert into t (id) values (11)");
        throw new Error("no");
      })
      .catch(() => {});
    await pg.transaction(async (tx) => {
      await tx.query("insert into t (id) values (12)");
      await tx.rollback();
    });
    let outside: Promise<unknown> | undefined;
    await pg.transaction(async (tx) => {
      await tx.query("insert into t (id) values (13)");
      outside = pg.query("select count(*)::int as n from t where id = 13");
      await Bun.sleep(20);
      await tx.query("delete from t where id = 13");
    });
    expect(((await outside) as { rows: { n: number }[] }).rows[0]!.n).toBe(0);
    const ids = (await pg.query<{ id: number }>("select id from t where id >= 10 order by id")).rows.map((r) => r.id);
    expect(ids).toEqual([10]);
  });

  test("notifications reach listeners after commit, and stop after unlisten", async () => {
    const got: string[] = [];
    const unlisten = await pg.listen("chan", (payload) => got.push(payload));
    await pg.query("select pg_notify('chan', 'one')");
    for (let i = 0; i < 50 && got.length === 0; i++) await Bun.sleep(10);
    expect(got).toEqual(["one"]);
    await unlisten();
    await pg.query("select pg_notify('chan', 'two')");
    await Bun.sleep(50);
    expect(got).toEqual(["one"]);
  });

  test("an 8 MiB write does not hold the event loop: timers keep firing while it runs", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    await pg.query("insert into t (id, body) values (100, $1)", ["x".repeat(8 << 20)]);
    clearInterval(timer);
    // In-process, the write ran in one stretch of the thread (no tick at all).
    expect(ticks).toBeGreaterThan(1);
    expect((await pg.query<{ n: number }>("select length(body) as n from t where id = 100")).rows[0]!.n).toBe(8 << 20);
  });
});
