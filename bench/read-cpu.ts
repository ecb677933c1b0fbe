/**
 * CPU per request of GET /v1/mailboxes/{id} with a mailbox key, against a bare Bun.serve
 * answering the same bytes: the service's own cost per request, which the throughput ratio
 * of bench/mailbox-read.ts shows only through the noise of a shared 2-core machine (wrk
 * takes a core's worth, and each side's share of the CPU moves from round to round).
 *
 *   bun bench/read-cpu.ts [--seconds 4] [--rounds 5] [--connections 64] [--against <checkout>]
 *
 * Beside the ceiling runs the floor (bench/read-floor-server.ts): a bare Bun.serve that reads
 * what the fast path must read of a request and answers with the headers it must send, so
 * the report splits the service's cost into Bun's share for what the API is (floor over
 * ceiling) and ours (service over floor).
 *
 * --against starts a second service from another checkout (a `git worktree` of the commit
 * to compare with, its node_modules linked) on its own fresh database, and interleaves it
 * with this one: an A/B of a change to the read path.
 *
 * Reported per side: requests/s (median) and microseconds of process CPU (user + system, all
 * threads, from /proc) per request, as the minimum and the median of the rounds. Load from
 * other tenants only ever adds CPU, so the minimum is the steadier figure.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { call, ceiling, cpuUs, floor, median, wrk, requireWrk } from "./cluster-lib.ts";
import { ROOT, startOnFreshDatabase, stop } from "./lib.ts";

requireWrk();

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "4" }, rounds: { type: "string", default: "5" }, connections: { type: "string", default: "64" }, against: { type: "string" } },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);

// wrk's 2 threads, as bench/mailbox-read.ts drives it.
const wrkRps = async (url: string, headers: string[]): Promise<number> => (await wrk(url, { connections, seconds, threads: 2, headers })).rps;

interface Side {
  name: string;
  pid: number;
  url: string;
  headers: string[];
  rps: number[];
  us: number[];
}

/** A service on a fresh database with one mailbox and its key; a NATS_PREFIX of its own keeps two apart on one NATS server. */
async function service(name: string, root: string) {
  const s = await startOnFreshDatabase({ API_KEY_RATE_WINDOW_SECONDS: "1", NATS_PREFIX: `readcpu${crypto.randomUUID().slice(0, 8)}` }, root);
  const acct = await call(s.base, "POST", "/v1/accounts", s.admin, { slug: `bench-${Date.now().toString(36)}`, displayName: "Bench" });
  const path = `/v1/mailboxes/${acct.primary_mailbox.id}`;
  const key = await call(s.base, "POST", `${path}/api-keys`, s.admin, { name: "bench", scope: "mailbox" });
  const body = JSON.stringify(await call(s.base, "GET", path, key.token));
  const side: Side = { name, pid: s.svc.proc.pid, url: s.base + path, headers: [`authorization: Bearer ${key.token}`], rps: [], us: [] };
  return { ...s, side, body, path };
}

const services = [await service("service", ROOT)];
let bare: Awaited<ReturnType<typeof ceiling>> | undefined;
let least: Awaited<ReturnType<typeof floor>> | undefined;
try {
  if (values.against) services.push(await service(`service at ${values.against}`, resolve(values.against)));
  const { body, path } = services[0]!;
  bare = await ceiling(body);
  least = await floor(body);
  const sides: Side[] = [
    { name: "ceiling (bare Bun.serve)", pid: bare.pid, url: bare.url + path, headers: [], rps: [], us: [] },
    { name: "floor (bare Bun.serve, the fast path's reads and headers)", pid: least.pid, url: least.url + path, headers: services[0]!.side.headers, rps: [], us: [] },
    ...services.map((s) => s.side),
  ];

  for (const s of sides) await wrkRps(s.url, s.headers); // warm-up
  for (let i = 0; i < rounds; i++) {
    // Alternate the order, so that drift in the machine's load does not always favour one side.
    for (const s of i % 2 === 0 ? sides : [...sides].reverse()) {
      const before = cpuUs(s.pid);
      const rps = await wrkRps(s.url, s.headers);
      s.rps.push(rps);
      s.us.push((cpuUs(s.pid) - before) / (rps * seconds));
    }
  }
  console.log(`GET /v1/mailboxes/{id}, mailbox key, ${connections} connections, ${rounds} interleaved rounds of ${seconds}s, ${process.env.NATS_URL ? "PostgreSQL + NATS" : "PostgreSQL"}`);
  for (const s of sides) {
    console.log(`${s.name}: ${Math.round(median(s.rps)).toLocaleString("en-US")} req/s; CPU per request min ${Math.min(...s.us).toFixed(1)} µs, median ${median(s.us).toFixed(1)} µs (rounds: ${s.us.map((u) => u.toFixed(1)).join(", ")})`);
  }
  const ceilingUs = Math.min(...sides[0]!.us);
  const floorUs = Math.min(...sides[1]!.us);
  const ceilingRps = median(sides[0]!.rps);
  for (const s of sides.slice(1)) {
    const us = Math.min(...s.us);
    const vsFloor = s === sides[1] ? "" : `, ${(us / floorUs).toFixed(2)}× the floor's`;
    console.log(`${s.name}: ${(us / ceilingUs).toFixed(2)}× the ceiling's CPU per request (minimums)${vsFloor}; ${((median(s.rps) / ceilingRps) * 100).toFixed(1)}% of its requests/s`);
  }
} finally {
  bare?.kill();
  least?.kill();
  for (const s of services) {
    await stop(s.svc.proc);
    await s.db.drop();
  }
}
