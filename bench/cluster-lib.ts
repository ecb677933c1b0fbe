/**
 * What the cluster benches share: nodes of one cluster (src/main.ts processes on one fresh
 * PostgreSQL database and the NATS of NATS_URL), a bare Bun.serve ceiling, wrk, latency
 * quantiles.
 */
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { partitionOf } from "../src/cluster/leases.ts";
import { BUN, freePort, freshDatabase, ROOT, startEnv, startService, tempDir, type Started } from "./lib.ts";

export interface BenchNode {
  name: string;
  base: string;
  svc: Started;
}

export async function clusterOnFreshDatabase(env: Record<string, string> = {}) {
  if (!process.env.NATS_URL) {
    console.error("NATS_URL is needed (the cluster's NATS)");
    process.exit(1);
  }
  const db = await freshDatabase();
  const sql = postgres(db.url, { max: 2, onnotice: () => {} });
  const admin = `bench-admin-${crypto.randomUUID()}`;
  const nodes = new Map<string, BenchNode>();
  const start = async (name: string, extra: Record<string, string> = {}) => {
    const port = await freePort();
    const svc = await startService(
      {
        PORT: String(port),
        SMTP_PORT: String(await freePort()),
        HOST: "127.0.0.1",
        ADMIN_TOKEN: admin,
        DATABASE_URL: db.url,
        NATS_URL: process.env.NATS_URL!,
        DATA_DIR: tempDir("mailroom-bench-"),
        NODE_ID: name,
        API_KEY_RATE_LIMIT: "10000000",
        LOG_LEVEL: "info",
        ...env,
        ...extra,
      },
      120_000,
    );
    const node = { name, base: `http://127.0.0.1:${port}`, svc };
    nodes.set(name, node);
    return node;
  };
  /** The NODE_ID holding the mailbox now. */
  const ownerOf = async (mailboxId: string): Promise<string | undefined> => {
    const [row] = await sql`SELECT owner FROM cluster_partitions WHERE partition = ${partitionOf(mailboxId)} AND expires_at > now()`;
    const owner = row?.owner as string | undefined;
    return owner ? [...nodes.keys()].find((n) => owner.startsWith(`${n}-`)) : undefined;
  };
  const waitBalanced = async (count: number) => {
    for (let i = 0; i < 600; i++) {
      const rows = await sql`SELECT count(DISTINCT owner)::int AS owners, count(*) FILTER (WHERE owner IS NOT NULL AND expires_at > now())::int AS held FROM cluster_partitions`;
      if (rows[0]!.owners === count && rows[0]!.held === 64) return;
      await Bun.sleep(100);
    }
    throw new Error("the cluster did not settle");
  };
  const stopAll = async () => {
    for (const n of nodes.values()) {
      // BENCH_CPU_PROF (bench/lib.ts): a profile is written on a clean exit only.
      n.svc.proc.kill(process.env.BENCH_CPU_PROF ? "SIGTERM" : "SIGKILL");
      await n.svc.proc.exited;
    }
    await sql.end();
    await db.drop();
  };
  return { db, sql, admin, nodes, start, ownerOf, waitBalanced, stopAll };
}

export async function call(base: string, method: string, path: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(base + path, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A new account on `base` and a mailbox-scoped key for its primary mailbox: what each cluster bench reads with. */
export async function mailboxWithKey(base: string, admin: string): Promise<{ mailboxId: string; token: string }> {
  const acct = await call(base, "POST", "/v1/accounts", admin, { slug: `bench-${Date.now().toString(36)}`, displayName: "Bench" });
  const mailboxId: string = acct.primary_mailbox.id;
  const key = await call(base, "POST", `/v1/mailboxes/${mailboxId}/api-keys`, admin, { name: "bench", scope: "mailbox" });
  return { mailboxId, token: key.token };
}

/**
 * A bare Bun.serve in its own process answering `body` to everything, started with the
 * runtime settings `npm start` gives the service (the allocator's), so that the ratio
 * compares code, not settings.
 */
export async function ceiling(body: string): Promise<{ url: string; pid: number; kill(): void }> {
  const port = await freePort();
  const proc = Bun.spawn(
    [BUN, "-e", `Bun.serve({ port: ${port}, hostname: "127.0.0.1", fetch: () => new Response(${JSON.stringify(body)}, { headers: { "content-type": "application/json;charset=utf-8" } }) }); console.log("up");`],
    { cwd: ROOT, env: startEnv(), stdout: "pipe" },
  );
  await (proc.stdout as ReadableStream<Uint8Array>).getReader().read();
  return { url: `http://127.0.0.1:${port}`, pid: proc.pid, kill: () => proc.kill() };
}

/**
 * The read's floor (bench/read-floor-server.ts): a bare Bun.serve that reads what the fast
 * path reads and answers `body` with the same headers, started as `ceiling` is. With
 * `pair`, one of the two-node floor's servers: the owner, or the forwarder that asks it for
 * every call over the NATS of NATS_URL (on subjects of the pair's own `subject`).
 */
export async function floor(body: string, pair?: { role: "owner" | "forwarder"; subject: string }): Promise<{ url: string; pid: number; kill(): void }> {
  const port = await freePort();
  const env: Record<string, string> = { ...startEnv(), READ_FLOOR_BODY: body };
  if (pair) Object.assign(env, { READ_FLOOR_NATS: process.env.NATS_URL!, READ_FLOOR_ROLE: pair.role, READ_FLOOR_SUBJECT: pair.subject });
  const proc = Bun.spawn([BUN, "bench/read-floor-server.ts", String(port)], { cwd: ROOT, env, stdout: "pipe" });
  await (proc.stdout as ReadableStream<Uint8Array>).getReader().read();
  return { url: `http://127.0.0.1:${port}`, pid: proc.pid, kill: () => proc.kill() };
}

export interface WrkResult {
  rps: number;
  p50ms: number;
  p99ms: number;
  non2xx: number;
}

const ms = (m: RegExpExecArray | null) => (m ? Number(m[1]) * (m[2] === "us" ? 0.001 : m[2] === "s" ? 1000 : 1) : NaN);

/**
 * Exits at once when wrk is missing. Called before anything is started: an exit from inside
 * a run would leave the nodes it started running, holding the bench's output open.
 */
export function requireWrk(): void {
  if (!Bun.which("wrk")) {
    console.error("wrk is needed: apt-get install wrk");
    process.exit(1);
  }
}

export async function wrk(url: string, opts: { connections: number; seconds: number; threads?: number; headers?: string[]; script?: string }): Promise<WrkResult> {
  const args = ["wrk", `-t${opts.threads ?? 1}`, `-c${opts.connections}`, `-d${opts.seconds}s`, "--latency", ...(opts.headers ?? []).flatMap((h) => ["-H", h]), ...(opts.script ? ["-s", opts.script] : []), url];
  const p = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    p50ms: ms(/\s50%\s+([\d.]+)(us|ms|s)/.exec(out)),
    p99ms: ms(/\s99%\s+([\d.]+)(us|ms|s)/.exec(out)),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
  };
}

/** User + system CPU of a process and all its threads, in microseconds (USER_HZ is 100 on Linux). */
export function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
export const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 1 });
