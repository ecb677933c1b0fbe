/**
 * The forwarding path alone: two NatsPlacements in this process over the NATS of NATS_URL,
 * the mailbox wire codec, an actor answering a mailbox-sized row from memory. Prints the
 * latency of one forwarded read at a time and the throughput of `--concurrency` in flight,
 * next to the same through the local path, so changes to the protocol and codec show alone.
 *
 *   NATS_URL=nats://… bun bench/placement-forward.ts [--count 20000] [--concurrency 64]
 */
import { parseArgs } from "node:util";
import { connect } from "@nats-io/transport-node";
import { ActorSystem, NatsPlacement, type Ownership } from "../actors/runtime/index.ts";
import { mailboxWireCodec } from "../actors/mailbox/wire.ts";
import { fmt, quantile } from "./cluster-lib.ts";

const { values } = parseArgs({ options: { count: { type: "string", default: "20000" }, concurrency: { type: "string", default: "64" } } });
const count = Number(values.count);
const concurrency = Number(values.concurrency);
if (!process.env.NATS_URL) throw new Error("NATS_URL is needed");

const row = {
  id: "0b8f3c2e-5a61-4f0e-9d1c-2f6a7e8b9c0d", accountId: "7c1e2d3f-4a5b-6c7d-8e9f-0a1b2c3d4e5f", address: "bench@example.com", displayName: "Bench",
  status: "active", policy: { mode: "auto-send", maxOutboundPerDay: 100, allowDomains: ["example.com"] }, createdAt: new Date(), updatedAt: new Date(),
};
class Fixed implements Ownership {
  constructor(readonly self: string) {}
  partitionOf() { return 0; }
  held() { return this.self === "owner" ? 1 : undefined; }
  ownerOf() { return "owner"; }
  async refresh() {}
}
const prefix = `bench-${crypto.randomUUID().slice(0, 8)}`;
const logger = { debug() {}, warn() {}, error() {} };
const make = async (name: string) => {
  const nc = await connect({ servers: process.env.NATS_URL });
  const system = new ActorSystem({ idleMs: Infinity });
  system.register({ kind: "mailbox", activate: async () => ({ row }), read: (s: { row: unknown }) => ({ value: s.row }), handle: async (s: { row: unknown }) => s.row } as never);
  return { nc, placement: new NatsPlacement({ nc, subjectPrefix: `${prefix}.actors`, system, ownership: new Fixed(name), codec: mailboxWireCodec, askTimeoutMs: 5000, logger }) };
};
const owner = await make("owner");
const other = await make("other");
const msg = { name: "get", args: [] };
const one = (p: NatsPlacement, i: number) => (i % 2 ? p.read("mailbox", row.id, msg) : p.ask("mailbox", row.id, { name: "admit", args: ["key", 1] }));

const latency = async (p: NatsPlacement) => {
  const xs: number[] = [];
  for (let i = 0; i < count / 4; i++) {
    const t0 = performance.now();
    await one(p, i);
    xs.push(performance.now() - t0);
  }
  return xs;
};
const throughput = async (p: NatsPlacement) => {
  let next = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, async () => { while (next < count) await one(p, next++); }));
  const cpu = process.cpuUsage(c0);
  return { rps: count / ((performance.now() - t0) / 1000), cpuUs: (cpu.user + cpu.system) / count };
};
await latency(other.placement);
await throughput(other.placement);
const lo = await latency(owner.placement);
const fw = await latency(other.placement);
const tlo = await throughput(owner.placement);
const tfw = await throughput(other.placement);
console.log(`one at a time: local p50 ${fmt(quantile(lo, 0.5) * 1000)} µs p99 ${fmt(quantile(lo, 0.99) * 1000)} µs; forwarded p50 ${fmt(quantile(fw, 0.5) * 1000)} µs p99 ${fmt(quantile(fw, 0.99) * 1000)} µs`);
// CPU time of this process (both nodes) per message: steadier than rates on a loaded machine.
console.log(`${concurrency} in flight: local ${fmt(tlo.rps)}/s (${fmt(tlo.cpuUs)} µs CPU each), forwarded ${fmt(tfw.rps)}/s (${fmt(tfw.cpuUs)} µs CPU each, both nodes)`);
await other.placement.close();
await owner.placement.close();
await other.nc.close();
await owner.nc.close();
