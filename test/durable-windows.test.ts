import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { rowsOf } from "../db/migrate.ts";
import { CallLog, durableWindows, FLUSH_MS, type MailboxDefinition } from "../src/cluster/durable-windows.ts";
import { fencedActor } from "../src/cluster/fence.ts";
import type { PartitionLeases } from "../src/cluster/leases.ts";
import { createLogger } from "../src/log.ts";
import { startTestService, waitFor, type TestService } from "./harness.ts";

/**
 * The owner's API-key call log (src/cluster/durable-windows.ts) on the real database: a flush
 * writes the calls pending when its turn came, once, and leaves the calls admitted while it
 * writes to the next flush (it used to write again at once, and again, while calls kept
 * coming: a statement per database round trip under load); a failed write keeps its calls
 * and schedules its own retry.
 */
let t: TestService;
let db: Db;
const EPOCH = 7;
const PARTITION = 3;

beforeAll(async () => {
  t = await startTestService();
  db = t.service.internals.database.db;
});
afterAll(() => t.stop());

// Whatever the caller awaits: CallLog only awaits what execute gives back.
type Execute = (db: Db, q: Parameters<Db["execute"]>[0]) => PromiseLike<unknown>;

/**
 * A node that holds PARTITION at EPOCH (its row in cluster_partitions), and a CallLog writing
 * through `execute`; `renew(epoch)` moves its lease to another epoch, in the database and here.
 */
async function owner(execute: Execute, flushMs = FLUSH_MS) {
  const self = `dw-${crypto.randomUUID().slice(0, 8)}`;
  await db.execute(sql`INSERT INTO cluster_partitions (cluster, partition, owner, epoch, expires_at) VALUES (${self}, ${PARTITION}, ${self}, ${EPOCH}, now() + interval '1 hour')`);
  let epoch = EPOCH;
  const renew = async (next: number) => {
    await db.execute(sql`UPDATE cluster_partitions SET epoch = ${next} WHERE cluster = ${self} AND partition = ${PARTITION}`);
    epoch = next;
  };
  const leases = { self, partitionOf: () => PARTITION, held: () => epoch } as unknown as PartitionLeases;
  const through = new Proxy(db, { get: (target, prop, receiver) => (prop === "execute" ? (q: Parameters<Db["execute"]>[0]) => execute(target, q) as ReturnType<Db["execute"]> : Reflect.get(target, prop, receiver)) });
  const log = new CallLog(through, leases, createLogger("silent", "test"), flushMs);
  const mailboxId = crypto.randomUUID();
  const keyId = crypto.randomUUID();
  // Calls are recorded by the mailbox actor inside its fenced handler, which gives them their lease.
  const actor = fencedActor({ kind: "t", activate: async () => ({}), handle: () => log.record(mailboxId, keyId, Date.now()) }, leases);
  const call = () => actor.handle({}, {}, { kind: "t", id: mailboxId } as never);
  const recorded = async () => Number(rowsOf<{ n: number | string }>(await db.execute(sql`SELECT coalesce(sum(n), 0) AS n FROM api_key_calls WHERE key_id = ${keyId}`))[0]!.n);
  return { log, call, recorded, renew, leases, mailboxId, keyId };
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe("API-key call log", () => {
  test("calls admitted while a flush writes go with the next flush, not in a second statement of this one", async () => {
    let statements = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // The timer never fires here: the test runs each flush itself.
    const o = await owner(async (d, q) => {
      statements++;
      if (statements === 1) await held;
      return d.execute(q);
    }, 3_600_000);
    o.call();
    const first = o.log.flush();
    await turns(5);
    expect(statements).toBe(1);
    // While the first statement waits, nine more calls come.
    for (let i = 0; i < 9; i++) o.call();
    release();
    await first;
    await turns(20);
    expect(statements).toBe(1);
    expect(await o.recorded()).toBe(1);
    await o.log.flush();
    expect(statements).toBe(2);
    expect(await o.recorded()).toBe(10);
  }, 30_000);

  test("calls of one key under two leases stay apart: only those under the lease the node still holds are written", async () => {
    const o = await owner((d, q) => d.execute(q), 3_600_000);
    for (let i = 0; i < 3; i++) o.call();
    // The lease moves on (another node took the partition and gave it back) before the flush.
    await o.renew(EPOCH + 1);
    for (let i = 0; i < 2; i++) o.call();
    await o.log.flush();
    // The three calls of the old epoch are fenced out; the two of the new one are written.
    expect(await o.recorded()).toBe(2);
    for (let i = 0; i < 4; i++) o.call();
    await o.log.flush();
    expect(await o.recorded()).toBe(6);
  }, 30_000);

  test("an admitMany is recorded as the calls it granted, none when it granted none", async () => {
    const o = await owner((d, q) => d.execute(q), 3_600_000);
    const answers = [
      { granted: 3, limit: 10, remaining: 7, resetInMs: 1 },
      { granted: 0, limit: 10, remaining: 0, resetInMs: 1 },
    ];
    const def = { kind: "t", activate: async () => ({}), handle: () => answers.shift() } as unknown as MailboxDefinition;
    const actor = fencedActor(durableWindows(def, o.log, { limit: 10, windowMs: 60_000 }), o.leases);
    const many = (count: number) => actor.handle({} as never, { name: "admitMany", args: [o.keyId, count] } as never, { kind: "t", id: o.mailboxId } as never);
    expect(many(5)).toMatchObject({ granted: 3 });
    expect(many(2)).toMatchObject({ granted: 0 });
    await o.log.flush();
    expect(await o.recorded()).toBe(3);
  }, 30_000);

  test("a failed write keeps its calls: its scheduled retry writes them, nothing lost or doubled", async () => {
    let failures = 1;
    const o = await owner((d, q) => {
      if (failures > 0) {
        failures--;
        return Promise.reject(new Error("the database is away"));
      }
      return d.execute(q);
    });
    for (let i = 0; i < 10; i++) o.call();
    // The timer's flush fails; the retry comes without anyone calling again.
    await waitFor(async () => ((await o.recorded()) === 10 ? true : undefined), "the calls written by the retry");
    expect(failures).toBe(0);
    o.call();
    await o.log.flush();
    expect(await o.recorded()).toBe(11);
  }, 30_000);
});
