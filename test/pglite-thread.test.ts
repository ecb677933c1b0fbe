import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { PgliteOffThread } from "../db/pglite-client.ts";
import { openDatabase } from "../db/client.ts";
import { Base64Text, LARGE, Utf8Text } from "../db/pglite-wire.ts";

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

  test("Utf8Text is decoded on the thread; handed over (move) with a buffer of its own, the bytes are moved, else copied", async () => {
    const text = "ünïcödé ".repeat(LARGE / 4);
    const kept = new TextEncoder().encode(text);
    expect((await pg.query<{ s: string }>("select $1::text as s", [new Utf8Text(kept)])).rows[0]!.s).toBe(text);
    expect(kept.byteLength).toBeGreaterThan(LARGE);
    const moved = new TextEncoder().encode(text);
    expect((await pg.query<{ s: string }>("select $1::text as s", [new Utf8Text(moved, true)])).rows[0]!.s).toBe(text);
    expect(moved.byteLength).toBe(0); // detached: it went to the thread
    // A view into a larger buffer is not its own to move: copied, and the rest stays usable.
    const whole = new TextEncoder().encode(`${text}tail`);
    const view = whole.subarray(0, whole.byteLength - 4);
    expect((await pg.query<{ s: string }>("select $1::text as s", [new Utf8Text(view, true)])).rows[0]!.s).toBe(text);
    expect(whole.byteLength).toBe(view.byteLength + 4);
    // The same bytes twice in one statement, handed over: the buffer crosses once.
    const twice = new TextEncoder().encode(text);
    const both = await pg.query<{ a: string; b: string }>("select $1::text as a, $2::text as b", [new Utf8Text(twice, true), new Base64Text(twice, true)]);
    expect(both.rows[0]!.a).toBe(text);
    expect(Buffer.from(both.rows[0]!.b, "base64").toString("utf8")).toBe(text);
  });

  test("bytea comes back as bytes of its own, large or small (parsed natively on the thread)", async () => {
    const large = new Uint8Array(LARGE * 2 + 3).map((_, i) => (i * 13) % 256);
    const got = await pg.query<{ b: Uint8Array; s: Uint8Array; e: Uint8Array }>("select $1::bytea as b, '\\x00ff10'::bytea as s, ''::bytea as e", [large]);
    expect(got.rows[0]!.b).toEqual(large);
    expect(got.rows[0]!.s).toEqual(new Uint8Array([0, 255, 16]));
    expect(got.rows[0]!.s.buffer.byteLength).toBe(3);
    expect(got.rows[0]!.e).toEqual(new Uint8Array(0));
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

describe("the embedded database's health check", () => {
  test("a busy engine that keeps answering counts as up: the ping does not wait its turn; an idle one is asked", async () => {
    const database = await openDatabase({ dataDir: "", inMemory: true });
    try {
      await database.ping(); // idle: asked with select 1
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let inTx!: () => void;
      const started = new Promise<void>((resolve) => (inTx = resolve));
      const tx = (database.db as unknown as { $client: PgliteOffThread }).$client.transaction(async (t) => {
        await t.query("select 1");
        inTx();
        await held;
      });
      await started;
      // This statement waits for the transaction: the engine has work queued and just answered.
      let waitingDone = false;
      const waiting = database.db.execute(sql`select 1`).then(() => (waitingDone = true));
      await database.ping();
      expect(waitingDone).toBe(false);
      release();
      await tx;
      await waiting;
      expect(waitingDone).toBe(true);
    } finally {
      await database.close();
    }
  });
});
