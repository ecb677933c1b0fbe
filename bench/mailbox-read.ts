/**
 * Authenticated read vs. ceiling.
 *
 *   bun bench/mailbox-read.ts [--seconds 10] [--connections 64] [--rounds 3] [--threads 2] [--pglite]
 *
 * Starts the service on a fresh PostgreSQL database (DATABASE_URL's server, default the
 * local one) and, in the same run, a bare Bun.serve that returns the same JSON body. wrk
 * (apt-get install wrk) drives both with the same connections and duration:
 * GET /v1/mailboxes/{id} with a mailbox API key against the ceiling. The key's rate window
 * still runs on every request; only its limit is raised so that the bench is not all 429s.
 * With NATS_URL set the service joins that NATS as a one-node cluster (NatsPlacement); with
 * --pglite it runs on the embedded database instead, without NATS.
 */
import { parseArgs } from "node:util";
import { BUN, freePort, ROOT, startEmbedded, startOnFreshDatabase, startEnv, stop } from "./lib.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "10" }, connections: { type: "string", default: "64" }, rounds: { type: "string", default: "3" }, threads: { type: "string", default: "2" }, pglite: { type: "boolean", default: false } } });
// wrk threads; on this 2-core machine 2 gave the steadier figures (1 leaves the ceiling even higher).
const threads = Number(values.threads);
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const connections = Number(values.connections);

if (!Bun.which("wrk")) {
  console.error("wrk is needed: apt-get install wrk");
  process.exit(1);
}

const pglite = values.pglite === true;
const { db, admin, svc, base } = pglite ? await startEmbedded({ API_KEY_RATE_WINDOW_SECONDS: "1" }) : await startOnFreshDatabase({ API_KEY_RATE_WINDOW_SECONDS: "1" });

let ceiling: ReturnType<typeof Bun.spawn> | undefined;
try {
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(base + path, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as any;
  };
  const acct = await call("POST", "/v1/accounts", admin, { slug: `bench-${Date.now().toString(36)}`, displayName: "Bench" });
  const mailboxId: string = acct.primary_mailbox.id;
  const key = await call("POST", `/v1/mailboxes/${mailboxId}/api-keys`, admin, { name: "bench", scope: "mailbox" });
  const body = JSON.stringify(await call("GET", `/v1/mailboxes/${mailboxId}`, key.token));

  // The ceiling: a bare Bun.serve in its own process answering the same bytes.
  const ceilingPort = await freePort();
  ceiling = Bun.spawn(
    [BUN, "-e", `Bun.serve({ port: ${ceilingPort}, hostname: "127.0.0.1", fetch: () => new Response(${JSON.stringify(body)}, { headers: { "content-type": "application/json;charset=utf-8" } }) }); console.log("up");`],
    { cwd: ROOT, env: startEnv(), stdout: "pipe" },
  );
  await (ceiling.stdout as ReadableStream<Uint8Array>).getReader().read();

  const wrk = async (url: string, headers: string[]) => {
    const args = ["wrk", `-t${threads}`, `-c${connections}`, `-d${seconds}s`, "--latency", ...headers.flatMap((h) => ["-H", h]), url];
    const p = Bun.spawn(args, { stdout: "pipe" });
    const out = await new Response(p.stdout).text();
    await p.exited;
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
    const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
    const p99ms = p99 ? Number(p99[1]) * (p99[2] === "us" ? 0.001 : p99[2] === "s" ? 1000 : 1) : NaN;
    const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
    return { rps, p99ms, non2xx };
  };

  const path = `/v1/mailboxes/${mailboxId}`;
  const runCeiling = () => wrk(`http://127.0.0.1:${ceilingPort}${path}`, []);
  const runApi = () => wrk(base + path, [`authorization: Bearer ${key.token}`]);
  // Warm both up, then alternate rounds so that drift in the machine's load hits both alike.
  await runCeiling();
  await runApi();
  const ceilRounds: Awaited<ReturnType<typeof wrk>>[] = [];
  const apiRounds: Awaited<ReturnType<typeof wrk>>[] = [];
  for (let i = 0; i < rounds; i++) {
    ceilRounds.push(await runCeiling());
    apiRounds.push(await runApi());
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ceil = { rps: median(ceilRounds.map((r) => r.rps)), p99ms: median(ceilRounds.map((r) => r.p99ms)) };
  const api = { rps: median(apiRounds.map((r) => r.rps)), p99ms: median(apiRounds.map((r) => r.p99ms)), non2xx: apiRounds.reduce((n, r) => n + r.non2xx, 0) };
  const ratios = apiRounds.map((r, i) => ((r.rps / ceilRounds[i]!.rps) * 100).toFixed(1) + "%");

  const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 1 });
  console.log(`GET /v1/mailboxes/{id}, mailbox key, ${connections} connections, ${rounds} alternating rounds of ${seconds}s, medians, ${pglite ? "PGlite (embedded)" : `PostgreSQL${process.env.NATS_URL ? " + NATS" : ""}`}`);
  console.log(`ceiling (bare Bun.serve, same body): ${fmt(ceil.rps)} req/s, p99 ${fmt(ceil.p99ms)} ms`);
  console.log(`service (auth + rate window + actor): ${fmt(api.rps)} req/s, p99 ${fmt(api.p99ms)} ms, non-2xx ${api.non2xx}`);
  console.log(`ratio of medians: ${((api.rps / ceil.rps) * 100).toFixed(1)}% of the ceiling (issue 14: >= 70% on one node); per round: ${ratios.join(", ")}`);
} finally {
  ceiling?.kill();
  await stop(svc.proc);
  await db.drop();
}
