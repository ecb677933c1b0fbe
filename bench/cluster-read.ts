/**
 * Authenticated GET /v1/mailboxes/{id} on a NATS cluster: one node, then two nodes with the
 * requests spread over both (half of them reach the non-owner and are forwarded), each
 * against a bare Bun.serve ceiling in the same run; then the latency of one request at a
 * time, local (on the owner) vs forwarded (on the other node).
 *
 * Beside each runs its floor (bench/read-floor-server.ts): one bare server that reads and
 * answers what the fast path must, and a pair of them where one counts every call and the
 * other forwards each of its calls to it over the same NATS, batched as the placement
 * batches. service/floor is how close our code runs to what the API on Bun and NATS costs.
 *
 *   NATS_URL=nats://… bun bench/cluster-read.ts [--seconds 8] [--connections 64] [--rounds 2] [--warmup 8]
 *
 * --warmup: seconds of load on each setup (the ceiling, the floors, one node, then both)
 * before its rounds, so that the rounds see compiled code. The service is a far larger program
 * than the floors, and its JIT was still compiling after 8 s of load (a fifth of the owner's
 * CPU on JIT threads): 30 measures the steady state a long-running node is in.
 */
import { parseArgs } from "node:util";
import { call, ceiling, clusterOnFreshDatabase, floor, fmt, mailboxWithKey, median, quantile, wrk, requireWrk } from "./cluster-lib.ts";

requireWrk();

const { values } = parseArgs({ options: { seconds: { type: "string", default: "8" }, warmup: { type: "string" }, connections: { type: "string", default: "64" }, rounds: { type: "string", default: "2" }, samples: { type: "string", default: "2000" } } });
const seconds = Number(values.seconds);
const warmup = Number(values.warmup ?? values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const samples = Number(values.samples);

const c = await clusterOnFreshDatabase();
let ceil: Awaited<ReturnType<typeof ceiling>> | undefined;
const floors: Awaited<ReturnType<typeof floor>>[] = [];
try {
  const a = await c.start("a");
  const { mailboxId, token } = await mailboxWithKey(a.base, c.admin);
  const body = JSON.stringify(await call(a.base, "GET", `/v1/mailboxes/${mailboxId}`, token));
  ceil = await ceiling(body);
  const path = `/v1/mailboxes/${mailboxId}`;
  const auth = [`authorization: Bearer ${token}`];

  const runCeiling = (s = seconds) => wrk(ceil!.url + path, { connections, seconds: s });
  const one = (s = seconds) => wrk(a.base + path, { connections, seconds: s, headers: auth });
  // The floors, in the same rounds as the service: one server, then the owner and the forwarder.
  const subject = `read-floor-${Date.now().toString(36)}`;
  floors.push(await floor(body), await floor(body, { role: "owner", subject }), await floor(body, { role: "forwarder", subject }));
  const floorOne = (s = seconds) => wrk(floors[0]!.url + path, { connections, seconds: s, headers: auth });
  const floorPair = async (s = seconds) => {
    const [x, y] = await Promise.all([
      wrk(floors[1]!.url + path, { connections: connections / 2, seconds: s, headers: auth }),
      wrk(floors[2]!.url + path, { connections: connections / 2, seconds: s, headers: auth }),
    ]);
    return { rps: x.rps + y.rps, non2xx: x.non2xx + y.non2xx };
  };
  await runCeiling(warmup);
  await floorOne(warmup);
  await floorPair(warmup);
  await one(warmup);
  const single: { api: number; ceil: number; p99: number; floor?: number }[] = [];
  for (let i = 0; i < rounds; i++) {
    const cr = await runCeiling();
    const fl = await floorOne();
    const r = await one();
    single.push({ api: r.rps, ceil: cr.rps, p99: r.p99ms, floor: fl.rps });
  }

  const b = await c.start("b");
  await c.waitBalanced(2);
  const owner = await c.ownerOf(mailboxId);
  const both = async (s = seconds) => {
    const [x, y] = await Promise.all([
      wrk(a.base + path, { connections: connections / 2, seconds: s, headers: auth }),
      wrk(b.base + path, { connections: connections / 2, seconds: s, headers: auth }),
    ]);
    return { rps: x.rps + y.rps, p99: Math.max(x.p99ms, y.p99ms), non2xx: x.non2xx + y.non2xx };
  };
  await both(warmup);
  const pair: { api: number; ceil: number; p99: number; floor?: number }[] = [];
  for (let i = 0; i < rounds; i++) {
    const cr = await runCeiling();
    const fl = await floorPair();
    if (fl.non2xx > 0) throw new Error(`the floor pair failed ${fl.non2xx} requests`);
    const r = await both();
    pair.push({ api: r.rps, ceil: cr.rps, p99: r.p99, floor: fl.rps });
  }

  // One request at a time: on the owner, and on the other node (forwarded over NATS).
  const local = owner === "a" ? a : b;
  const remote = owner === "a" ? b : a;
  const latency = async (base: string) => {
    const xs: number[] = [];
    for (let i = 0; i < samples; i++) {
      const t0 = performance.now();
      const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      xs.push(performance.now() - t0);
    }
    return { p50: quantile(xs, 0.5), p99: quantile(xs, 0.99) };
  };
  await latency(local.base);
  await latency(remote.base);
  const lo = await latency(local.base);
  const fw = await latency(remote.base);

  const ratio = (rs: { api: number; ceil: number }[]) => `${((median(rs.map((r) => r.api)) / median(rs.map((r) => r.ceil))) * 100).toFixed(1)}% (rounds: ${rs.map((r) => ((r.api / r.ceil) * 100).toFixed(1) + "%").join(", ")})`;
  const ofFloor = (rs: { api: number; ceil: number; floor?: number }[]) => {
    const f = median(rs.map((r) => r.floor!));
    return `floor ${fmt(f)} req/s (${((f / median(rs.map((r) => r.ceil))) * 100).toFixed(1)}% of the ceiling); service at ${((median(rs.map((r) => r.api)) / f) * 100).toFixed(1)}% of its floor`;
  };
  console.log(`GET /v1/mailboxes/{id} with a mailbox key, PostgreSQL + NATS cluster, ${connections} connections, ${rounds} rounds of ${seconds}s (noisy: a shared 2-core machine)`);
  console.log(`1 node:  ${fmt(median(single.map((r) => r.api)))} req/s, p99 ${fmt(median(single.map((r) => r.p99)))} ms; ceiling ${fmt(median(single.map((r) => r.ceil)))} req/s; ratio ${ratio(single)}`);
  console.log(`         ${ofFloor(single)}`);
  console.log(`2 nodes: ${fmt(median(pair.map((r) => r.api)))} req/s, p99 ${fmt(median(pair.map((r) => r.p99)))} ms; ceiling ${fmt(median(pair.map((r) => r.ceil)))} req/s; ratio ${ratio(pair)}`);
  console.log(`         ${ofFloor(pair)}`);
  console.log(`one at a time (${samples} requests): local p50 ${fmt(lo.p50)} ms, p99 ${fmt(lo.p99)} ms; forwarded p50 ${fmt(fw.p50)} ms, p99 ${fmt(fw.p99)} ms`);
} finally {
  ceil?.kill();
  for (const f of floors) f.kill();
  await c.stopAll();
}
