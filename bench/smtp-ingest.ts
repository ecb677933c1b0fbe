/**
 * Inbound SMTP ingest vs. ceiling.
 *
 *   bun bench/smtp-ingest.ts [--seconds 10] [--connections 8] [--rounds 2]
 *
 * A 20 KiB message with a 100 KiB attachment, sent over `connections` persistent SMTP
 * connections for `seconds`, to the service on a fresh PostgreSQL database (DATABASE_URL's
 * server, default the local one) and, in the same run, to a bare smtp-server that reads and
 * discards the data (the ceiling). Reported: messages/s, and p50/p99 from the end of DATA
 * (the final ".") to the 250. For the service it then waits for every accepted message to be
 * processed and reports how long after acceptance processing finished (p50/p99/max, and how
 * many took over 2 s), from the database's created_at and processed_at.
 */
import { connect, type Socket } from "node:net";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { benchMessage, BUN, freePort, freshDatabase, ROOT, startService, stop, tempDir } from "./lib.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "10" }, connections: { type: "string", default: "8" }, rounds: { type: "string", default: "2" } } });
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);

/** One SMTP client connection that sends the same message again and again. */
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
  /** Sends one message; returns ms from the end of DATA to the 250. */
  async send(rcpt: string, data: string): Promise<number> {
    await this.expect("MAIL FROM:<bench@example.com>\r\n", "250");
    await this.expect(`RCPT TO:<${rcpt}>\r\n`, "250");
    await this.expect("DATA\r\n", "354");
    const p = this.reply();
    this.socket.write(data, "latin1");
    const t0 = performance.now();
    const line = await p;
    const ms = performance.now() - t0;
    if (!line.startsWith("250")) throw new Error(`DATA refused: ${line}`);
    return ms;
  }
  close() {
    this.socket.end("QUIT\r\n");
  }
}

async function buildMessage(rcpt: string): Promise<string> {
  // Dot-stuffing and the end-of-data marker, as an MTA would send it.
  const body = (await benchMessage(rcpt)).toString("latin1").replace(/\r?\n/g, "\r\n").replace(/^\./gm, "..");
  return `${body}\r\n.\r\n`;
}

async function drive(port: number, rcpt: string): Promise<{ count: number; perSecond: number; p50: number; p99: number; max: number }> {
  const data = await buildMessage(rcpt);
  const clients = await Promise.all(Array.from({ length: connections }, () => Client.open(port)));
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < end) latencies.push(await c.send(rcpt, data));
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  for (const c of clients) c.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { count: latencies.length, perSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), max: latencies.at(-1)! };
}

const fmt = (n: number) => n.toFixed(n < 10 ? 2 : 0);

const db = await freshDatabase();
const httpPort = await freePort();
const smtpPort = await freePort();
const barePort = await freePort();
const admin = `bench-admin-${crypto.randomUUID()}`;
const svc = await startService({
  PORT: String(httpPort),
  SMTP_PORT: String(smtpPort),
  HOST: "127.0.0.1",
  ADMIN_TOKEN: admin,
  DATABASE_URL: db.url,
  DATA_DIR: tempDir("mailroom-bench-"),
  ...(process.env.NATS_URL ? { NATS_URL: process.env.NATS_URL } : {}),
});
const bare = Bun.spawn([BUN, "bench/bare-smtp.ts", String(barePort)], { cwd: ROOT, stdout: "pipe", stderr: "inherit" });
await new Response(bare.stdout).body!.getReader().read(); // its ready line

try {
  const created = await fetch(`http://127.0.0.1:${httpPort}/v1/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: JSON.stringify({ slug: `bench-${Date.now().toString(36)}`, displayName: "Bench" }),
  }).then((r) => r.json() as Promise<{ primary_mailbox: { email_address: string } }>);
  const rcpt = created.primary_mailbox.email_address;
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });

  console.log(`inbound SMTP ingest: 20 KiB text + 100 KiB attachment, ${connections} connections, ${seconds} s per run, ${rounds} rounds, PostgreSQL${process.env.NATS_URL ? " + NATS" : ""}`);
  for (let round = 1; round <= rounds; round++) {
    const ceiling = await drive(barePort, rcpt);
    const started = new Date();
    const service = await drive(smtpPort, rcpt);
    // Every accepted message must get processed; wait for the backlog (bounded).
    const deadline = Date.now() + 120_000;
    let pending = 1;
    while (Date.now() < deadline) {
      const [row] = await sql<{ pending: number }[]>`select count(*)::int as pending from messages where created_at >= ${started} and processed_at is null`;
      pending = row!.pending;
      if (pending === 0) break;
      await Bun.sleep(200);
    }
    const [lag] = await sql<{ n: number; p50: number; p99: number; max: number; over2s: number }[]>`
      select count(*)::int as n,
             percentile_cont(0.5) within group (order by extract(epoch from processed_at - created_at)) * 1000 as p50,
             percentile_cont(0.99) within group (order by extract(epoch from processed_at - created_at)) * 1000 as p99,
             max(extract(epoch from processed_at - created_at)) * 1000 as max,
             count(*) filter (where processed_at - created_at > interval '2 seconds')::int as over2s
      from messages where created_at >= ${started} and processed_at is not null`;
    console.log(
      `round ${round}: ceiling ${fmt(ceiling.perSecond)} msg/s (p50 ${fmt(ceiling.p50)} ms, p99 ${fmt(ceiling.p99)} ms) | service ${fmt(service.perSecond)} msg/s (p50 ${fmt(service.p50)} ms, p99 ${fmt(service.p99)} ms) = ${((100 * service.perSecond) / ceiling.perSecond).toFixed(0)}% of ceiling | processed ${lag!.n}/${service.count}, unprocessed ${pending}, accept→processed p50 ${fmt(Number(lag!.p50))} ms, p99 ${fmt(Number(lag!.p99))} ms, max ${fmt(Number(lag!.max))} ms, over 2 s: ${lag!.over2s}`,
    );
  }
  await sql.end();
} finally {
  bare.kill("SIGTERM");
  await stop(svc.proc);
  await db.drop();
}
