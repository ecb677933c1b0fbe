/**
 * Cold start to ready, and resident memory after start.
 *
 *   bun bench/cold-start.ts [--runs 3]
 *
 * For each mode, spawns `bun src/main.ts` and times spawn → the "ready" log line (HTTP and
 * SMTP listening, migrations applied). "first start" is on a fresh data directory or a fresh
 * PostgreSQL database (migrations run); "restart" reuses it. RSS is read from /proc one
 * second after ready, once the start-up garbage has had a chance to be collected.
 */
import { parseArgs } from "node:util";
import { freePort, freshDatabase, rssMiB, startService, stop, tempDir } from "./lib.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
const runs = Number(values.runs);

async function measure(env: Record<string, string>) {
  const started = await startService({ PORT: String(await freePort()), SMTP_PORT: String(await freePort()), HOST: "127.0.0.1", ADMIN_TOKEN: "bench-admin-token-0123456789", ...env });
  await Bun.sleep(1000);
  const rss = rssMiB(started.proc.pid);
  await stop(started.proc);
  return { readyMs: started.readyMs, rss };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const report = (label: string, rows: { readyMs: number; rss: number }[]) =>
  console.log(`${label.padEnd(34)} ready ${median(rows.map((r) => r.readyMs)).toFixed(0).padStart(5)} ms   RSS ${median(rows.map((r) => r.rss)).toFixed(1).padStart(6)} MiB   (median of ${rows.length})`);

const pgliteFirst = [];
const pgliteRestart = [];
for (let i = 0; i < runs; i++) {
  const dir = tempDir("mailroom-cold-");
  pgliteFirst.push(await measure({ DATA_DIR: dir }));
  pgliteRestart.push(await measure({ DATA_DIR: dir }));
}
report("embedded PGlite, first start", pgliteFirst);
report("embedded PGlite, restart", pgliteRestart);

const pgFirst = [];
const pgRestart = [];
for (let i = 0; i < runs; i++) {
  const db = await freshDatabase();
  try {
    const env = { DATABASE_URL: db.url, DATA_DIR: tempDir("mailroom-cold-"), ...(process.env.NATS_URL ? { NATS_URL: process.env.NATS_URL } : {}) };
    pgFirst.push(await measure(env));
    pgRestart.push(await measure(env));
  } finally {
    await db.drop();
  }
}
report(`PostgreSQL${process.env.NATS_URL ? " + NATS" : ""}, first start`, pgFirst);
report(`PostgreSQL${process.env.NATS_URL ? " + NATS" : ""}, restart`, pgRestart);
