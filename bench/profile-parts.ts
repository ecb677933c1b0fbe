/**
 * Splits a service CPU profile (a .cpuprofile: BENCH_CPU_PROF=<dir> BENCH_CPU_PROF_JSON=1)
 * by part of the mail pipeline, from the call stack of each sample (1 sample = 1 ms of the
 * main thread running JavaScript or native code it called), and lists the innermost
 * functions of our own code that the samples fell under.
 *
 *   bun bench/profile-parts.ts <file.cpuprofile> [--messages N] [--top 40]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { messages: { type: "string", default: "1" }, top: { type: "string", default: "40" } } });
const per = Math.max(1, Number(values.messages));
const profile = JSON.parse(readFileSync(positionals[0]!, "utf8")) as {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
};
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
const framesOf = (id: number) => {
  const frames: { name: string; url: string; line: number }[] = [];
  for (let c: number | undefined = id; c !== undefined; c = parent.get(c)) {
    const f = byId.get(c)!.callFrame;
    frames.push({ name: f.functionName, url: f.url, line: f.lineNumber + 1 });
  }
  return frames; // innermost first
};

/** Pipeline parts, first match over the whole stack (innermost frame first). */
const PARTS: [string, RegExp][] = [
  ["background: key revocation poll", /auth\/key-store\.ts/],
  ["background: leases, placement pings", /cluster\/leases\.ts|nats-placement\.ts:2[23]\d|cluster\/bus\.ts/],
  ["SSE event stream (the bench's watcher)", /src\/events\//],
  ["webhooks / outbox relay", /src\/webhooks\//],
  ["metrics", /src\/metrics\//],
  ["job runner: claim / release", /jobs\/runner\.ts:1[2-3]\d|jobs\/runner\.ts:(19|20|21)\d|async drain|private claim|release/],
  ["processing: parse/auth pool (post, results)", /workers\/pool\.ts|parse\/index\.ts|assess\/index\.ts:1[01]\d/],
  ["processing: sender disposition read", /dispositionFor/],
  ["processing: actor applyProcessed", /applyProcessed|mailbox\/inbound\.ts:1[5-9]\d|mailbox\/inbound\.ts:20\d|after-processing/],
  ["processing: other", /mail\/process\.ts|mail\/assess\//],
  ["arrival: raw bytes store (Bun.SQL)", /mail\/blobs\.ts|internal:sql/],
  ["arrival: actor receive (threading, insert)", /mailbox\/inbound\.ts|mailbox\/actor\.ts|threading\.ts|message-rows\.ts/],
  ["arrival: head read", /arrival-head|parse\/head\.ts/],
  ["SMTP (smtp-server, DATA)", /smtp-server|src\/smtp\//],
  ["actor runtime / NATS (other)", /actors\/runtime|@nats-io/],
  ["postgres.js (other)", /postgres\/src/],
  ["drizzle (other)", /drizzle-orm/],
];

const parts = new Map<string, number>();
const inner = new Map<string, number>();
let busy = 0;
for (const id of profile.samples) {
  const name = byId.get(id)!.callFrame.functionName;
  if (name === "(idle)" || name === "(program)" || name === "(root)") continue;
  busy++;
  const frames = framesOf(id);
  const stack = frames.map((f) => `${f.name} ${f.url}:${f.line}`).join(" < ");
  const part = PARTS.find(([, re]) => re.test(stack))?.[0] ?? "other";
  parts.set(part, (parts.get(part) ?? 0) + 1);
  const own = frames.find((f) => /\/(src|actors|db)\//.test(f.url) && !f.url.includes("node_modules"));
  const key = own ? `${own.url.replace(/.*\/(src|actors|db)\//, "$1/")}:${own.line} ${own.name}` : `(no own frame) ${frames[0]!.name}`;
  inner.set(key, (inner.get(key) ?? 0) + 1);
}
const ms = (n: number) => (n / per).toFixed(2).padStart(8);
console.log(`main thread: ${busy} samples (ms), ${ms(busy)} ms per message over ${per}`);
for (const [k, n] of [...parts].sort((a, b) => b[1] - a[1])) console.log(`${ms(n)}  ${k}`);
console.log(`\ninnermost own frame:`);
for (const [k, n] of [...inner].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) console.log(`${ms(n)}  ${k}`);
