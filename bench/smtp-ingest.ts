/**
 * Inbound SMTP ingest vs. ceiling.
 *
 *   bun bench/smtp-ingest.ts [--seconds 10] [--connections 8] [--rounds 2] [--mailboxes 1]
 *                            [--message big|small] [--text filler|prose] [--distinct-text] [--pglite] [--messages N]
 *                            [--warmup N] [--text-kib N] [--senders N]
 *
 * `big` (default) is 20 KiB of text and a 100 KiB attachment (158 KiB on the wire), `small`
 * 8 KiB of text; --text prose makes that text English-like prose instead of the "x x x"
 * filler earlier figures were measured with (bench/lib.ts benchText). Each message sent is made distinct (an `X-Bench-Seq` field first), as real
 * mail is, over `connections` persistent SMTP connections for `seconds`, spread over
 * `mailboxes` recipients, to the service on a fresh PostgreSQL database (DATABASE_URL's
 * server, default the local one; with --pglite the embedded database in a temporary data
 * directory) and, in the same run, to a bare smtp-server that reads and discards the data
 * (the ceiling). Reported: messages/s and p50/p99 from the end of DATA (the final ".") to the
 * 250; then, once every accepted message is processed, how long after its 250 the message's
 * `message.processed` event arrived on the mailbox's SSE stream (p50/p99/max, how many took
 * over 2 s), and the CPU time per accepted message of the service process (all its threads;
 * split into the main thread, the Workers (each one's share too, largest first), the JIT, the
 * collector and the rest) and of the PostgreSQL backends serving its database (not the shared
 * WAL writer and checkpointer), and of the bare server per message. Also this bench's own CPU per message
 * while it drives the service (its SMTP clients and its event-stream watchers): it runs on
 * the same cores, so what it spends the service and the database cannot.
 *
 * --messages N ends each run after N messages instead of at `seconds` (CPU per message then
 * compares like with like on a busy machine, where a timed run sends few).
 *
 * --text-kib N makes the small message's text N KiB instead of 8 (the big message's text stays
 * 20 KiB): how a cost that grows with the text (the full-text vector) compares across sizes.
 *
 * --senders N sends from N envelope senders in turn, each of its own domain (default 1: all from
 * bench@example.com); 0 gives every message a sender of its own. A node reuses the SPF/DKIM/DMARC
 * verdict of a recent unsigned message from the same client, sender and From
 * (src/mail/assess/auth-verdicts.ts): --senders 0 measures mail that never gets to.
 *
 * --warmup N first sends N messages to each service and to the bare server, untimed, and waits
 * for them to be processed: the figures are then of a warm process. A cold one spends the first
 * thousands of messages compiling (each parser thread compiles the parser and the rules for
 * itself; JavaScriptCore's optimizing tier alone took 0.2-0.4 ms of CPU per message over the
 * first 8,000 messages of a parse-and-assess loop), so a short cold run understates the rate of a
 * node that has been up for a while. Message numbers (and so --distinct-text's texts) run on
 * across the warm-up and the rounds: no two sends of a run are alike.
 *
 * --against <dir> runs the service of another checkout (a `git worktree` of the base commit with
 * `npm install` done, say) beside this one, each on its own database, and drives both in every
 * round, taking turns at going first; then prints both sides' medians and the per-round ratios.
 * On a shared machine whose speed drifts by a third between minutes, runs made minutes apart
 * compare the machine, not the code; runs made in the same round compare the code.
 *
 * Each run also prints the mailbox actors' commits per message by kind of write (arrivals,
 * processed), how many of them were shared by several mailboxes, and the writes each shared one
 * carried and the statements merging their calls saved (GET /metrics, db/shared-commit.ts and
 * db/tx-batch.ts; left out for a build without them), and how often
 * in-flow control held MAIL FROM (src/mail/in-flow.ts): while it does, senders are paced by
 * processing, and the accepted rate is the rate the service processes at.
 *
 * BENCH_CPU_PROF=<dir> writes a CPU profile of the service (markdown) there on exit.
 */
import { readdirSync, readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { parseArgs } from "node:util";
import MailComposer from "nodemailer/lib/mail-composer";
import { benchMessage, type BenchText, BUN, freePort, freshDatabase, ROOT, smallBenchMessage, startEnv, startService, stop, tempDir } from "./lib.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "8" },
    rounds: { type: "string", default: "2" },
    mailboxes: { type: "string", default: "1" },
    message: { type: "string", default: "big" },
    pglite: { type: "boolean", default: false },
    messages: { type: "string", default: "0" },
    // filler (default, comparable with earlier figures) or prose: see benchText in bench/lib.ts.
    text: { type: "string", default: "filler" },
    "distinct-text": { type: "boolean", default: false },
    warmup: { type: "string", default: "0" },
    "text-kib": { type: "string", default: "8" },
    senders: { type: "string", default: "1" },
    against: { type: "string" },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const mailboxCount = Math.max(1, Number(values.mailboxes));
const small = values.message === "small";
const pglite = values.pglite === true;
const messageLimit = Math.max(0, Number(values.messages));
const warmup = Math.max(0, Number(values.warmup));
const textKib = Number(values["text-kib"]);
const senders = Math.max(0, Number(values.senders));
if (!(textKib >= 1 && textKib <= 1024)) throw new Error("--text-kib is 1 to 1024");
if (values.text !== "filler" && values.text !== "prose") throw new Error("--text is filler or prose");
const textKind: BenchText = values.text;
/** Each message's text starts with a line of its own (see buildBody). */
const distinctText = values["distinct-text"] === true;
/** Another checkout (e.g. a `git worktree` of the base commit, with its node_modules) measured in the same rounds. */
const against = values.against;

/** One SMTP client connection that sends messages one after another. */
class Client {
  private buf = "";
  private waiters: ((line: string) => void)[] = [];
  private constructor(private readonly socket: Socket) {
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => {
      this.buf += d;
      let nl: number;
      while ((nl = this.buf.indexOf("\r\n")) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 2);
        if (line[3] === "-") continue; // multi-line reply: wait for its last line
        this.waiters.shift()?.(line);
      }
    });
  }
  static async open(port: number): Promise<Client> {
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    const c = new Client(socket);
    await c.expect(undefined, "220");
    await c.expect("EHLO bench.example.com\r\n", "250");
    return c;
  }
  private reply(): Promise<string> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  async expect(command: string | undefined, code: string): Promise<string> {
    const p = this.reply();
    if (command !== undefined) this.socket.write(command, "latin1");
    const line = await p;
    if (!line.startsWith(code)) throw new Error(`expected ${code} to ${command?.trim() ?? "greeting"}, got ${line}`);
    return line;
  }
  /** Sends one message; returns ms from the end of DATA to the 250, and the 250's text. */
  async send(sender: string, rcpt: string, data: string): Promise<{ ms: number; line: string }> {
    await this.expect(`MAIL FROM:<${sender}>\r\n`, "250");
    await this.expect(`RCPT TO:<${rcpt}>\r\n`, "250");
    await this.expect("DATA\r\n", "354");
    const p = this.reply();
    this.socket.write(data, "latin1");
    const t0 = performance.now();
    const line = await p;
    const ms = performance.now() - t0;
    if (!line.startsWith("250")) throw new Error(`DATA refused: ${line}`);
    return { ms, line };
  }
  close() {
    this.socket.end("QUIT\r\n");
  }
}

async function messageBytes(): Promise<Buffer> {
  return small ? smallBenchMessage("bench@mail.localhost", textKind, textKib) : benchMessage("bench@mail.localhost", textKind);
}

/**
 * Dot-stuffed, CRLF, without the end marker: an `X-Bench-Seq` line and the end are added per
 * send, and with --distinct-text a line at the start of the text part, made per message (an
 * order number and its tracking URL, plain quoted-printable), as real mail's texts differ: the
 * same text every time is what the service-made vector's word cache likes best.
 */
async function buildBody(): Promise<(n: number) => string> {
  const body = (await messageBytes()).toString("latin1").replace(/\r?\n/g, "\r\n").replace(/^\./gm, "..");
  if (!distinctText) return () => body;
  const part = body.indexOf("Content-Type: text/plain");
  const at = part < 0 ? -1 : body.indexOf("\r\n\r\n", part);
  if (at < 0) throw new Error("--distinct-text: the message has no text part to start");
  const head = body.slice(0, at + 4);
  const tail = body.slice(at + 4);
  return (n) => `${head}Order ${100_000 + n}: https://orders.example.com/track/${(n * 7919).toString(36)}\r\n${tail}`;
}

type Sent = { id: string | null; at: number };

/** The envelope sender of message `n`: one for all (--senders 1), one of N in turn, or (0) one of its own. */
const senderOf = (n: number) => (senders === 1 ? "bench@example.com" : `bench@s${senders === 0 ? n : n % senders}.example.com`);

/** The next message's number: it runs on over every drive of the run, so no two texts repeat. */
let sequence = 0;

/** Sends `limit` messages (0: for `seconds`) over `connections` connections. */
async function drive(port: number, rcpts: string[], body: (n: number) => string, limit = messageLimit): Promise<{ count: number; perSecond: number; p50: number; p99: number; max: number; sent: Sent[] }> {
  const clients = await Promise.all(Array.from({ length: connections }, () => Client.open(port)));
  const latencies: number[] = [];
  const sent: Sent[] = [];
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  let seq = 0;
  await Promise.all(
    clients.map(async (c, ci) => {
      while (limit > 0 ? seq < limit : performance.now() < end) {
        seq++;
        const n = sequence++;
        const { ms, line } = await c.send(senderOf(n), rcpts[n % rcpts.length]!, `X-Bench-Seq: ${ci}-${n}-${t0}\r\n${body(n)}\r\n.\r\n`);
        latencies.push(ms);
        sent.push({ id: /queued as (\S+)/.exec(line)?.[1] ?? null, at: performance.now() });
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  for (const c of clients) c.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { count: latencies.length, perSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), max: latencies.at(-1)!, sent };
}

/**
 * The message id of a `message.processed` frame. The payload's keys come in jsonb's order,
 * shortest first, so its `id` leads it: read from the frame's head, not by parsing tens of KiB
 * of JSON (this bench shares the cores it measures); parsed whole where the head does not say.
 */
function processedId(frame: string): string | null {
  const head = /"payload":\{"id":"([0-9a-f-]{36})"/.exec(frame.slice(0, 512));
  if (head) return head[1]!;
  const data = frame.split("\n").find((l) => l.startsWith("data: "));
  return data ? ((JSON.parse(data.slice(6)) as { payload: { id?: string } }).payload.id ?? null) : null;
}

/** The `message.processed` events of a mailbox's SSE stream: message id → arrival time. */
function watchProcessed(base: string, token: string, mailboxId: string, seen: Map<string, number>, signal: AbortSignal): void {
  void (async () => {
    const res = await fetch(`${base}/v1/mailboxes/${mailboxId}/events`, { headers: { authorization: `Bearer ${token}` }, signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let from = 0;
      let end: number;
      while ((end = buf.indexOf("\n\n", from)) >= 0) {
        const frame = buf.slice(from, end);
        from = end + 2;
        if (!frame.includes("event: message.processed")) continue;
        const id = processedId(frame);
        if (id) seen.set(id, performance.now());
      }
      buf = buf.slice(from);
    }
  })().catch(() => {});
}

/** utime+stime in ms of a process (all its threads). */
function cpuMsOf(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

/**
 * CPU ms of a process's live threads by kind: the main (event-loop) thread, the JavaScript
 * Workers (and each Worker as "worker <tid>"), the JIT compiler, the garbage collector and
 * allocator, and the rest. A thread that has exited is in the process total only.
 */
function threadCpuMs(pid: number): Record<string, number> {
  const out: Record<string, number> = { main: 0, workers: 0, jit: 0, gc: 0, other: 0 };
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {}
  for (const tid of tids) {
    try {
      const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      const f = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ");
      const ms = (Number(f[11]) + Number(f[12])) * 10;
      const kind = tid === String(pid) ? "main" : comm === "Worker" ? "workers" : comm.startsWith("JIT") ? "jit" : /HeapHelper|ollector|scavenger|GC/i.test(comm) ? "gc" : "other";
      out[kind]! += ms;
      if (kind === "workers") out[`worker ${tid}`] = ms;
    } catch {}
  }
  return out;
}

/**
 * The machine's CPU time so far, in clock ticks: idle (idle and iowait) and in all (/proc/stat).
 * Idle time during a run is CPU that neither the service, PostgreSQL nor the bench could use.
 */
function machineTicks(): { idle: number; total: number } {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  return { idle: f[3]! + f[4]!, total: f.reduce((a, b) => a + b, 0) };
}

/** CPU ms of the PostgreSQL backends connected to `database` (their process titles name it). */
function pgCpuMs(database: string | null): number {
  if (!database) return 0;
  let total = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(` ${database} `)) total += cpuMsOf(Number(pid));
    } catch {}
  }
  return total;
}

const fmt = (n: number) => n.toFixed(n < 10 ? 2 : 0);
const pct = (xs: number[], q: number) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]! : NaN);

/** One service under test: its database, its ports, its mailboxes and what their SSE streams saw processed. */
interface Target {
  label: string;
  svc: Awaited<ReturnType<typeof startService>>;
  db: Awaited<ReturnType<typeof freshDatabase>> | null;
  dbName: string | null;
  smtpPort: number;
  rcpts: string[];
  processed: Map<string, number>;
  /** The service's HTTP base and admin token (GET /metrics). */
  base: string;
  admin: string;
}

type Commits = Record<string, { shared: number; alone: number; writes: number; merged: number; mergedCalls: number }>;

/** The service's GET /metrics text; empty when it cannot be read. */
async function metricsOf(t: Target): Promise<string> {
  return fetch(`${t.base}/metrics`, { headers: { authorization: `Bearer ${t.admin}` } })
    .then((r) => (r.ok ? r.text() : ""))
    .catch(() => "");
}

/** The mailbox actors' commits so far, by kind of write (db/shared-commit.ts); empty for a build without them. */
function actorCommits(metrics: string): Commits {
  const commits: Commits = {};
  const of = (kind: string) => (commits[kind] ??= { shared: 0, alone: 0, writes: 0, merged: 0, mergedCalls: 0 });
  for (const m of metrics.matchAll(/^mailroom_actor_commits_total\{kind="(\w+)",shared="(true|false)"\} (\d+)$/gm)) of(m[1]!)[m[2] === "true" ? "shared" : "alone"] = Number(m[3]);
  for (const m of metrics.matchAll(/^mailroom_actor_shared_writes_total\{kind="(\w+)"\} (\d+)$/gm)) of(m[1]!).writes = Number(m[2]);
  for (const m of metrics.matchAll(/^mailroom_actor_merged_statements_total\{kind="(\w+)"\} (\d+)$/gm)) of(m[1]!).merged = Number(m[2]);
  for (const m of metrics.matchAll(/^mailroom_actor_merged_calls_total\{kind="(\w+)"\} (\d+)$/gm)) of(m[1]!).mergedCalls = Number(m[2]);
  return commits;
}

/** In-flow control's holds of MAIL FROM so far (src/mail/in-flow.ts); null for a build without them. */
type Holds = { caughtUp: number; maxWait: number; seconds: number };
function inFlowHolds(metrics: string): Holds | null {
  const count = (released: string) => metrics.match(new RegExp(`^mailroom_smtp_in_flow_holds_total\\{released="${released}"\\} (\\d+)$`, "m"))?.[1];
  const seconds = metrics.match(/^mailroom_smtp_in_flow_held_seconds_total (\S+)$/m)?.[1];
  if (count("caught_up") === undefined || seconds === undefined) return null;
  return { caughtUp: Number(count("caught_up")), maxWait: Number(count("max_wait") ?? 0), seconds: Number(seconds) };
}

/**
 * "MAIL FROM held 0.40 per message (0.00 to the maximum), 31 ms each, 12% of the connections' time":
 * while it is more than nothing, senders were paced by processing (in-flow control), and the
 * accepted rate is the rate the service processed at.
 */
function holdsPerMessage(before: Holds | null, after: Holds | null, messages: number, runSeconds: number): string {
  if (!before || !after) return "";
  const holds = after.caughtUp + after.maxWait - before.caughtUp - before.maxWait;
  const held = after.seconds - before.seconds;
  return ` | MAIL FROM held ${fmt(holds / messages)} per message (${fmt((after.maxWait - before.maxWait) / messages)} to the maximum), ${fmt(holds > 0 ? (1000 * held) / holds : 0)} ms each, ${fmt((100 * held) / (connections * runSeconds))}% of the connections' time`;
}

/** "arrivals 0.80 (0.10 shared, 3.1 writes each), processed …" per message, from two readings of actorCommits. */
function commitsPerMessage(before: Commits, after: Commits, messages: number): string {
  return Object.entries(after)
    .map(([kind, a]) => {
      const b = before[kind] ?? { shared: 0, alone: 0, writes: 0, merged: 0, mergedCalls: 0 };
      const shared = a.shared - b.shared;
      // Statements saved by merging (db/tx-batch.ts): calls that went in another's statement.
      const saved = a.mergedCalls - b.mergedCalls - (a.merged - b.merged);
      return `${kind} ${fmt((shared + a.alone - b.alone) / messages)} (${fmt(shared / messages)} shared, ${fmt(shared > 0 ? (a.writes - b.writes) / shared : 0)} writes each, ${fmt(saved / messages)} statements saved by merging)`;
    })
    .join(", ");
}

/** Starts the service of checkout `root` on a fresh database of its own, with `mailboxCount` mailboxes watched. */
async function setUp(label: string, root: string): Promise<Target> {
  const db = pglite ? null : await freshDatabase();
  const httpPort = await freePort();
  const smtpPort = await freePort();
  const admin = `bench-admin-${crypto.randomUUID()}`;
  const svc = await startService(
    {
      PORT: String(httpPort),
      SMTP_PORT: String(smtpPort),
      HOST: "127.0.0.1",
      ADMIN_TOKEN: admin,
      DATA_DIR: tempDir("mailroom-bench-"),
      API_KEY_RATE_LIMIT: "10000000",
      ...(db ? { DATABASE_URL: db.url } : { DATABASE_URL: "" }),
      ...(process.env.NATS_URL && !pglite ? { NATS_URL: process.env.NATS_URL } : { NATS_URL: "" }),
    },
    120_000,
    root,
  );
  const base = `http://127.0.0.1:${httpPort}`;
  const rcpts: string[] = [];
  const processed = new Map<string, number>();
  for (let i = 0; i < mailboxCount; i++) {
    const created = await fetch(`${base}/v1/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ slug: `bench-${i}-${Date.now().toString(36)}`, displayName: "Bench" }),
    }).then((r) => r.json() as Promise<{ primary_mailbox: { id: string; email_address: string } }>);
    rcpts.push(created.primary_mailbox.email_address);
    watchProcessed(base, admin, created.primary_mailbox.id, processed, stopStreams.signal);
  }
  return { label, svc, db, dbName: db ? new URL(db.url).pathname.slice(1) : null, smtpPort, rcpts, processed, base, admin };
}

interface RunFigures {
  perSecond: number;
  p99: number;
  overTwoSeconds: number;
  cpuMs: number;
  pgCpuMs: number;
}

/** Sends `count` messages to `t` untimed and waits (bounded) for every accepted one to be processed. */
async function warmUp(t: Target, body: (n: number) => string, count: number): Promise<void> {
  const run = await drive(t.smtpPort, t.rcpts, body, count);
  const deadline = performance.now() + 120_000;
  while (performance.now() < deadline && run.sent.some((s) => s.id !== null && !t.processed.has(s.id))) await Bun.sleep(100);
}

/** One run against `t`: the SMTP drive, then the wait for every accepted message to be processed; printed as one line (`share` names the ceiling's share after the rate). */
async function measure(t: Target, body: (n: number) => string, prefix: string, share: (perSecond: number) => string = () => ""): Promise<RunFigures> {
  const svcCpu0 = cpuMsOf(t.svc.proc.pid);
  const threads0 = threadCpuMs(t.svc.proc.pid);
  const pgCpu0 = pgCpuMs(t.dbName);
  const metrics0 = await metricsOf(t);
  const client0 = process.cpuUsage();
  const machine0 = machineTicks();
  const service = await drive(t.smtpPort, t.rcpts, body);
  const machine1 = machineTicks();
  // Every accepted message must get processed; wait for the backlog (bounded).
  const deadline = performance.now() + 120_000;
  const ids = service.sent.filter((s) => s.id !== null) as { id: string; at: number }[];
  while (performance.now() < deadline && ids.some((s) => !t.processed.has(s.id))) await Bun.sleep(100);
  const svcCpu = cpuMsOf(t.svc.proc.pid) - svcCpu0;
  const client = process.cpuUsage(client0);
  const pgCpu = pgCpuMs(t.dbName) - pgCpu0;
  const threads1 = threadCpuMs(t.svc.proc.pid);
  const spent = (k: string) => (threads1[k]! - (threads0[k] ?? 0)) / service.count;
  // Each Worker's own share too (the parser's, mailauth's, the blob threads'): the kinds alone hid one costing a tenth.
  const workers = Object.keys(threads1).filter((k) => k.startsWith("worker ")).map(spent).filter((ms) => ms >= 0.005).sort((a, b) => b - a);
  const byThread = Object.keys(threads1)
    .filter((k) => !k.startsWith("worker "))
    .map((k) => `${k} ${fmt(spent(k))}${k === "workers" && workers.length > 1 ? ` = ${workers.map(fmt).join(" + ")}` : ""}`)
    .join(", ");
  const metrics1 = await metricsOf(t);
  const commits = commitsPerMessage(actorCommits(metrics0), actorCommits(metrics1), service.count);
  // The run's own length: with --messages it is not --seconds.
  const holds = holdsPerMessage(inFlowHolds(metrics0), inFlowHolds(metrics1), service.count, service.count / service.perSecond);
  const lags = ids.filter((s) => t.processed.has(s.id)).map((s) => t.processed.get(s.id)! - s.at);
  lags.sort((a, b) => a - b);
  const overTwoSeconds = lags.filter((l) => l > 2000).length;
  console.log(
    prefix +
      `service ${fmt(service.perSecond)} msg/s (p50 ${fmt(service.p50)} ms, p99 ${fmt(service.p99)} ms, max ${fmt(service.max)} ms)${share(service.perSecond)}` +
      ` | processed ${lags.length}/${service.count}, unprocessed ${ids.length - lags.length}, 250→processed p50 ${fmt(pct(lags, 0.5))} ms, p99 ${fmt(pct(lags, 0.99))} ms, max ${fmt(lags.at(-1) ?? NaN)} ms, over 2 s: ${overTwoSeconds}` +
      ` | CPU per message: service ${fmt(svcCpu / service.count)} ms (${byThread})${t.db ? ` + PostgreSQL backends ${fmt(pgCpu / service.count)} ms` : " (database included)"}` +
      `; this bench's own client (SMTP and event streams, on the same cores) ${fmt((client.user + client.system) / 1000 / service.count)} ms` +
      (commits ? ` | actor commits per message: ${commits}` : "") +
      holds +
      ` | machine idle while sending ${fmt((100 * (machine1.idle - machine0.idle)) / Math.max(1, machine1.total - machine0.total))}%`,
  );
  return { perSecond: service.perSecond, p99: service.p99, overTwoSeconds, cpuMs: svcCpu / service.count, pgCpuMs: pgCpu / service.count };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const stopStreams = new AbortController();
const targets: Target[] = [];
const barePort = await freePort();
// Started with the runtime settings npm start gives the service (the allocator's), as the service is.
const bare = Bun.spawn([BUN, "bench/bare-smtp.ts", String(barePort)], { cwd: ROOT, env: startEnv(), stdout: "pipe", stderr: "inherit" });
await new Response(bare.stdout).body!.getReader().read(); // its ready line

try {
  targets.push(await setUp("this checkout", ROOT));
  if (against) targets.push(await setUp(`--against ${against}`, against));
  const body = await buildBody();

  console.log(
    `inbound SMTP ingest: ${small ? `${textKib} KiB text` : "20 KiB text + 100 KiB attachment"} (${textKind}${distinctText ? ", distinct texts" : ""}) (${(body(0).length / 1024).toFixed(0)} KiB on the wire), ${connections} connections, ${mailboxCount} mailbox(es), ${senders === 1 ? "one sender" : senders === 0 ? "a sender per message" : `${senders} senders`}, ${seconds} s per run, ${rounds} rounds, ${pglite ? "PGlite (embedded)" : `PostgreSQL${process.env.NATS_URL ? " + NATS" : ""}`}`,
  );
  if (warmup > 0) {
    await drive(barePort, targets[0]!.rcpts, body, warmup);
    for (const t of targets) await warmUp(t, body, warmup);
    console.log(`warmed up: ${warmup} messages to the bare server and to each service, untimed`);
  }
  const figures = new Map<Target, RunFigures[]>(targets.map((t) => [t, []]));
  for (let round = 1; round <= rounds; round++) {
    const bareCpu0 = cpuMsOf(bare.pid);
    const ceiling = await drive(barePort, targets[0]!.rcpts, body);
    const bareCpu = cpuMsOf(bare.pid) - bareCpu0;
    const ceilingText = `ceiling ${fmt(ceiling.perSecond)} msg/s (p50 ${fmt(ceiling.p50)} ms, p99 ${fmt(ceiling.p99)} ms, ${fmt(bareCpu / ceiling.count)} ms CPU/msg)`;
    if (!against) {
      await measure(targets[0]!, body, `round ${round}: ${ceilingText} | `, (rate) => ` = ${((100 * rate) / ceiling.perSecond).toFixed(0)}% of ceiling`);
      continue;
    }
    console.log(`round ${round}: ${ceilingText}`);
    // The two take turns going first, so that a machine that drifts faster or slower over a round favours neither.
    const order = round % 2 === 1 ? targets : [...targets].reverse();
    for (const t of order) figures.get(t)!.push(await measure(t, body, `  ${t.label}: `));
  }
  if (against) {
    const [a, b] = targets.map((t) => figures.get(t)!);
    const ratios = (pick: (f: RunFigures) => number) => a!.map((f, i) => pick(f) / pick(b![i]!));
    const summary = (name: string, pick: (f: RunFigures) => number, unit: string) =>
      `${name}: ${fmt(median(a!.map(pick)))} vs ${fmt(median(b!.map(pick)))} ${unit} (medians); this/against per round ${ratios(pick)
        .map((r) => r.toFixed(2))
        .join(", ")}, median ${median(ratios(pick)).toFixed(2)}`;
    console.log(`paired over ${rounds} rounds, this checkout vs ${against}:`);
    console.log(`  ${summary("msg/s", (f) => f.perSecond, "msg/s")}`);
    console.log(`  ${summary("service CPU", (f) => f.cpuMs, "ms/msg")}`);
    if (!pglite) console.log(`  ${summary("PostgreSQL CPU", (f) => f.pgCpuMs, "ms/msg")}`);
  }
} finally {
  stopStreams.abort();
  bare.kill("SIGTERM");
  for (const t of targets) {
    await stop(t.svc.proc);
    await t.db?.drop();
  }
}
