/**
 * CPU per forwarded command of the placement protocol alone, each side in its own process:
 * this process forwards `admit`-like commands (`--concurrency` in flight) through a
 * NatsPlacement to an owner in a child process whose actor answers at once, as the
 * mailbox's admission does, and the CPU of each process per command is printed. Beside it,
 * the same traffic over the least protocol that can carry it (the floor): the commands of
 * one turn of the event loop as one NATS message, answered with one message, nothing per
 * command but its line (no ids, retries, deadlines or leases). The gap between the two is
 * what the protocol's guarantees and our code cost per command, without HTTP in the way.
 *
 *   NATS_URL=nats://… bun bench/placement-cpu.ts [--count 60000] [--rounds 3] [--concurrency 64]
 *
 * Both processes run with the allocator settings `npm start` gives the service (bench/lib.ts
 * startEnv; MIMALLOC_PURGE_DELAY=-1): they are read as a process starts, so this script starts
 * itself again with them when they are missing. Without them a command costs up to twice as
 * much, most of it page faults. Short runs still include the JIT's warm-up: take rounds of
 * 200,000 for the steady state.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { mailboxWireCodec } from "../actors/mailbox/wire.ts";
import { ActorSystem, NatsPlacement, type Ownership } from "../actors/runtime/index.ts";
import { median } from "./cluster-lib.ts";
import { startEnv } from "./lib.ts";
import { floorForwarder, floorOwner } from "./floor-forward.ts";

if (process.env.MIMALLOC_PURGE_DELAY === undefined) {
  const again = Bun.spawn([process.execPath, import.meta.path, ...process.argv.slice(2)], { env: startEnv(), stdio: ["inherit", "inherit", "inherit"] });
  process.exit(await again.exited);
}

const ROLE = process.env.PLACEMENT_CPU_ROLE;
const PREFIX = process.env.PLACEMENT_CPU_PREFIX ?? `placement-cpu-${crypto.randomUUID().slice(0, 8)}`;
const ID = "0b8f3c2e-5a61-4f0e-9d1c-2f6a7e8b9c0d";
const KEY = "7c1e2d3f-4a5b-6c7d-8e9f-0a1b2c3d4e5f";

class Fixed implements Ownership {
  constructor(readonly self: string) {}
  partitionOf(): number {
    return 0;
  }
  held(): number | undefined {
    return this.self === "owner" ? 1 : undefined;
  }
  ownerOf(): string {
    return "owner";
  }
  async refresh(): Promise<void> {}
}

const placement = (nc: NatsConnection, self: string): NatsPlacement => {
  const system = new ActorSystem({ idleMs: Infinity });
  let left = 1e9;
  system.register({ kind: "mailbox", activate: async () => ({}), handle: () => ({ allowed: true, limit: 600, remaining: left--, resetInMs: 600_000 }) });
  return new NatsPlacement({ nc, subjectPrefix: `${PREFIX}.actors`, system, ownership: new Fixed(self), codec: mailboxWireCodec, askTimeoutMs: 5000, logger: { debug() {}, warn() {}, error() {} } });
};

if (ROLE === "owner") {
  const nc = await connect({ servers: process.env.NATS_URL });
  placement(nc, "owner");
  let left = 1e9;
  floorOwner(nc, `${PREFIX}.floor`, () => JSON.stringify({ allowed: true, limit: 600, remaining: left--, resetInMs: 600_000 }));
  await nc.flush();
  console.log("up");
  await new Promise(() => {});
}

const { values } = parseArgs({ options: { count: { type: "string", default: "60000" }, rounds: { type: "string", default: "3" }, concurrency: { type: "string", default: "64" } } });
const count = Number(values.count);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
if (!process.env.NATS_URL) throw new Error("NATS_URL is needed");

const child = Bun.spawn([process.execPath, import.meta.path], { env: { ...process.env, PLACEMENT_CPU_ROLE: "owner", PLACEMENT_CPU_PREFIX: PREFIX }, stdout: "pipe" });
try {
  await (child.stdout as ReadableStream<Uint8Array>).getReader().read();
  const nc = await connect({ servers: process.env.NATS_URL });
  const forwarder = placement(nc, "forwarder");
  const floor = floorForwarder(nc, `${PREFIX}.floor`);
  const childCpuUs = () => {
    const f = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) * 10_000;
  };
  const run = async (send: () => Promise<unknown>) => {
    let next = 0;
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const o0 = childCpuUs();
    await Promise.all(Array.from({ length: concurrency }, async () => { while (next++ < count) await send(); }));
    const cpu = process.cpuUsage(c0);
    return { rate: count / ((performance.now() - t0) / 1000), forwarder: (cpu.user + cpu.system) / count, owner: (childCpuUs() - o0) / count };
  };
  const sides = {
    placement: () => forwarder.ask("mailbox", ID, { name: "admit", args: [KEY] }),
    floor: async () => JSON.parse(await floor(`${ID} ${JSON.stringify({ name: "admit", args: [KEY] })}`)),
  };
  const results = { placement: [] as Awaited<ReturnType<typeof run>>[], floor: [] as Awaited<ReturnType<typeof run>>[] };
  for (const send of Object.values(sides)) await run(send); // warm-up
  for (let i = 0; i < rounds; i++) for (const [name, send] of Object.entries(sides)) results[name as keyof typeof sides].push(await run(send));
  console.log(`forwarded admit-like commands, ${concurrency} in flight, ${rounds} rounds of ${count}; CPU µs per command (median of the rounds)`);
  for (const [name, rs] of Object.entries(results)) {
    console.log(`${name.padEnd(9)} ${Math.round(median(rs.map((r) => r.rate))).toLocaleString("en-US")}/s; forwarder ${median(rs.map((r) => r.forwarder)).toFixed(1)}, owner ${median(rs.map((r) => r.owner)).toFixed(1)}`);
  }
  await forwarder.close();
  await nc.close();
} finally {
  child.kill();
}
