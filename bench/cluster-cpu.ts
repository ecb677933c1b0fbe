/**
 * Where the CPU of a read goes on a NATS cluster of two nodes: authenticated
 * GET /v1/mailboxes/{id} sent to the owner only, to the other node only (every request
 * forwarded over NATS), and to both, with the process CPU (user + system, all threads, from
 * /proc) of each node and of the local nats-server per request served. The throughput
 * ratio of bench/cluster-read.ts says how far two nodes are from the ceiling; this says who
 * spends it: the HTTP side, the forwarding node, the owner answering forwarded commands, or
 * the NATS server carrying them.
 *
 *   NATS_URL=nats://… bun bench/cluster-cpu.ts [--seconds 5] [--rounds 3] [--connections 64] [--only owner|other|both] [--warmup 2]
 *
 * --warmup: seconds of the same traffic before each mode's rounds (the JIT of a node that has
 * not served that traffic yet is still compiling for tens of seconds; see cluster-read.ts).
 * Beside the CPU, each line gives the machine's idle share during the rounds (/proc/stat): a
 * process that leaves the cores idle under a closed loop is waiting, not working.
 *
 * --only runs one of the three (with BENCH_CPU_PROF, a profile of just that traffic).
 *
 * Then the same traffic against the two-node floor (bench/read-floor-server.ts: a bare
 * owner that counts calls, and a bare forwarder that asks it for each over NATS), so each
 * process's share can be set beside what the least forwarding costs; --no-floor skips it.
 * With READ_FLOOR_PLACEMENT=1 that pair forwards through the service's NatsPlacement instead:
 * the protocol's own cost in the service's HTTP setting, without the service's other layers.
 *
 * The nats-server is found by name on this machine (pgrep -x nats-server); without one its
 * column is left out.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { call, clusterOnFreshDatabase, cpuUs, floor, mailboxWithKey, median, wrk, requireWrk } from "./cluster-lib.ts";

requireWrk();

const { values } = parseArgs({ options: { only: { type: "string" }, "no-floor": { type: "boolean", default: false }, seconds: { type: "string", default: "5" }, warmup: { type: "string", default: "2" }, rounds: { type: "string", default: "3" }, connections: { type: "string", default: "64" } } });
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const warmup = Number(values.warmup);
/** The machine's CPU time so far (jiffies): all, and idle. */
const machine = () => {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { all: f.reduce((s, x) => s + x, 0), idle: f[3]! + f[4]! };
};
const connections = Number(values.connections);

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}
const natsPid = Number(Bun.spawnSync(["pgrep", "-x", "nats-server"]).stdout.toString().trim().split("\n")[0]) || undefined;

const c = await clusterOnFreshDatabase();
const floors: Awaited<ReturnType<typeof floor>>[] = [];
try {
  const a = await c.start("a");
  const { mailboxId, token } = await mailboxWithKey(a.base, c.admin);
  const b = await c.start("b");
  await c.waitBalanced(2);
  const ownerName = await c.ownerOf(mailboxId);
  const [owner, other] = ownerName === "a" ? [a, b] : [b, a];
  const path = `/v1/mailboxes/${mailboxId}`;
  const headers = [`authorization: Bearer ${token}`];
  const nats = natsPid === undefined ? [] : ([["nats-server", natsPid]] as [string, number][]);
  const all = { owner: "to the owner", other: "to the other node (all forwarded)", both: "to both (half forwarded)" } as const;
  const modes = values.only === undefined ? (Object.keys(all) as (keyof typeof all)[]) : [values.only in all ? (values.only as keyof typeof all) : fail(`--only is owner, other or both`)];

  /** Each mode's traffic against an owner and the other node, with the CPU per request of each process. */
  const measure = async (label: string, ownerNode: { base: string; pid: number }, otherNode: { base: string; pid: number }) => {
    const processes: [string, number][] = [["owner", ownerNode.pid], ["other node", otherNode.pid], ...nats];
    const targetsOf = { owner: [ownerNode], other: [otherNode], both: [ownerNode, otherNode] };
    const run = async (targets: { base: string }[], secs: number) => {
      const results = await Promise.all(targets.map((n) => wrk(n.base + path, { connections: connections / targets.length, seconds: secs, headers })));
      return { rps: results.reduce((s, r) => s + r.rps, 0), non2xx: results.reduce((s, r) => s + r.non2xx, 0) };
    };
    for (const mode of modes) {
      const targets = targetsOf[mode];
      await run(targets, warmup);
      const rps: number[] = [];
      const per = new Map<string, number[]>(processes.map(([name]) => [name, []]));
      let non2xx = 0;
      const m0 = machine();
      for (let i = 0; i < rounds; i++) {
        const before = processes.map(([, pid]) => cpuUs(pid));
        const r = await run(targets, seconds);
        const served = r.rps * seconds;
        processes.forEach(([name, pid], j) => per.get(name)!.push((cpuUs(pid) - before[j]!) / served));
        rps.push(r.rps);
        non2xx += r.non2xx;
      }
      const m1 = machine();
      const idle = (100 * (m1.idle - m0.idle)) / (m1.all - m0.all);
      const split = processes.map(([name]) => `${name} ${median(per.get(name)!).toFixed(1)}`);
      const total = processes.reduce((s, [name]) => s + median(per.get(name)!), 0);
      console.log(`${label}${all[mode]}: ${Math.round(median(rps)).toLocaleString("en-US")} req/s; ${split.join(", ")}; total ${total.toFixed(1)}; machine idle ${idle.toFixed(0)}%${non2xx ? `; ${non2xx} non-2xx` : ""}`);
    }
  };
  console.log(`GET /v1/mailboxes/{id} on two nodes, PostgreSQL + NATS, ${connections} connections, ${rounds} rounds of ${seconds}s; CPU µs per request served, median of the rounds`);
  await measure("", { base: owner.base, pid: owner.svc.proc.pid }, { base: other.base, pid: other.svc.proc.pid });
  if (!values["no-floor"]) {
    const body = JSON.stringify(await call(owner.base, "GET", path, token));
    const subject = `read-floor-${Date.now().toString(36)}`;
    floors.push(await floor(body, { role: "owner", subject }), await floor(body, { role: "forwarder", subject }));
    const [fo, ff] = floors.map((f) => ({ base: f.url, pid: f.pid }));
    await measure("floor, ", fo!, ff!);
  }
} finally {
  for (const f of floors) f.kill();
  await c.stopAll();
}
