import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import MailComposer from "nodemailer/lib/mail-composer";
import postgres from "postgres";
import { socketOf } from "../db/client.ts";

export const ROOT = join(import.meta.dir, "..");
export const BUN = process.execPath;

export async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

export const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/**
 * A fresh PostgreSQL database on the server of `baseUrl` (default: the local one); drop() removes it.
 * BENCH_PG_LOG=1 logs its statements with their durations.
 */
export async function freshDatabase(baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres") {
  const url = new URL(baseUrl);
  // Named after the database of `baseUrl` when it names one of its own, so parallel runs on a shared server stay apart.
  const own = decodeURIComponent(url.pathname.slice(1));
  const prefix = own && own !== "postgres" && /^[a-z_][a-z0-9_]*$/.test(own) ? own : "mailroom";
  const name = `${prefix}_bench_${Date.now()}_${process.pid}`;
  const { url: adminUrl, socketDir } = socketOf(baseUrl);
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {}, ...(socketDir ? { host: socketDir } : {}) });
  await admin.unsafe(`create database ${name}`);
  // BENCH_PG_LOG=1: every statement on it goes to the server's log with its duration (rank them with bench/pg-log-rank.ts).
  if (process.env.BENCH_PG_LOG) {
    await admin.unsafe(`alter database ${name} set log_min_duration_statement = 0`);
    await admin.unsafe(`alter database ${name} set log_parameter_max_length = 0`);
  }
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

export interface Started {
  proc: ReturnType<typeof Bun.spawn>;
  readyMs: number;
  lines: string[];
}

/**
 * The environment `npm start` gives the service: the caller's, plus the defaults the start
 * script sets before `bun src/main.ts` (`VAR=${VAR:-value}` in package.json), so that the
 * benches measure the service as it is started, and start their bare ceilings the same way.
 */
export function startEnv(root = ROOT): Record<string, string | undefined> {
  const script: string = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.start;
  const defaults: Record<string, string> = {};
  for (const m of script.matchAll(/\b([A-Z_][A-Z0-9_]*)=\$\{\1:-([^}]*)\}/g)) defaults[m[1]!] = m[2]!;
  return { ...defaults, ...process.env };
}

/** Starts `bun src/main.ts` (of `root`, another checkout for an A/B) and resolves when it logs its ready line. */
export async function startService(env: Record<string, string>, timeoutMs = 120_000, root = ROOT): Promise<Started> {
  const t0 = performance.now();
  // BENCH_CPU_PROF=<dir> writes a CPU profile of the service (markdown) there on exit;
  // BENCH_CPU_PROF_JSON=1 makes it a .cpuprofile instead (bench/profile-parts.ts reads those).
  const format = process.env.BENCH_CPU_PROF_JSON === "1" ? "--cpu-prof" : "--cpu-prof-md";
  const profile = process.env.BENCH_CPU_PROF ? [format, `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // BENCH_LOOP_TRACE=<ms> reports the service thread's event-loop gaps past <ms> (bench/loop-trace.ts).
  const trace = process.env.BENCH_LOOP_TRACE ? ["--preload", "./bench/loop-trace.ts"] : [];
  const proc = Bun.spawn([BUN, ...profile, ...trace, "src/main.ts"], { cwd: root, env: { ...startEnv(root), LOG_LEVEL: "info", ...env }, stdout: "pipe", stderr: "inherit" });
  const lines: string[] = [];
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  const deadline = t0 + timeoutMs;
  while (performance.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`service exited before ready:\n${lines.join("\n")}`);
    buf += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      lines.push(line);
      if (line.includes('"msg":"ready"')) {
        const readyMs = performance.now() - t0;
        // Keep draining stdout so the child never blocks on a full pipe.
        void (async () => {
          while (!(await reader.read()).done) {}
        })();
        return { proc, readyMs, lines };
      }
    }
  }
  proc.kill();
  throw new Error("service did not become ready in time");
}

export function rssMiB(pid: number): number {
  const status = require("node:fs").readFileSync(`/proc/${pid}/status`, "utf8") as string;
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

export async function stop(proc: ReturnType<typeof Bun.spawn>): Promise<void> {
  proc.kill("SIGTERM");
  await proc.exited;
}

/** The ingest benches' message: 20 KiB of text and a 100 KiB attachment of random bytes. */
/**
 * The text of a bench message, `bytes` long. "filler" (the historical default) pads two
 * sentences with "x x x …": ~10,000 one-letter words in 20 KiB, about three times the words
 * of real prose of that size, which is what PostgreSQL's to_tsvector pays for. "prose" is
 * deterministic English-like text (words of a common vocabulary, sentences and paragraphs),
 * the word count real mail of that size has.
 */
export type BenchText = "filler" | "prose";
export function benchText(lead: string, bytes: number, kind: BenchText): string {
  if (kind === "filler") return (lead + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ").padEnd(bytes, "x ").slice(0, bytes);
  const words = PROSE_WORDS;
  let seed = 0x9e3779b9;
  const next = () => ((seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0), seed);
  let out = lead;
  while (out.length < bytes) {
    const n = 6 + (next() % 16);
    const sentence: string[] = [];
    for (let i = 0; i < n; i++) sentence.push(words[next() % words.length]!);
    sentence[0] = sentence[0]![0]!.toUpperCase() + sentence[0]!.slice(1);
    out += sentence.join(" ") + (next() % 7 === 0 ? "?" : ".") + (next() % 5 === 0 ? "\n\n" : " ");
  }
  return out.slice(0, bytes);
}
const PROSE_WORDS = (
  "the of and to a in that is was he for it with as his on be at by had are but from or have an they which one you were all we when there can been has more if no out do so what up time about than into only other new some could these two may first then any like now my such make over our even most after also did many before must through back years where much your way well down should because each just those people how too little state good very world still own see men work long here get both between life being under never day same another know while last might great old year off come since against go came right used take three states himself few house use during without again place around however home small found thought went say part once high general upon school every don't does got united left number course war until always away something fact though water less public put think almost hand enough far took head yet government system better set told nothing night end why called didn't eyes find going look asked later knew point next program city business give group toward young days let room president side social given present several order national possible rather second face per among form important often things looking early white john become case large need big four within felt along children saw best church ever least power development light thing seemed family interest want members mind country area others done turned although open god service certain kind problem began different door thus help sense means whole matter perhaps itself york times law human line above name example action company hands local show whether five history gave today either act feet across taken past quite anything seen having death week experience body word half really field car words already themselves i'm information tell together college shall money period held keep sure probably free seems real behind cannot miss political air question office brought whose special heard major problems ago became federal moment study available known result street economic boy position reason change south board individual job areas society west close turn love community true court force full seem am wife future age voice center woman control common policy necessary following front sometimes six girl clear further land run students provide feel party able mother music education university child effect level stood military short town morning total outside rate figure class art century washington north usually plan leave therefore evidence too million sound top black strong hard various says believe type value play surface soon mean near lines table peace modern tax road red book personal process situation minutes increase idea english alone women gone nor amount doing itself report figures meeting invoice quarterly attached review budget forecast revenue schedule contract proposal customer account payment delivery"
).split(" ");

export async function benchMessage(rcpt: string, textKind: BenchText = "filler"): Promise<Buffer> {
  const text = benchText("The quarterly figures are attached. ", 20 * 1024, textKind);
  return new MailComposer({
    from: "Bench Sender <bench@example.com>",
    to: rcpt,
    subject: "Quarterly figures",
    text,
    attachments: [{ filename: "figures.bin", content: Buffer.from(crypto.getRandomValues(new Uint8Array(100 * 1024))), contentType: "application/octet-stream" }],
  })
    .compile()
    .build();
}

/** The small ingest bench message: 8 KiB of text (or `kib`) and no attachment. */
export async function smallBenchMessage(rcpt: string, textKind: BenchText = "filler", kib = 8): Promise<Buffer> {
  const text = benchText("A short note about the meeting tomorrow. ", kib * 1024, textKind);
  return new MailComposer({ from: "Bench Sender <bench@example.com>", to: rcpt, subject: "Meeting notes", text }).compile().build();
}

/**
 * The service on the embedded database in a temporary data directory, without NATS (what
 * `npm start` runs on a bare machine), on free ports, shaped as startOnFreshDatabase's answer.
 */
export async function startEmbedded(env: Record<string, string> = {}, root = ROOT) {
  const port = await freePort();
  const admin = `bench-admin-${crypto.randomUUID()}`;
  const svc = await startService(
    { PORT: String(port), SMTP_PORT: String(await freePort()), HOST: "127.0.0.1", ADMIN_TOKEN: admin, DATABASE_URL: "", NATS_URL: "", DATA_DIR: tempDir("mailroom-bench-"), API_KEY_RATE_LIMIT: "10000000", ...env },
    undefined,
    root,
  );
  return { db: { drop: async () => {} }, port, admin, svc, base: `http://127.0.0.1:${port}` };
}

/**
 * The service on a fresh PostgreSQL database (and NATS when NATS_URL is set), on free ports,
 * with an admin token of its own and the API-key rate limit out of the way.
 */
export async function startOnFreshDatabase(env: Record<string, string> = {}, root = ROOT) {
  const db = await freshDatabase();
  const port = await freePort();
  const admin = `bench-admin-${crypto.randomUUID()}`;
  const svc = await startService({
    PORT: String(port),
    SMTP_PORT: String(await freePort()),
    HOST: "127.0.0.1",
    ADMIN_TOKEN: admin,
    DATABASE_URL: db.url,
    DATA_DIR: tempDir("mailroom-bench-"),
    API_KEY_RATE_LIMIT: "10000000",
    ...(process.env.NATS_URL ? { NATS_URL: process.env.NATS_URL } : {}),
    ...env,
  }, undefined, root);
  return { db, port, admin, svc, base: `http://127.0.0.1:${port}` };
}
