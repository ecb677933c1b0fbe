/**
 * Authenticated GET /v1/mailboxes/{id} on a NATS cluster: one node, then two nodes with the
 * requests spread over both (half of them reach the non-owner and are forwarded), each
 * against a bare Bun.serve ceiling in the same run; then the latency of one request at a
 * time, local (on the owner) vs forwarded (on the other node).
 *
 *   NATS_URL=nats://… bun bench/cluster-read.ts [--seconds 8] [--connections 64] [--rounds 2]
 */
import { parseArgs } from "node:util";
import { call, ceiling, clusterOnFreshDatabase, fmt, median, quantile, wrk } from "./cluster-lib.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "8" }, connections: { type: "string", default: "64" }, rounds: { type: "string", default: "2" }, samples: { type: "string", default: "2000" } } });
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const samples = Number(values.samples);

const c = await clusterOnFreshDatabase();
let ceil: Awaited<ReturnType<typeof ceiling>> | undefined;
try {
  const a = await c.start("a");
  const acct = await call(a.base, "POST", "/v1/accounts", c.admin, { slug: `bench-${Date.now().toString(36)}`, displayName: "Bench" });
  const mailboxId: string = acct.primary_mailbox.id;
  const key = await call(a.base, "POST", `/v1/mailboxes/${mailboxId}/api-keys`, c.admin, { name: "bench", scope: "mailbox" });
  const body = JSON.stringify(await call(a.base, "GET", `/v1/mailboxes/${mailboxId}`, key.token));
  ceil = await ceiling(body);
  const path = `/v1/mailboxes/${mailboxId}`;
  const auth = [`authorization: Bearer ${key.token}`];

  const runCeiling = () => wrk(ceil!.url + path, { connections, seconds });
  const one = () => wrk(a.base + path, { connections, seconds, headers: auth });
  await runCeiling();
  await one();
  const single: { api: number; ceil: number; p99: number }[] = [];
  for (let i = 0; i < rounds; i++) {
    const cr = await runCeiling();
    const r = await one();
    single.push({ api: r.rps, ceil: cr.rps, p99: r.p99ms });
  }

  const b = await c.start("b");
  await c.waitBalanced(2);
  const owner = await c.ownerOf(mailboxId);
  const both = async () => {
    const [x, y] = await Promise.all([
      wrk(a.base + path, { connections: connections / 2, seconds, headers: auth }),
      wrk(b.base + path, { connections: connections / 2, seconds, headers: auth }),
    ]);
    return { rps: x.rps + y.rps, p99: Math.max(x.p99ms, y.p99ms), non2xx: x.non2xx + y.non2xx };
  };
  await both();
  const pair: { api: number; ceil: number; p99: number }[] = [];
  for (let i = 0; i < rounds; i++) {
    const cr = await runCeiling();
    const r = await both();
    pair.push({ api: r.rps, ceil: cr.rps, p99: r.p99 });
  }

  // One request at a time: on the owner, and on the other node (forwarded over NATS).
  const local = owner === "a" ? a : b;
  const remote = owner === "a" ? b : a;
  const latency = async (base: string) => {
    const xs: number[] = [];
    for (let i = 0; i < samples; i++) {
      const t0 = performance.now();
      const res = await fetch(base + path, { headers: { authorization: `Bearer ${key.token}` } });
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
  console.log(`GET /v1/mailboxes/{id} with a mailbox key, PostgreSQL + NATS cluster, ${connections} connections, ${rounds} rounds of ${seconds}s (noisy: a shared 2-core machine)`);
  console.log(`1 node:  ${fmt(median(single.map((r) => r.api)))} req/s, p99 ${fmt(median(single.map((r) => r.p99)))} ms; ceiling ${fmt(median(single.map((r) => r.ceil)))} req/s; ratio ${ratio(single)}`);
  console.log(`2 nodes: ${fmt(median(pair.map((r) => r.api)))} req/s, p99 ${fmt(median(pair.map((r) => r.p99)))} ms; ceiling ${fmt(median(pair.map((r) => r.ceil)))} req/s; ratio ${ratio(pair)}`);
  console.log(`one at a time (${samples} requests): local p50 ${fmt(lo.p50)} ms, p99 ${fmt(lo.p99)} ms; forwarded p50 ${fmt(fw.p50)} ms, p99 ${fmt(fw.p99)} ms`);
} finally {
  ceil?.kill();
  await c.stopAll();
}
