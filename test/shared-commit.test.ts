import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AsyncLocalStorage } from "node:async_hooks";
import { and, eq, sql } from "drizzle-orm";
import { rowsOf } from "../db/migrate.ts";
import { SharedCommit } from "../db/shared-commit.ts";
import { batched, TxBatch } from "../db/tx-batch.ts";
import { senderProfiles } from "../db/schema/index.ts";
import { touchSenderProfiles } from "../src/domain/sender-profiles.ts";
import type { Db, Tx } from "../db/client.ts";
import { seedAccount, startTestService, type TestService } from "./harness.ts";

/**
 * The commit the mailbox actors share (db/shared-commit.ts), on the test database (PGlite, or
 * PostgreSQL with DATABASE_URL): work handed over while a transaction is in flight shares the
 * next one; a piece that fails, or a commit that fails, leaves the others committed and fails
 * only its own piece; nothing resolves before it is committed; and each piece's finish (the
 * fence) runs in the context the piece was handed over in.
 */

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
  // On PostgreSQL the test services share DATABASE_URL's database: the tables may be there from
  // an earlier run, and this run's keys are its own (`key`).
  await db().execute(sql`create table if not exists shared_commit_probe (k text primary key, txid text not null)`);
  await db().execute(sql`create table if not exists shared_commit_deferred (k text, constraint shared_commit_deferred_k unique (k) deferrable initially deferred)`);
});
afterAll(() => t.stop());

const db = (): Db => t.service.internals.database.db;
const run = crypto.randomUUID().slice(0, 8);
/** A key of this run. */
const key = (k: string) => `${run}-${k}`;
/** What `p` fails with, or undefined. (Not `expect(p).rejects`: it waits without the event loop the embedded database's thread answers through.) */
const failure = (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (err: unknown) => err);

/** Writes a row named `k` with the id of the transaction it ran in, and answers that id. */
async function probe(tx: Tx, k: string): Promise<string> {
  const [row] = rowsOf<{ txid: string }>(await tx.execute(sql`insert into shared_commit_probe (k, txid) values (${key(k)}, txid_current()::text) returning txid`));
  return row!.txid;
}

async function stored(keys: string[]): Promise<Map<string, string>> {
  const rows = rowsOf<{ k: string; txid: string }>(await db().execute(sql`select k, txid from shared_commit_probe where k like ${`${run}-%`}`));
  const wanted = new Set(keys);
  return new Map(rows.map((r) => [r.k.slice(run.length + 1), r.txid] as const).filter(([k]) => wanted.has(k)));
}

/** A piece of work held open until `open()`: what is handed over meanwhile queues behind it. */
function held(commit: SharedCommit, k: string) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const done = commit.run(async (tx) => {
    const txid = await probe(tx, k);
    await gate;
    return txid;
  });
  return { open, done };
}

describe("SharedCommit", () => {
  test("work handed over while a transaction is in flight goes in the next one, together, and is committed when it resolves", async () => {
    const commit = new SharedCommit(db());
    const first = held(commit, "a1");
    const rest = ["a2", "a3", "a4"].map((k) => commit.run((tx) => probe(tx, k)));
    first.open();
    const [own, ...shared] = await Promise.all([first.done, ...rest]);
    expect(new Set(shared).size).toBe(1);
    expect(shared[0]).not.toBe(own);
    // Resolved means committed: another connection's read sees every row.
    const rows = await stored(["a1", "a2", "a3", "a4"]);
    expect(rows.get("a1")).toBe(own!);
    for (const k of ["a2", "a3", "a4"]) expect(rows.get(k)).toBe(shared[0]!);
    expect(commit.counts).toMatchObject({ shared: 1, members: 3, alone: 1, givenUp: 0 });
  });

  test("a piece that fails fails alone: the others are committed, each in a transaction of its own", async () => {
    const commit = new SharedCommit(db());
    await commit.run((tx) => probe(tx, "b-taken"));
    const first = held(commit, "b1");
    const ok1 = commit.run((tx) => probe(tx, "b2"));
    // A primary key taken already: this piece's own error, whichever transaction it runs in.
    const bad = failure(commit.run((tx) => probe(tx, "b-taken")));
    const ok2 = commit.run((tx) => probe(tx, "b3"));
    first.open();
    const [, a, b] = await Promise.all([first.done, ok1, ok2]);
    const err = (await bad) as { cause?: { code?: string }; code?: string } | undefined;
    expect(err).toBeDefined();
    expect(err!.cause?.code ?? err!.code).toBe("23505");
    expect(a).not.toBe(b);
    const rows = await stored(["b2", "b3"]);
    expect(rows.get("b2")).toBe(a!);
    expect(rows.get("b3")).toBe(b!);
    expect(commit.counts).toMatchObject({ shared: 0, givenUp: 1 });
  });

  test("a commit that fails (a deferred constraint two pieces broke together) fails only the piece that breaks it alone", async () => {
    const commit = new SharedCommit(db());
    const first = held(commit, "c1");
    const twins = [1, 2].map(() => failure(commit.run(async (tx) => void (await tx.execute(sql`insert into shared_commit_deferred (k) values (${key("twin")})`)))));
    first.open();
    await first.done;
    const errors = await Promise.all(twins);
    expect(errors.filter((e) => e === undefined).length).toBe(1);
    const [{ n }] = rowsOf<{ n: number }>(await db().execute(sql`select count(*)::int as n from shared_commit_deferred where k = ${key("twin")}`)) as [{ n: number }];
    expect(n).toBe(1);
  });

  test("each piece's finish runs in the shared transaction, in the context its work was handed over in (the lease fence)", async () => {
    const lease = new AsyncLocalStorage<string>();
    const commit = new SharedCommit(db(), {
      finish: async (tx) => {
        const who = lease.getStore();
        if (who === "lost") throw new Error("lease lost");
        await tx.execute(sql`insert into shared_commit_probe (k, txid) values (${key(`fence-${who}`)}, txid_current()::text)`);
      },
    });
    const first = lease.run("d1", () => held(commit, "d1"));
    const kept = lease.run("d2", () => commit.run((tx) => probe(tx, "d2")));
    const lost = lease.run("lost", () => failure(commit.run((tx) => probe(tx, "d-lost"))));
    const also = lease.run("d3", () => commit.run((tx) => probe(tx, "d3")));
    first.open();
    await Promise.all([first.done, kept, also]);
    expect(((await lost) as Error).message).toBe("lease lost");
    const rows = await stored(["d1", "d2", "d3", "d-lost", "fence-d1", "fence-d2", "fence-d3", "fence-lost"]);
    expect([...rows.keys()].sort()).toEqual(["d1", "d2", "d3", "fence-d1", "fence-d2", "fence-d3"]);
    // The fence wrote in its piece's transaction.
    for (const k of ["d1", "d2", "d3"]) expect(rows.get(`fence-${k}`)).toBe(rows.get(k)!);
  });

  test("no more than maxMembers pieces share a transaction", async () => {
    const commit = new SharedCommit(db(), { maxMembers: 2 });
    const first = held(commit, "e0");
    const rest = ["e1", "e2", "e3", "e4", "e5"].map((k) => commit.run((tx) => probe(tx, k)));
    first.open();
    const ids = await Promise.all(rest);
    expect(ids[0]).toBe(ids[1]!);
    expect(ids[2]).toBe(ids[3]!);
    expect(new Set(ids).size).toBe(3);
    expect(commit.counts).toMatchObject({ shared: 2, members: 4, alone: 2, givenUp: 0 });
  });
});

/**
 * Statements of one kind that the pieces of a shared transaction send in the same turn go as
 * one (db/tx-batch.ts): each piece gets its own part of the answer; a merged statement that
 * fails gives the shared transaction up and each piece runs alone; a piece alone sends its own.
 */
describe("merged statements (TxBatch)", () => {
  /** Inserts this piece's keys through the batch, answering the transaction id of each of its own rows. */
  const insertKeys = (tx: Tx, keys: string[], sent: string[][]) =>
    batched(
      tx,
      "probe",
      keys.map(key),
      async (db, all) => {
        sent.push(all);
        return rowsOf<{ k: string; txid: string }>(
          await db.execute(sql`insert into shared_commit_probe (k, txid) select k, txid_current()::text from unnest(${`{${all.join(",")}}`}::text[]) k returning k, txid`),
        );
      },
      (rows, mine) => rows.filter((r) => mine.includes(r.k)).map((r) => r.k),
    );

  test("the pieces of a shared transaction send one statement of a kind, and each gets its own rows", async () => {
    const commit = new SharedCommit(db());
    const sent: string[][] = [];
    const first = held(commit, "m0");
    const pieces = [["m1", "m2"], ["m3"], ["m4", "m5"]].map((keys) => commit.run((tx) => insertKeys(tx, keys, sent)));
    first.open();
    const parts = await Promise.all(pieces);
    expect(parts).toEqual([[key("m1"), key("m2")], [key("m3")], [key("m4"), key("m5")]]);
    // One statement for the three pieces, their items in their order.
    expect(sent).toEqual([["m1", "m2", "m3", "m4", "m5"].map(key)]);
    expect(commit.counts).toMatchObject({ shared: 1, members: 3, merged: 1, mergedCalls: 3 });
    const rows = await stored(["m1", "m2", "m3", "m4", "m5"]);
    expect(rows.size).toBe(5);
    expect(new Set(rows.values()).size).toBe(1);
  });

  test("a merged statement that fails gives the shared transaction up: each piece runs alone, and only the one at fault fails", async () => {
    const commit = new SharedCommit(db());
    await commit.run((tx) => probe(tx, "n-taken"));
    const sent: string[][] = [];
    const first = held(commit, "n0");
    const ok1 = commit.run((tx) => insertKeys(tx, ["n1"], sent));
    const bad = failure(commit.run((tx) => insertKeys(tx, ["n-taken"], sent)));
    const ok2 = commit.run((tx) => insertKeys(tx, ["n2"], sent));
    first.open();
    expect(await ok1).toEqual([key("n1")]);
    expect(await ok2).toEqual([key("n2")]);
    expect(String(await bad)).toContain("shared_commit_probe");
    // Merged once (and rolled back), then each piece alone with its own statement.
    expect(sent[0]).toEqual(["n1", "n-taken", "n2"].map(key));
    expect(sent.slice(1).sort()).toEqual([[key("n-taken")], [key("n1")], [key("n2")]]);
    expect(commit.counts).toMatchObject({ shared: 0, givenUp: 1, merged: 0 });
    const rows = await stored(["n1", "n2"]);
    expect(rows.get("n1")).not.toBe(rows.get("n2")!);
  });

  test("a piece alone, or outside any transaction, sends its own statement at once", async () => {
    const commit = new SharedCommit(db());
    const sent: string[][] = [];
    expect(await commit.run((tx) => insertKeys(tx, ["o1"], sent))).toEqual([key("o1")]);
    expect(await insertKeys(db() as unknown as Tx, ["o2"], sent)).toEqual([key("o2")]);
    expect(sent).toEqual([[key("o1")], [key("o2")]]);
    expect(commit.counts.merged).toBe(0);
  });

  test("two mailboxes of an account that see the same sender in one shared transaction touch its profile once, with both sightings", async () => {
    const s = await seedAccount(t);
    const commit = new SharedCommit(db());
    const address = `merged-${run}@outside.example`;
    const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m));
    const first = held(commit, "p0");
    const touches = [
      [{ address, name: "Early", at: at(1) }],
      [{ address, name: "Late", at: at(5) }, { address, name: null, at: at(3) }],
    ].map((sightings) => commit.run((tx) => touchSenderProfiles(tx, s.account.id, sightings)));
    first.open();
    await Promise.all(touches);
    expect(commit.counts).toMatchObject({ shared: 1, givenUp: 0, merged: 1, mergedCalls: 2 });
    const [row] = await db().select().from(senderProfiles).where(and(eq(senderProfiles.accountId, s.account.id), eq(senderProfiles.address, address)));
    expect(row).toMatchObject({ messageCount: 3, displayName: "Late", firstSeenAt: at(1), lastSeenAt: at(5) });
  });
});

describe("TxBatch.within", () => {
  test("a statement handed in and not awaited is sent before the transaction's body ends, not after its commit", async () => {
    const events: string[] = [];
    await db().transaction(async (tx) => {
      await TxBatch.within(tx, async () => {
        // As one call of a Promise.all whose other call failed first: nobody awaits it.
        batched(
          tx,
          "unawaited",
          [1],
          async (conn, all) => {
            events.push(`sent ${all.length}`);
            return conn.execute(sql`select 1`);
          },
          () => undefined,
        ).catch(() => {});
      });
      events.push("body ended");
    });
    expect(events).toEqual(["sent 1", "body ended"]);
  });
});
