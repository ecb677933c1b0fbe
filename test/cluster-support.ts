import type { Subprocess } from "bun";
import { createServer } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { partitionOf } from "../src/cluster/leases.ts";
import { TEST_SECRETS_KEY } from "./harness.ts";
import { collectLines } from "./process-output.ts";

/**
 * Real node processes (src/main.ts) of one cluster: one PostgreSQL database, one NATS,
 * one admin token. For the multi-node tests and the cluster benches.
 */
const ROOT = join(import.meta.dir, "..");
const HOST = "127.0.0.1";

export interface Node {
  name: string;
  url: string;
  smtpPort: number;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  logs: Record<string, any>[];
  lines: string[];
  exited: Promise<number>;
  waitFor(pred: (log: Record<string, any>) => boolean, timeoutMs: number): Promise<Record<string, any>>;
}

export async function freePort(): Promise<number> {
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

export class Cluster {
  readonly nodes = new Map<string, Node>();
  readonly admin = `cluster-admin-${crypto.randomUUID()}`;
  readonly sql = postgres(process.env.DATABASE_URL!, { max: 4, onnotice: () => {} });
  private readonly dirs: string[] = [];

  constructor(private readonly env: Record<string, string> = {}) {}

  async start(name: string, extra: Record<string, string> = {}): Promise<Node> {
    const dir = mkdtempSync(join(tmpdir(), "mailroom-cluster-"));
    this.dirs.push(dir);
    const port = await freePort();
    const smtpPort = await freePort();
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      DATABASE_URL: process.env.DATABASE_URL!,
      NATS_URL: process.env.NATS_URL!,
      SECRETS_KEY: TEST_SECRETS_KEY,
      ADMIN_TOKEN: this.admin,
      HOST,
      PORT: String(port),
      SMTP_PORT: String(smtpPort),
      DATA_DIR: dir,
      NODE_ID: name,
      LOG_LEVEL: "info",
      PARSE_WORKERS: "1",
      ALLOW_PRIVATE_WEBHOOK_TARGETS: "true",
      ...this.env,
      ...extra,
    };
    const proc = Bun.spawn([process.execPath, "src/main.ts"], { cwd: ROOT, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const logs: Record<string, any>[] = [];
    const lines: string[] = [];
    void collectLines(proc.stdout, lines, logs);
    void collectLines(proc.stderr, lines, logs);
    const node: Node = {
      name,
      url: `http://${HOST}:${port}`,
      smtpPort,
      proc,
      logs,
      lines,
      exited: proc.exited,
      async waitFor(pred, timeoutMs) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const hit = logs.find(pred);
          if (hit) return hit;
          if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`${name} exited (${proc.exitCode ?? proc.signalCode}):\n${lines.slice(-30).join("\n")}`);
          if (Date.now() > deadline) throw new Error(`${name}: timed out waiting for a log line:\n${lines.slice(-30).join("\n")}`);
          await Bun.sleep(50);
        }
      },
    };
    this.nodes.set(name, node);
    // A busy 2-core machine may take long to start a node; this is a cap, not a speed check.
    await node.waitFor((l) => l.msg === "ready", 90_000);
    return node;
  }

  /** The node holding the mailbox's partition now, by its NODE_ID. */
  async ownerOf(mailboxId: string): Promise<string | undefined> {
    const [row] = await this.sql`SELECT owner FROM cluster_partitions WHERE partition = ${partitionOf(mailboxId)} AND expires_at > now()`;
    const owner = row?.owner as string | null | undefined;
    if (!owner) return undefined;
    return [...this.nodes.keys()].find((n) => owner.startsWith(`${n}-`));
  }

  /** Partitions held (unexpired) per NODE_ID. */
  async shares(): Promise<Map<string, number>> {
    const rows = await this.sql`SELECT owner, count(*)::int AS n FROM cluster_partitions WHERE owner IS NOT NULL AND expires_at > now() GROUP BY owner`;
    const out = new Map<string, number>();
    for (const r of rows) {
      const name = [...this.nodes.keys()].find((n) => (r.owner as string).startsWith(`${n}-`));
      if (name) out.set(name, (out.get(name) ?? 0) + Number(r.n));
    }
    return out;
  }

  api(node: Node | string, method: string, path: string, opts: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {}) {
    const n = typeof node === "string" ? this.nodes.get(node)! : node;
    const headers: Record<string, string> = { authorization: `Bearer ${opts.token ?? this.admin}`, ...opts.headers };
    let body: string | undefined;
    if (opts.raw !== undefined) {
      body = opts.raw;
      headers["content-type"] ??= "message/rfc822";
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] = "application/json";
    }
    return fetch(n.url + path, { method, headers, body }).then(async (res) => {
      const text = await res.text();
      let json: any;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, body: json, text };
    });
  }

  async stopAll(): Promise<void> {
    for (const node of this.nodes.values()) {
      if (node.proc.exitCode === null && node.proc.signalCode === null) {
        node.proc.kill("SIGCONT");
        node.proc.kill("SIGKILL");
      }
      await node.exited.catch(() => {});
    }
    await this.sql.end({ timeout: 2 });
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}
