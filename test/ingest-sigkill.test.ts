/**
 * A 250 is a promise: a message that got one survives the service being killed (SIGKILL)
 * in the middle of a burst, byte for byte, and is processed after the restart. Runs the real
 * `src/main.ts` twice on one database (a fresh PostgreSQL database with DATABASE_URL, else an
 * embedded one in a data directory kept across the two runs).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import MailComposer from "nodemailer/lib/mail-composer";
import { freshDatabase, TEST_SECRETS_KEY } from "./harness.ts";
import { RawClient } from "./smtp-support.ts";

const ROOT = join(import.meta.dir, "..");
const ADMIN = `kill-admin-${crypto.randomUUID()}`;
const dataDir = mkdtempSync(join(tmpdir(), "mailroom-kill-"));
const children: ReturnType<typeof Bun.spawn>[] = [];
let dropDatabase: (() => Promise<void>) | undefined;

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await Promise.all(children.map((c) => c.exited.catch(() => {})));
  await dropDatabase?.();
  rmSync(dataDir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

async function databaseUrl(): Promise<string | undefined> {
  if (!process.env.DATABASE_URL) return undefined;
  const db = await freshDatabase("mailroom_kill");
  dropDatabase = db.drop;
  return db.url;
}

/** Starts src/main.ts and resolves with its ports once it logs "ready". */
async function startMain(db: string | undefined): Promise<{ proc: ReturnType<typeof Bun.spawn>; url: string; smtpPort: number; lastLogs: () => string }> {
  const [port, smtpPort] = [await freePort(), await freePort()];
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    PORT: String(port),
    SMTP_PORT: String(smtpPort),
    HOST: "127.0.0.1",
    ADMIN_TOKEN: ADMIN,
    DATA_DIR: dataDir,
    SECRETS_KEY: TEST_SECRETS_KEY,
    LOG_LEVEL: "info",
    ...(db ? { DATABASE_URL: db } : {}),
    ...(process.env.NATS_URL ? { NATS_URL: process.env.NATS_URL } : {}),
  };
  const proc = Bun.spawn([process.execPath, "src/main.ts"], { cwd: ROOT, env, stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  children.push(proc);
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the service exited before it was ready:\n${buf}`);
    buf += decoder.decode(value, { stream: true });
    if (buf.includes('"msg":"ready"')) break;
  }
  // Keep draining stdout so the child never blocks on a full pipe, keeping its last lines: if
  // it dies, the failure says how and what it said last.
  let tail = buf.split("\n").slice(-40);
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      tail = tail.concat(decoder.decode(value, { stream: true }).split("\n")).slice(-40);
    }
  })();
  const lastLogs = () => `exit code ${proc.exitCode}, signal ${proc.signalCode}; its last log lines:\n${tail.join("\n")}`;
  return { proc, url: `http://127.0.0.1:${port}`, smtpPort, lastLogs };
}

const api = (url: string, path: string, init: RequestInit = {}) =>
  fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json", ...(init.headers ?? {}) } });

/** A distinct message, ending in CRLF (what SMTP delivers of a message is its lines, each with its CRLF). */
async function message(to: string, n: number): Promise<Buffer> {
  const raw = await new MailComposer({
    from: "Burst <burst@example.com>",
    to,
    subject: `burst ${n}`,
    messageId: `<burst-${n}-${crypto.randomUUID()}@example.com>`,
    text: `message ${n}\r\n`.repeat(200),
    attachments: [{ filename: `f${n}.bin`, content: Buffer.from(crypto.getRandomValues(new Uint8Array(20 * 1024))) }],
  })
    .compile()
    .build();
  return raw.subarray(-2).toString() === "\r\n" ? raw : Buffer.concat([raw, Buffer.from("\r\n")]);
}

test("SIGKILL during a burst: every message that got a 250 is kept byte for byte and processed after the restart", async () => {
  const db = await databaseUrl();
  const first = await startMain(db);
  const created = await api(first.url, "/v1/accounts", { method: "POST", body: JSON.stringify({ slug: `kill-${Date.now().toString(36)}`, displayName: "Kill" }) });
  expect(created.status).toBe(201);
  const to = ((await created.json()) as { primary_mailbox: { email_address: string } }).primary_mailbox.email_address;

  const accepted = new Map<string, Buffer>();
  let n = 0;
  let killed = false;
  const sender = async () => {
    const c = await RawClient.connect(first.smtpPort);
    if (!(await c.reply()).startsWith("220")) return;
    await c.cmd("EHLO burst.example.com");
    while (!killed) {
      const raw = await message(to, n++);
      if (!(await c.cmd("MAIL FROM:<burst@example.com>")).startsWith("250")) return;
      if (!(await c.cmd(`RCPT TO:<${to}>`)).startsWith("250")) return;
      if (!(await c.cmd("DATA")).startsWith("354")) return;
      const reply = await c.data(raw.toString("latin1"));
      if (!reply.startsWith("250")) return; // the kill cut it short: no promise was made
      const id = /queued as (\S+)/.exec(reply)?.[1];
      expect(id).toBeDefined();
      accepted.set(id!, raw);
    }
  };
  const senders = Array.from({ length: 6 }, sender);
  // Kill once a good number are in, with more in flight on every connection.
  while (accepted.size < 25) await Bun.sleep(5);
  killed = true;
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  await Promise.allSettled(senders);
  expect(accepted.size).toBeGreaterThanOrEqual(25);

  const second = await startMain(db);
  try {
    for (const [id, raw] of accepted) {
      const res = await api(second.url, `/v1/messages/${id}/raw`);
      expect(res.status).toBe(200);
      expect(Buffer.compare(Buffer.from(await res.arrayBuffer()), raw)).toBe(0);
    }
    // The processing jobs committed with each arrival run after the restart.
    const deadline = Date.now() + 90_000;
    const pending = new Set(accepted.keys());
    while (pending.size > 0 && Date.now() < deadline) {
      for (const id of [...pending]) {
        const res = await api(second.url, `/v1/messages/${id}`).catch((err: unknown) => {
          throw new Error(`the restarted service did not answer (${String(err)}): ${second.lastLogs()}`);
        });
        const body = (await res.json()) as { message: { status: string } };
        if (body.message.status === "processed") pending.delete(id);
      }
      if (pending.size > 0) await Bun.sleep(250);
    }
    expect([...pending]).toEqual([]);
  } finally {
    second.proc.kill("SIGTERM");
    await second.proc.exited;
  }
}, 240_000);
