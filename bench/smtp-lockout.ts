/**
 * The SMTP lockout of issue 13, replayed against the service.
 *
 *   bun bench/smtp-lockout.ts [--attackers 200] [--slow 10] [--session 20] [--noop-every 5]
 *
 * From 127.0.0.1, `attackers` connections that send NOOP every `noop-every` seconds; from
 * 127.0.0.3, `slow` DATAs at one byte a second; meanwhile from 127.0.0.2 one honest client a
 * second connects, says EHLO and QUITs. The service runs on its embedded database (or
 * DATABASE_URL) with SMTP_SESSION_TIMEOUT_SECONDS=`session` and the other limits at their
 * defaults. Printed: how many attacker connections were admitted, when they were closed, when
 * the slow DATAs were cut, and how many honest clients got in (and their greeting time).
 */
import { connect, type Socket } from "node:net";
import { parseArgs } from "node:util";
import { freePort, startService, stop, tempDir } from "./lib.ts";

const { values } = parseArgs({
  options: {
    attackers: { type: "string", default: "200" },
    slow: { type: "string", default: "10" },
    session: { type: "string", default: "20" },
    "noop-every": { type: "string", default: "5" },
  },
});
const attackers = Number(values.attackers);
const slowCount = Number(values.slow);
const sessionSeconds = Number(values.session);
const noopEveryMs = Number(values["noop-every"]) * 1000;

/** Reply lines of one connection, as they come. */
class Line {
  private buf = "";
  private waiters: ((line: string) => void)[] = [];
  private queued: string[] = [];
  closedAt: number | undefined;
  private constructor(readonly socket: Socket) {
    socket.setEncoding("latin1");
    socket.on("error", () => {});
    socket.on("close", () => {
      this.closedAt = performance.now();
      for (const w of this.waiters.splice(0)) w("<closed>");
    });
    socket.on("data", (d: string) => {
      this.buf += d;
      let nl: number;
      while ((nl = this.buf.indexOf("\r\n")) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 2);
        if (line[3] === "-") continue;
        const w = this.waiters.shift();
        if (w) w(line);
        else this.queued.push(line);
      }
    });
  }
  static open(port: number, from: string): Promise<Line> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host: "127.0.0.1", localAddress: from }, () => resolve(new Line(socket)));
      socket.once("error", reject);
    });
  }
  reply(): Promise<string> {
    const q = this.queued.shift();
    if (q !== undefined) return Promise.resolve(q);
    if (this.closedAt !== undefined) return Promise.resolve("<closed>");
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  cmd(line: string): Promise<string> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]! : NaN);
const secs = (ms: number) => (ms / 1000).toFixed(1);

async function attacker(port: number, t0: number) {
  const c = await Line.open(port, "127.0.0.1");
  const greeting = await c.reply();
  if (!greeting.startsWith("220")) return { admitted: false, greeting };
  let last = await c.cmd("EHLO attacker.example");
  while (last.startsWith("250")) {
    await sleep(noopEveryMs);
    last = await c.cmd("NOOP");
  }
  return { admitted: true, greeting, last, closedAfterMs: (c.closedAt ?? performance.now()) - t0 };
}

async function slowData(port: number) {
  const c = await Line.open(port, "127.0.0.3");
  if (!(await c.reply()).startsWith("220")) return undefined;
  await c.cmd("EHLO slow.example");
  await c.cmd("MAIL FROM:<slow@example.org>");
  // DATA needs an accepted recipient: a real mailbox of the service.
  const rcpt = await c.cmd(`RCPT TO:<${slowRecipient}>`);
  if (!rcpt.startsWith("250")) return { cut: rcpt, afterMs: 0 };
  if (!(await c.cmd("DATA")).startsWith("354")) return undefined;
  const started = performance.now();
  const reply = c.reply();
  let done = false;
  void reply.then(() => (done = true));
  c.socket.write("Subject: slow\r\n\r\n");
  while (!done) {
    c.socket.write("z");
    await sleep(1000);
  }
  return { cut: await reply, afterMs: performance.now() - started };
}

async function honest(port: number) {
  const t = performance.now();
  const c = await Line.open(port, "127.0.0.2");
  const greeting = await c.reply();
  const greetingMs = performance.now() - t;
  if (greeting.startsWith("220")) {
    await c.cmd("EHLO honest.example");
    await c.cmd("QUIT");
  }
  c.socket.destroy();
  return { ok: greeting.startsWith("220"), greetingMs };
}

let slowRecipient = "";
const port = await freePort();
const smtpPort = await freePort();
const admin = `bench-admin-${crypto.randomUUID()}`;
const svc = await startService({
  PORT: String(port),
  SMTP_PORT: String(smtpPort),
  HOST: "127.0.0.1",
  ADMIN_TOKEN: admin,
  DATA_DIR: tempDir("mailroom-bench-"),
  PGLITE_IN_MEMORY: process.env.DATABASE_URL ? "false" : "true",
  SMTP_SESSION_TIMEOUT_SECONDS: String(sessionSeconds),
}, 120_000);
try {
  const res = await fetch(`http://127.0.0.1:${port}/v1/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: JSON.stringify({ slug: `lockout-${Date.now()}`, displayName: "Lockout bench" }),
  });
  slowRecipient = ((await res.json()) as { primary_mailbox: { email_address: string } }).primary_mailbox.email_address;

  const t0 = performance.now();
  const attacks = Promise.all(Array.from({ length: attackers }, () => attacker(smtpPort, t0)));
  const slows = Promise.all(Array.from({ length: slowCount }, () => slowData(smtpPort)));
  const honestResults: { ok: boolean; greetingMs: number }[] = [];
  while (performance.now() - t0 < (sessionSeconds + 5) * 1000) {
    honestResults.push(await honest(smtpPort));
    await sleep(1000);
  }
  const a = await attacks;
  const s = (await slows).filter((x) => x !== undefined);

  const admitted = a.filter((x) => x.admitted);
  const refusedTexts = [...new Set(a.filter((x) => !x.admitted).map((x) => x.greeting))];
  const closed = admitted.map((x) => x.closedAfterMs!).filter((x) => Number.isFinite(x));
  console.log(`attackers: ${attackers} from 127.0.0.1, ${admitted.length} admitted, ${attackers - admitted.length} refused ${JSON.stringify(refusedTexts)}`);
  console.log(`  admitted ones closed after ${secs(pct(closed, 50))} s (p50), ${secs(Math.max(...closed))} s (max); last reply ${JSON.stringify([...new Set(admitted.map((x) => x.last))])}`);
  const cutAfter = s.map((x) => x.afterMs);
  console.log(`slow DATA: ${s.length} at 1 B/s, cut after ${secs(pct(cutAfter, 50))} s (p50), ${secs(Math.max(...cutAfter))} s (max) with ${JSON.stringify([...new Set(s.map((x) => x.cut))])}`);
  const ok = honestResults.filter((h) => h.ok);
  const g = ok.map((h) => h.greetingMs);
  console.log(`honest client from 127.0.0.2: ${ok.length}/${honestResults.length} admitted, greeting p50 ${pct(g, 50)?.toFixed(0)} ms, max ${Math.max(...g).toFixed(0)} ms`);
} finally {
  await stop(svc.proc);
}
