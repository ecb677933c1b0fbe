/**
 * Many agents polling their own inbox: 2,000 API keys, each on its own mailbox, calling
 * GET /v1/mailboxes/{id}. First the closed-loop maximum (wrk, a random key per request),
 * then an open loop at half of it (requests sent on a fixed schedule whatever the answers,
 * latency measured from the scheduled time, so a stall is counted in full), on one node
 * and on two (requests spread over both). A bare Bun.serve takes the same open loop.
 * Target: p99 <= 50 ms at that rate.
 *
 *   NATS_URL=nats://… bun bench/cluster-poll.ts [--keys 2000] [--seconds 10] [--connections 64]
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { call, ceiling, clusterOnFreshDatabase, fmt, wrk, requireWrk } from "./cluster-lib.ts";
import { BUN, ROOT, tempDir } from "./lib.ts";

requireWrk();

const { values } = parseArgs({ options: { keys: { type: "string", default: "2000" }, seconds: { type: "string", default: "10" }, connections: { type: "string", default: "64" }, nodes: { type: "string", default: "1,2" } } });
const keys = Number(values.keys);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const nodeCounts = values.nodes.split(",").map(Number);

const c = await clusterOnFreshDatabase();
const dir = tempDir("mailroom-poll-");
let ceil: Awaited<ReturnType<typeof ceiling>> | undefined;
try {
  const a = await c.start("a");
  // 2,000 agents: an account each (its primary mailbox) and a key on it.
  const agents: { id: string; token: string }[] = [];
  const make = async (i: number) => {
    const acct = await call(a.base, "POST", "/v1/accounts", c.admin, { slug: `poll-${i}-${Date.now().toString(36)}`, displayName: "Agent" });
    const key = await call(a.base, "POST", `/v1/mailboxes/${acct.primary_mailbox.id}/api-keys`, c.admin, { name: "agent", scope: "mailbox" });
    agents.push({ id: acct.primary_mailbox.id, token: key.token });
  };
  for (let i = 0; i < keys; i += 16) await Promise.all(Array.from({ length: Math.min(16, keys - i) }, (_, j) => make(i + j)));
  const keyFile = join(dir, "keys.txt");
  writeFileSync(keyFile, agents.map((x) => `${x.id} ${x.token}`).join("\n") + "\n");
  const script = join(dir, "poll.lua");
  writeFileSync(
    script,
    `local agents = {}
for line in io.lines("${keyFile}") do
  local id, tok = line:match("([^ ]+) ([^ ]+)")
  if id then agents[#agents + 1] = { "/v1/mailboxes/" .. id, "Bearer " .. tok } end
end
math.randomseed(os.time())
request = function()
  local x = agents[math.random(#agents)]
  return wrk.format("GET", x[1], { ["authorization"] = x[2] })
end
`,
  );
  const body = JSON.stringify(await call(a.base, "GET", `/v1/mailboxes/${agents[0]!.id}`, agents[0]!.token));
  ceil = await ceiling(body);

  const openLoop = async (bases: string[], rate: number) => {
    const p = Bun.spawn([BUN, join(ROOT, "bench/open-loop.ts"), keyFile, String(rate), String(seconds), ...bases], { stdout: "pipe", stderr: "inherit" });
    const out = await new Response(p.stdout).text();
    await p.exited;
    return JSON.parse(out.trim().split("\n").pop()!) as { sent: number; ok: number; other: number; errors: number; p50: number; p99: number; max: number; rate: number; clientCores: number };
  };

  console.log(`${keys} agents polling GET /v1/mailboxes/{id}, PostgreSQL + NATS (noisy: a shared 2-core machine)`);
  for (const n of nodeCounts) {
    if (n === 2 && !c.nodes.has("b")) {
      await c.start("b");
      await c.waitBalanced(2);
    }
    const bases = [...c.nodes.values()].slice(0, n).map((x) => x.base);
    // Warm every actor once (activation reads the row and the windows).
    await Promise.all(agents.map((x, i) => fetch(`${bases[i % bases.length]}/v1/mailboxes/${x.id}`, { headers: { authorization: `Bearer ${x.token}` } }).then((r) => r.arrayBuffer())));
    const closed = await Promise.all(bases.map((b) => wrk(b + "/", { connections: Math.max(1, Math.floor(connections / bases.length)), seconds, script })));
    const max = closed.reduce((s, r) => s + r.rps, 0);
    const rate = Math.max(1, Math.floor(max / 2));
    const open = await openLoop(bases, rate);
    console.log(`${n} node(s): closed-loop max ${fmt(max)} req/s (p99 ${fmt(Math.max(...closed.map((r) => r.p99ms)))} ms, non-2xx ${closed.reduce((s, r) => s + r.non2xx, 0)}); open loop at ${fmt(rate)} req/s: served ${fmt(open.ok)} of ${fmt(open.sent)} (${fmt(open.rate)} req/s), p50 ${fmt(open.p50)} ms, p99 ${fmt(open.p99)} ms, max ${fmt(open.max)} ms, non-200 ${open.other}, errors ${open.errors}, client ${open.clientCores.toFixed(2)} CPU`);
    const bare = await openLoop([ceil.url], rate);
    console.log(`  bare Bun.serve at the same rate: p50 ${fmt(bare.p50)} ms, p99 ${fmt(bare.p99)} ms, max ${fmt(bare.max)} ms, client ${bare.clientCores.toFixed(2)} CPU`);
  }
} finally {
  ceil?.kill();
  await c.stopAll();
}
