/**
 * Event-loop stalls from hostile HTTP input (issue 13): while each input is sent, another
 * client pings GET /health every 20 ms; the bench prints, per input, the status it got, how
 * long it took and the worst gap between two /health answers. A gap far over 20 ms means the
 * request held the node's event loop.
 *
 *   bun bench/hostile-http.ts            (embedded PGlite in memory)
 *   DATABASE_URL=postgres://… bun bench/hostile-http.ts   (a fresh database on that server)
 */
import { freePort, startOnFreshDatabase, startService, stop, tempDir } from "./lib.ts";

async function start() {
  if (process.env.DATABASE_URL) return startOnFreshDatabase();
  const port = await freePort();
  const admin = `bench-admin-${crypto.randomUUID()}`;
  const svc = await startService({
    PORT: String(port),
    SMTP_PORT: String(await freePort()),
    HOST: "127.0.0.1",
    ADMIN_TOKEN: admin,
    DATA_DIR: tempDir("mailroom-bench-"),
    PGLITE_IN_MEMORY: "true",
    API_KEY_RATE_LIMIT: "10000000",
  }, 120_000);
  return { db: null, port, admin, svc, base: `http://127.0.0.1:${port}` };
}

const { db, admin, svc, base } = await start();
interface Call {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}
const call = async ({ method, path, body, headers = {} }: Call) => {
  const res = await fetch(base + path, { method, headers: { authorization: `Bearer ${admin}`, ...headers }, body });
  return { status: res.status, text: await res.text() };
};

const account = JSON.parse((await call({ method: "POST", path: "/v1/accounts", body: JSON.stringify({ slug: `hostile-${Date.now() % 1e9}`, displayName: "Hostile" }), headers: { "content-type": "application/json" } })).text);
const mb: string = account.primary_mailbox.id;
const host: string = account.primary_mailbox.protocol_host;
const json = { "content-type": "application/json" };
const nested = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);

// Built before the pinger starts, so the client's own work does not show up as a gap.
const inputs: [string, () => Call][] = [
  ["20,000-deep object", () => ({ method: "PUT", path: `/v1/mailboxes/${mb}/policy`, body: nested(20_000), headers: json })],
  ["30,000-deep object", () => ({ method: "PUT", path: `/v1/mailboxes/${mb}/policy`, body: nested(30_000), headers: json })],
  ["100,000-deep array in a field", () => ({ method: "POST", path: `/v1/mailboxes/${mb}/search`, body: `{"query":${"[".repeat(100_000)}${"]".repeat(100_000)}}`, headers: json })],
  ["99,000 unknown keys", () => ({ method: "PUT", path: `/v1/mailboxes/${mb}/policy`, body: JSON.stringify(Object.fromEntries(Array.from({ length: 99_000 }, (_, i) => [`k${i}`, i]))), headers: json })],
  ["99,000-item array for a string", () => ({ method: "POST", path: `/v1/mailboxes/${mb}/search`, body: JSON.stringify({ query: Array.from({ length: 99_000 }, (_, i) => i) }), headers: json })],
  ["10 MiB string, wrong type", () => ({ method: "PUT", path: `/v1/mailboxes/${mb}/policy`, body: JSON.stringify({ allow_outbound: "a".repeat(10 * 1024 * 1024 - 64) }), headers: json })],
  ["1 MB text/plain", () => ({ method: "PUT", path: `/v1/mailboxes/${mb}/policy`, body: "x".repeat(1_000_000), headers: { "content-type": "text/plain" } })],
  ["12 MB text/plain", () => ({ method: "POST", path: `/v1/mailboxes/${mb}/search`, body: "x".repeat(12_000_000), headers: { "content-type": "text/plain" } })],
  ["12 MB JSON (413)", () => ({ method: "PUT", path: `/v1/mailboxes/${mb}/policy`, body: JSON.stringify({ x: "a".repeat(12_000_000) }), headers: json })],
  ["NUL in metadata", () => ({ method: "POST", path: "/.agent/inbox", body: JSON.stringify({ subject: "x", body: "x", metadata: { a: "\u0000" } }), headers: { ...json, host } })],
  ["page=99999999999999999999", () => ({ method: "GET", path: `/v1/mailboxes/${mb}/messages?page=99999999999999999999` })],
  ["Host port 99999", () => ({ method: "GET", path: "/.well-known/agent.json", headers: { host: `${host}:99999` } })],
  ["baseline: GET /health", () => ({ method: "GET", path: "/health" })],
];

/** Pings /health every 20 ms until stopped; resolves to the worst gap between answers. */
function pinger() {
  let running = true;
  let worst = 0;
  const done = (async () => {
    let last = performance.now();
    while (running) {
      await fetch(`${base}/health`).then((r) => r.arrayBuffer());
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
      await Bun.sleep(20);
    }
    return worst;
  })();
  return { stop: () => ((running = false), done) };
}

console.log("input | status | request ms | worst /health gap ms");
for (const [name, build] of inputs) {
  const request = build();
  await Bun.sleep(200);
  const ping = pinger();
  await Bun.sleep(100);
  const t0 = performance.now();
  const res = await call(request);
  const took = performance.now() - t0;
  await Bun.sleep(100);
  const gap = await ping.stop();
  console.log(`${name} | ${res.status} | ${took.toFixed(0)} | ${gap.toFixed(0)}`);
}

await stop(svc.proc);
await db?.drop();
