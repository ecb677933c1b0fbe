import { afterAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_SECRETS_KEY } from "./harness.ts";
import { collectLines } from "./process-output.ts";

/**
 * The real entry point (src/main.ts) as a child process: what `npm start` runs. Every
 * child is killed in afterAll, whatever happened to the test that started it.
 */

const ROOT = join(import.meta.dir, "..");
const HOST = "127.0.0.1";
const READY_TIMEOUT_MS = 60_000;
const EXIT_TIMEOUT_MS = 20_000;
// A child start on on-disk PGlite takes a few seconds; the bounds below are generous caps, not speed checks.
const TEST_TIMEOUT_MS = 120_000;
const UNKNOWN_ACCOUNT = "00000000-0000-4000-8000-000000000000";

const children = new Set<Subprocess>();
const dirs: string[] = [];

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await child.exited.catch(() => {});
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mailroom-process-"));
  dirs.push(dir);
  return dir;
}

/** A port nothing listens on right now (listen on 0, read it, close). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

interface Child {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** Every line of stdout and stderr so far, in arrival order per stream. */
  lines: string[];
  /** The lines that are JSON log records, parsed. */
  logs: Record<string, any>[];
  output(): string;
  waitFor(pred: (log: Record<string, any>) => boolean, timeoutMs: number): Promise<Record<string, any>>;
  waitExit(timeoutMs: number): Promise<number>;
}

function spawnMain(env: Record<string, string>): Child {
  const baseEnv: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "TMPDIR", "LANG"]) {
    const v = process.env[name];
    if (v !== undefined) baseEnv[name] = v;
  }
  if (process.env.DATABASE_URL) Object.assign(baseEnv, { DATABASE_URL: process.env.DATABASE_URL, SECRETS_KEY: TEST_SECRETS_KEY });
  if (process.env.NATS_URL) baseEnv.NATS_URL = process.env.NATS_URL;

  const proc = Bun.spawn([process.execPath, "src/main.ts"], {
    cwd: ROOT,
    env: { ...baseEnv, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  children.add(proc);

  const lines: string[] = [];
  const logs: Record<string, any>[] = [];
  let notify: () => void = () => {};
  let changed = new Promise<void>((r) => (notify = r));
  const bump = () => {
    const n = notify;
    changed = new Promise<void>((r) => (notify = r));
    n();
  };

  const pumped = Promise.all([collectLines(proc.stdout, lines, logs, bump), collectLines(proc.stderr, lines, logs, bump)]);
  void proc.exited.then(() => bump());

  const child: Child = {
    proc,
    lines,
    logs,
    output: () => lines.join("\n"),
    async waitFor(pred, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      let seen = 0;
      for (;;) {
        for (; seen < logs.length; seen++) if (pred(logs[seen]!)) return logs[seen]!;
        if (proc.exitCode !== null || proc.signalCode !== null) {
          await pumped;
          for (; seen < logs.length; seen++) if (pred(logs[seen]!)) return logs[seen]!;
          throw new Error(`process exited (${proc.exitCode ?? proc.signalCode}) before the expected log line; output:\n${child.output()}`);
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out waiting for a log line; output:\n${child.output()}`);
        await Promise.race([changed, Bun.sleep(Math.min(left, 250))]);
      }
    },
    async waitExit(timeoutMs) {
      const code = await Promise.race([proc.exited, Bun.sleep(timeoutMs).then(() => "timeout" as const)]);
      if (code === "timeout") throw new Error(`process did not exit within ${timeoutMs} ms; output:\n${child.output()}`);
      await pumped;
      return code;
    },
  };
  return child;
}

interface Started {
  child: Child;
  ready: Record<string, any>;
  httpPort: number;
  smtpPort: number;
  url: string;
}

/** Starts src/main.ts on free ports and waits for "ready"; retries if a port was taken meanwhile. */
async function startMain(env: Record<string, string>): Promise<Started> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const httpPort = await freePort();
    let smtpPort = await freePort();
    while (smtpPort === httpPort) smtpPort = await freePort();
    const child = spawnMain({ HOST, PORT: String(httpPort), SMTP_PORT: String(smtpPort), LOG_LEVEL: "info", ...env });
    try {
      const ready = await child.waitFor((l) => l.msg === "ready", READY_TIMEOUT_MS);
      return { child, ready, httpPort, smtpPort, url: `http://${HOST}:${httpPort}` };
    } catch (err) {
      lastError = err;
      child.proc.kill("SIGKILL");
      await child.proc.exited;
      if (!/EADDRINUSE|address already in use/i.test(child.output())) throw err;
    }
  }
  throw lastError;
}

const getAccount = (url: string, token: string | null) =>
  fetch(`${url}/v1/accounts/${UNKNOWN_ACCOUNT}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });

/** A minimal SMTP client: sends one command at a time and reads one complete reply. */
class SmtpClient {
  private buffer = "";
  private waiters: (() => void)[] = [];
  private closed = false;
  private constructor(private readonly socket: Socket) {
    socket.setEncoding("utf8");
    socket.on("data", (data: string) => {
      this.buffer += data;
      this.wake();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
    socket.on("error", () => {});
  }

  static connect(port: number): Promise<SmtpClient> {
    return new Promise((resolve, reject) => {
      const socket = new Socket();
      socket.once("error", reject);
      socket.connect(port, HOST, () => {
        socket.off("error", reject);
        resolve(new SmtpClient(socket));
      });
    });
  }

  private wake() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** The next reply: every line up to and including the one with a space after the code. */
  async reply(timeoutMs = 10_000): Promise<{ code: number; text: string }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = /^(\d{3}) .*\r?\n/m.exec(this.buffer);
      if (match) {
        const end = match.index + match[0].length;
        const text = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end);
        return { code: Number(match[1]), text };
      }
      if (this.closed) throw new Error(`connection closed; got ${JSON.stringify(this.buffer)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no SMTP reply; got ${JSON.stringify(this.buffer)}`);
      await Promise.race([new Promise<void>((r) => this.waiters.push(r)), Bun.sleep(left)]);
    }
  }

  async command(line: string) {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  close() {
    this.socket.destroy();
  }
}

describe("src/main.ts with a fresh data directory and no ADMIN_TOKEN", () => {
  const dataDir = tempDir();
  let token: string | undefined;

  test("first start: one ready line, the admin token printed once and stored 0600, SMTP answers, SIGTERM exits 0", async () => {
    const { child, ready, httpPort, smtpPort, url } = await startMain({ DATA_DIR: dataDir });
    try {
      expect(ready).toMatchObject({ msg: "ready", http_port: httpPort, smtp_port: smtpPort });
      expect(ready.database).toBe(process.env.DATABASE_URL ? "postgres" : "pglite");
      expect(ready.jobs).toBe(process.env.NATS_URL ? "nats" : "in-process");

      // The generated token: printed in exactly one log line, and kept in the data directory.
      const printed = child.logs.filter((l) => "admin_token" in l);
      expect(printed.length).toBe(1);
      token = printed[0]!.admin_token as string;
      expect(typeof token).toBe("string");
      expect(token.length).toBeGreaterThanOrEqual(32);
      expect(child.lines.filter((l) => l.includes(token!)).length).toBe(1);
      const file = join(dataDir, "admin-token");
      expect(readFileSync(file, "utf8").trim()).toBe(token);
      expect(statSync(file).mode & 0o777).toBe(0o600);

      // It is the admin token: an unknown account is 404, not 401.
      const res = await getAccount(url, token);
      expect(res.status).toBe(404);
      expect(((await res.json()) as any).error.code).toBe("not_found");
      expect((await getAccount(url, null)).status).toBe(401);
      expect((await getAccount(url, `${token}x`)).status).toBe(401);

      // SMTP: a 220 banner, and a temporary (4xx) refusal at RCPT time.
      const smtp = await SmtpClient.connect(smtpPort);
      try {
        const banner = await smtp.reply();
        expect(banner.code).toBe(220);
        expect((await smtp.command("EHLO client.example.test")).code).toBe(250);
        expect((await smtp.command("MAIL FROM:<sender@example.test>")).code).toBe(250);
        const rcpt = await smtp.command("RCPT TO:<someone@mail.localhost>");
        // No such mailbox: refused at RCPT, permanently.
        expect(rcpt.code).toBe(550);
        expect((await smtp.command("QUIT")).code).toBe(221);
      } finally {
        smtp.close();
      }

      child.proc.kill("SIGTERM");
      expect(await child.waitExit(EXIT_TIMEOUT_MS)).toBe(0);
      expect(child.logs.some((l) => l.msg === "stopped")).toBe(true);
      expect(child.logs.filter((l) => l.msg === "ready").length).toBe(1);
    } finally {
      if (child.proc.exitCode === null) child.proc.kill("SIGKILL");
    }
  }, TEST_TIMEOUT_MS);

  test("second start with the same data directory: the token is not printed again and still works; SIGINT exits 0", async () => {
    expect(token).toBeDefined();
    const { child, url } = await startMain({ DATA_DIR: dataDir });
    try {
      expect(child.logs.some((l) => "admin_token" in l)).toBe(false);
      expect(child.output()).not.toContain(token!);
      expect((await getAccount(url, token!)).status).toBe(404);
      expect(readFileSync(join(dataDir, "admin-token"), "utf8").trim()).toBe(token!);

      child.proc.kill("SIGINT");
      expect(await child.waitExit(EXIT_TIMEOUT_MS)).toBe(0);
      expect(child.logs.some((l) => l.msg === "stopped")).toBe(true);
      expect(child.logs.filter((l) => l.msg === "ready").length).toBe(1);
      expect(child.output()).not.toContain(token!);
    } finally {
      if (child.proc.exitCode === null) child.proc.kill("SIGKILL");
    }
  }, TEST_TIMEOUT_MS);
});

describe("src/main.ts refusing to start", () => {
  test("PORT=abc exits non-zero with a message naming PORT", async () => {
    const child = spawnMain({ HOST, PORT: "abc", SMTP_PORT: "0", DATA_DIR: tempDir(), LOG_LEVEL: "info" });
    const code = await child.waitExit(EXIT_TIMEOUT_MS);
    expect(code).not.toBe(0);
    const out = child.output();
    expect(out).toMatch(/(^|[^A-Z_])PORT\b/);
    expect(out).toContain("abc");
    expect(child.logs.some((l) => l.msg === "ready")).toBe(false);
  }, TEST_TIMEOUT_MS);

  test("an empty admin-token file is not taken as the admin token", async () => {
    // E.g. left by a crash between creating the file and writing it. Either start with a
    // fresh token (printed, working) or refuse to start naming the file; never start with
    // an admin token nobody can present.
    const dataDir = tempDir();
    writeFileSync(join(dataDir, "admin-token"), "\n", { mode: 0o600 });
    const httpPort = await freePort();
    const child = spawnMain({ HOST, PORT: String(httpPort), SMTP_PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: "info" });
    try {
      const outcome = await Promise.race([
        child.waitFor((l) => l.msg === "ready", READY_TIMEOUT_MS).then(() => "ready" as const),
        child.proc.exited.then(() => "exited" as const),
      ]);
      if (outcome === "exited") {
        expect(await child.waitExit(EXIT_TIMEOUT_MS)).not.toBe(0);
        expect(child.output()).toContain("admin-token");
        return;
      }
      const printed = child.logs.find((l) => typeof l.admin_token === "string" && l.admin_token.length > 0);
      expect(printed).toBeDefined();
      expect((await getAccount(`http://${HOST}:${httpPort}`, printed!.admin_token)).status).toBe(404);
      expect(readFileSync(join(dataDir, "admin-token"), "utf8").trim()).toBe(printed!.admin_token);
    } finally {
      if (child.proc.exitCode === null) {
        child.proc.kill("SIGTERM");
        await child.waitExit(EXIT_TIMEOUT_MS).catch(() => child.proc.kill("SIGKILL"));
      }
    }
  }, TEST_TIMEOUT_MS);
});

describe("npm start", () => {
  /*
   * The start script keeps the allocator from handing freed pages back to the OS (README,
   * "Memory allocator"). mimalloc reads its options from the environment as the process starts,
   * so only the start script can set them; MIMALLOC_VERBOSE makes it print them. PORT=abc makes
   * the service refuse to start right after.
   */
  async function allocatorOptions(env: Record<string, string>): Promise<string> {
    const proc = Bun.spawn([process.execPath, "run", "start"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), DATA_DIR: tempDir(), HOST, PORT: "abc", SMTP_PORT: "0", MIMALLOC_VERBOSE: "1", ...env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    children.add(proc);
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(out + err).toContain("abc"); // the service itself ran, and refused PORT
    return err;
  }

  test("starts the service with freed memory kept (purge delay -1), unless the operator sets it", async () => {
    expect(await allocatorOptions({})).toMatch(/option 'purge_delay': -1\b/);
    expect(await allocatorOptions({ MIMALLOC_PURGE_DELAY: "250" })).toMatch(/option 'purge_delay': 250\b/);
  }, TEST_TIMEOUT_MS);
});
