/**
 * Where the event loop's time goes for one large input, from a CPU profile of the service's
 * thread rather than from /health gaps. On a loaded machine a gap is mostly the scheduler; the
 * profile's samples count only JavaScript the service's thread ran, so before/after figures
 * stay comparable.
 *
 *   bun bench/stall-profile.ts [--input send|wrongtype|protocol] [--n 3]
 *
 * Runs itself again with `--cpu-prof`: the child starts the service in process (PGlite, or
 * DATABASE_URL / NATS_URL), sends the input `n` times from a client thread, lets background work
 * (delivery, events) finish, and exits. Then prints the milliseconds of the service thread's
 * JavaScript per input (1 ms samples), by what it was doing. Native work on that thread (socket
 * reads) is not sampled, and on a loaded machine a sample can stand for more than 1 ms.
 * KEEP_PROF=1 keeps the .cpuprofile and prints where it is.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { input: { type: "string", default: "send" }, n: { type: "string", default: "3" }, child: { type: "boolean", default: false } } });
const n = Number(values.n);

if (values.child) {
  const { startTestService } = await import("../test/harness.ts");
  const svc = await startTestService({ LOG_LEVEL: "silent", API_KEY_RATE_LIMIT: "10000000" });
  const account = await svc.api("POST", "/v1/accounts", { body: { slug: `prof-${crypto.randomUUID().slice(0, 8)}`, displayName: "Profile bench" } });
  const primary = account.body.primary_mailbox;
  const agent = (await svc.api("POST", `/v1/accounts/${account.body.account.id}/mailboxes`, { body: { slug: "agent" } })).body.mailbox;
  const key = (await svc.api("POST", `/v1/mailboxes/${primary.id}/api-keys`, { body: { name: "bench", scope: "mailbox" } })).body.token;
  const client = new Worker(new URL("./stall-profile-client.ts", import.meta.url));
  console.log("MARK start"); // everything before this line is start-up, left out of the figures
  performance.mark("inputs");
  for (let i = 0; i < n; i++) {
    const status = await new Promise<number>((resolve) => {
      client.onmessage = (e) => resolve(e.data.status);
      client.postMessage({ url: svc.url, token: values.input === "protocol" ? key : svc.admin, input: values.input, mailboxId: primary.id, protocolHost: agent.protocol_host });
    });
    console.log(`${values.input} ${i + 1}: ${status}`);
    await Bun.sleep(3000);
  }
  client.terminate();
  await svc.stop();
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "mailroom-stall-profile-"));
const child = Bun.spawn([process.execPath, "--cpu-prof", `--cpu-prof-dir=${dir}`, import.meta.path, "--child", "--input", values.input!, "--n", String(n)], { stdout: "inherit", stderr: "inherit", env: process.env });
await child.exited;
const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
if (!file) throw new Error("no CPU profile written");
const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
};
if (!process.env.KEEP_PROF) rmSync(dir, { recursive: true, force: true }); else console.log("profile in", dir);

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
const stacks = new Map<number, string>();
const stackOf = (id: number): string => {
  let s = stacks.get(id);
  if (s !== undefined) return s;
  const frames: string[] = [];
  for (let c: number | undefined = id; c !== undefined; c = parent.get(c)) frames.push(`${byId.get(c)!.callFrame.functionName} ${byId.get(c)!.callFrame.url}`);
  stacks.set(id, (s = frames.join(" < ")));
  return s;
};

const CATEGORIES: [string, RegExp][] = [
  ["body read (readBounded)", /readBounded/],
  ["JSON parse / intake on the event loop", /parseJsonObject|json-intake|fromWire/],
  ["schema check on the event loop", /bodyCheck|validation\.ts/],
  ["worker pool: posting to workers (structured clone)", /workers\/pool\.ts/],
  ["MIME composition on the event loop", /compose\.ts|mail-composer|mime-node|nodemailer\/.*qp/],
  ["content assessment on the event loop", /assess\/(content|context|rules|html|text|injection)/],
  ["postgres.js: serialising parameters (bytea hex, text)", /Bind |postgres\/src\/bytes\.js|connection\.js:(245|247|253|255)|ParameterDescription/],
  ["postgres.js: reading rows (DataRow, incoming data)", /DataRow|postgres\/src\/connection\.js:300/],
  ["jsonb stringify (event payloads)", /wellFormedJson|db\/schema\/json\.ts/],
  ["responses (Elysia mapResponse, models)", /mapResponse|adapter\/bun\/handler|model\.ts/],
  ["idempotency fingerprint", /fingerprint|canonicalJson/],
  ["other postgres.js", /postgres\/src/],
  ["drizzle", /drizzle-orm/],
  ["elysia / other HTTP", /elysia|src\/http/],
];
// Start-up ends with the first sample after the last one inside startService / createHttpApp.
let from = 0;
profile.samples.forEach((id, i) => {
  if (/startService|createHttpApp|seedAccount|startTestService/.test(stackOf(id))) from = i + 1;
});
const totals = new Map<string, number>();
let busy = 0;
for (let i = from; i < profile.samples.length; i++) {
  const id = profile.samples[i]!;
  const name = byId.get(id)!.callFrame.functionName;
  if (name === "(idle)" || name === "(program)" || name === "(root)") continue;
  // One sample is 1 ms of the thread running (the gap to the next one may include waiting).
  const ms = 1;
  const stack = stackOf(id);
  const category = CATEGORIES.find(([, re]) => re.test(stack))?.[0] ?? "other (timers, GC, background)";
  totals.set(category, (totals.get(category) ?? 0) + ms);
  busy += ms;
}
console.log(`\nservice thread JavaScript per input (${values.input}, mean of ${n}; includes background work in the run):`);
console.log(`${(busy / n).toFixed(0).padStart(7)} ms  in all`);
for (const [category, ms] of [...totals].sort((a, b) => b[1] - a[1])) console.log(`${(ms / n).toFixed(0).padStart(7)} ms  ${category}`);
