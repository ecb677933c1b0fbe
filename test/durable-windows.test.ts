import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { rowsOf } from "../db/migrate.ts";
import { CallLog, FLUSH_MS } from "../src/cluster/durable-windows.ts";
import { fencedActor } from "../src/cluster/fence.ts";
import type { PartitionLeases } from "../src/cluster/leases.ts";
import { createLogger } from "../src/log.ts";
import { sleep, startTestService, type TestService } from "./harness.ts";

/**
 * The owner's API-key call log (src/cluster/durable-windows.ts) on the real database: every
 * admitted call is written, once, in one statement per FLUSH_MS however fast calls come (it
 * used to write back to back while calls kept coming, a statement per database round trip),
 * and a failed write keeps its calls for the next one.
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

/** A node that holds PARTITION at EPOCH (its row in cluster_partitions), and a CallLog writing through `db`. */
async function owner(execute: (db: Db, q: Parameters<Db["execute"]>[0]) => ReturnType<Db["execute"]>) {
  const self = `dw-${crypto.randomUUID().slice(0, 8)}`;
  await db.execute(sql`INSERT INTO cluster_partitions (cluster, partition, owner, epoch, expires_at) VALUES (${self}, ${PARTITION}, ${self}, ${EPOCH}, now() + interval '1 hour')`);
  const leases = { self, partitionOf: () => PARTITION, held: () => EPOCH } as unknown as PartitionLeases;
  const counted = new Proxy(db, { get: (target, prop, receiver) => (prop === "execute" ? (q: Parameters<Db["execute"]>[0]) => execute(target, q) : Reflect.get(target, prop, receiver)) });
  const log = new CallLog(counted, leases, createLogger("silent", "test"));
  const mailboxId = crypto.randomUUID();
  const keyId = crypto.randomUUID();
  // Calls are recorded by the mailbox actor inside its fenced handler, which gives them their lease.
  const actor = fencedActor({ kind: "t", activate: async () => ({}), handle: () => log.record(mailboxId, keyId, Date.now()) }, leases);
  const call = () => actor.handle({}, {}, { kind: "t", id: mailboxId } as never);
  const recorded = async () => Number(rowsOf<{ n: number | string }>(await db.execute(sql`SELECT coalesce(sum(n), 0) AS n FROM api_key_calls WHERE key_id = ${keyId}`))[0]!.n);
  return { log, call, recorded };
}

describe("API-key call log", () => {
  test("calls coming without pause are written a batch per FLUSH_MS, each exactly once", async () => {
    let statements = 0;
    const o = await owner((d, q) => {
      statements++;
      return d.execute(q);
    });
    let calls = 0;
    const startedAt = performance.now();
    // A call every turn of the event loop for 500 ms: far more often than a database round trip.
    while (performance.now() - startedAt < 500) {
      o.call();
      calls++;
      await new Promise((r) => setImmediate(r));
    }
    const elapsed = performance.now() - startedAt;
    await o.log.flush();
    expect(await o.recorded()).toBe(calls);
    // One statement per FLUSH_MS of calls, plus the last flush; a loaded machine only makes it fewer.
    expect(statements).toBeLessThanOrEqual(Math.ceil(elapsed / FLUSH_MS) + 2);
    expect(calls).toBeGreaterThan(statements * 5);
  }, 30_000);

  test("a failed write keeps its calls: the next flush writes them, nothing lost or doubled", async () => {
    let failures = 1;
    const o = await owner((d, q) => {
      if (failures > 0) {
        failures--;
        return Promise.reject(new Error("the database is away")) as ReturnType<Db["execute"]>;
      }
      return d.execute(q);
    });
    for (let i = 0; i < 10; i++) o.call();
    // The timer's flush fails; a retry is scheduled without anyone calling again.
    await sleep(FLUSH_MS * 4);
    for (let i = 0; i < 10 && (await o.recorded()) < 10; i++) await sleep(FLUSH_MS);
    expect(failures).toBe(0);
    expect(await o.recorded()).toBe(10);
    o.call();
    await o.log.flush();
    expect(await o.recorded()).toBe(11);
  }, 30_000);
});
