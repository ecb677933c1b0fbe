import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { PARTITIONS, PartitionLeases } from "../src/cluster/leases.ts";
import { startTestService, waitFor, type TestService } from "./harness.ts";

/**
 * The partition leases (src/cluster/leases.ts) on the test database, without NATS: clusters of
 * different NATS prefixes on one database lease apart, nodes of one cluster share.
 */
let t: TestService;
beforeAll(async () => {
  t = await startTestService({ NATS_URL: "" });
});
afterAll(() => t.stop());

const log = pino({ level: "silent" });
const leases = (cluster: string, nodeId: string) =>
  new PartitionLeases(t.service.internals.database.db, { cluster, nodeId, leaseMs: 3000, log, rateWindowMs: 600_000 });

describe("partition leases", () => {
  test("clusters of different prefixes on one database each hold all their partitions; one cluster's nodes share them", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const a1 = leases(`a-${tag}`, "a1");
    const b1 = leases(`b-${tag}`, "b1");
    const a2 = leases(`a-${tag}`, "a2");
    try {
      await a1.start();
      await b1.start();
      expect(a1.heldPartitions().length).toBe(PARTITIONS);
      expect(b1.heldPartitions().length).toBe(PARTITIONS);
      await a2.start();
      // a1 hands a2 its share (drain, release, take): every partition of `a` held exactly once.
      await waitFor(
        async () => {
          await Promise.all([a1.refresh(), a2.refresh()]);
          const [x, y] = [a1.heldPartitions(), a2.heldPartitions()];
          return y.length > 0 && x.length + y.length === PARTITIONS && new Set([...x, ...y]).size === PARTITIONS ? true : undefined;
        },
        "the share of the second node",
        15_000,
      );
      expect(b1.heldPartitions().length).toBe(PARTITIONS);
    } finally {
      await Promise.all([a1.stop(), b1.stop(), a2.stop()]);
    }
  }, 30_000);
});
