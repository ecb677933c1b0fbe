/**
 * What the ingest bench's message costs at least, part by part, on this machine: the CPU
 * time per message of the work every accepted message needs whatever the design (parse it,
 * authenticate it, assess it, store the raw bytes and the attachment durably), and the
 * message rate those parts alone would allow on all cores. Compare it with the 35% target
 * of bench/smtp-ingest.ts.
 *
 *   bun bench/ingest-floor.ts [--ceiling 2500] [--n 300]
 *
 * --ceiling is the bare smtp-server rate that bench/smtp-ingest.ts printed. CPU is this
 * process's user+system time; PostgreSQL's own share of the stores is not counted, so the
 * bound is generous.
 */
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { openDatabase } from "../db/client.ts";
import { migrate } from "../db/migrate.ts";
import { Assessor } from "../src/mail/assess/index.ts";
import { checkAuth } from "../src/mail/assess/auth.ts";
import { putBlob } from "../src/mail/blobs.ts";
import { parseInline } from "../src/mail/parse/convert.ts";
import type { Envelope } from "../src/mail/types.ts";
import { benchMessage, freshDatabase } from "./lib.ts";

const { values } = parseArgs({ options: { ceiling: { type: "string", default: "2500" }, n: { type: "string", default: "300" } } });
const ceiling = Number(values.ceiling);
const n = Number(values.n);

const raw = new Uint8Array(await benchMessage("bench@mail.localhost"));
const envelope: Envelope = { mailFrom: "bench@example.com", rcptTo: ["bench@mail.localhost"], remoteAddress: "198.51.100.7", heloName: "bench.example.com" };
const offline = async () => {
  throw Object.assign(new Error("offline"), { code: "ENOTFOUND" });
};
const assessor = new Assessor({ mailDomain: "mail.localhost", resolver: offline });
const mail = await parseInline(raw);

/** CPU milliseconds per call of f, after a warm-up. */
async function cpuMs(f: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await f(i);
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await f(i);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / n;
}

// Distinct bytes each time, as real mail is: a repeated blob would be a no-op insert.
const distinct = (size: number) => {
  const pool = Array.from({ length: n + 20 }, () => crypto.getRandomValues(new Uint8Array(size)));
  return (i: number) => pool[i % pool.length]!;
};

const db = await freshDatabase();
const database = await openDatabase({ databaseUrl: db.url, dataDir: "/tmp" });
try {
  await migrate(database.db);
  const rawOf = distinct(raw.byteLength);
  const attachmentOf = distinct(100 * 1024);
  const parts: [string, number][] = [
    ["parse (mailparser)", await cpuMs(() => parseInline(raw))],
    ["SPF/DKIM/DMARC (mailauth, offline DNS)", await cpuMs(() => checkAuth(raw, envelope, { mta: "mail.localhost", timeoutMs: 1000, resolver: offline }))],
    ["assessment rules (beyond auth)", 0],
    ["store raw bytes (PostgreSQL)", await cpuMs((i) => putBlob(database.db, rawOf(i)))],
    ["store attachment (PostgreSQL)", await cpuMs((i) => putBlob(database.db, attachmentOf(i)))],
  ];
  const assessAll = await cpuMs(() => assessor.assess({ raw, mail, headers: mail.headers, envelope }));
  parts[2]![1] = assessAll - parts[1]![1];
  const total = parts.reduce((sum, [, ms]) => sum + ms, 0);
  const cores = availableParallelism();
  const bound = (cores * 1000) / total;
  console.log(`ingest floor: ${raw.byteLength} B message (20 KiB text + 100 KiB attachment), ${n} runs per part, ${cores} cores`);
  for (const [name, ms] of parts) console.log(`  ${name.padEnd(40)} ${ms.toFixed(2)} ms CPU`);
  console.log(`  ${"total".padEnd(40)} ${total.toFixed(2)} ms CPU per message`);
  console.log(`upper bound with every core on these parts alone: ${bound.toFixed(0)} msg/s = ${((100 * bound) / ceiling).toFixed(0)}% of a ${ceiling} msg/s ceiling (target 35% = ${(0.35 * ceiling).toFixed(0)} msg/s)`);
} finally {
  await database.close();
  await db.drop();
}
