/**
 * Crash and cluster behaviour of webhook delivery, with the service as real processes:
 * SIGKILL while deliveries are in flight, then a restart, must deliver every event at least
 * once and record it; two nodes on one PostgreSQL and one NATS deliver each event once in
 * the normal case. Needs PostgreSQL (an embedded PGlite directory belongs to one process).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import postgres from "postgres";
import { freshDatabase, sleep, usingNats, usingPostgres } from "./harness.ts";
import { rfc822 } from "./mail-support.ts";
import { startReceiver } from "./webhook-support.ts";

const ROOT = join(import.meta.dir, "..");
const ADMIN = `faults-admin-${crypto.randomUUID()}`;
const procs: ReturnType<typeof Bun.spawn>[] = [];

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

async function startNode(databaseUrl: string, nodeId: string): Promise<{ proc: ReturnType<typeof Bun.spawn>; url: string }> {
  const port = await freePort();
  const proc = Bun.spawn([process.execPath, "src/main.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      SMTP_PORT: String(await freePort()),
      HOST: "127.0.0.1",
      ADMIN_TOKEN: ADMIN,
      DATABASE_URL: databaseUrl,
      NODE_ID: nodeId,
      LOG_LEVEL: "warn",
      ALLOW_PRIVATE_WEBHOOK_TARGETS: "true",
      WEBHOOK_RETRY_DELAYS: "0.2,0.2,0.2,0.2,0.2",
      WEBHOOK_TIMEOUT_MS: "2000",
      JOB_LEASE_SECONDS: "3",
      WEBHOOK_SWEEP_SECONDS: "1",
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  procs.push(proc);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (ok) return { proc, url };
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`node ${nodeId} did not start`);
    await sleep(100);
  }
}

const api = (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body !== undefined && typeof body !== "string" ? { "content-type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as any }));

async function setup(base: string, receiverUrl: string) {
  const acct = await api(base, "POST", "/v1/accounts", { slug: `faults-${crypto.randomUUID().slice(0, 8)}`, displayName: "Faults" });
  expect(acct.status).toBe(201);
  const mailbox = acct.body.primary_mailbox;
  const hook = await api(base, "POST", `/v1/mailboxes/${mailbox.id}/webhooks`, { url: receiverUrl, events: ["message.received", "message.processed"] });
  expect(hook.status).toBe(201);
  return { mailbox, endpointId: hook.body.webhook.id as string };
}

async function sendMany(base: string, to: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const raw = rfc822({ From: "ann@example.com", To: to, Subject: `fault ${i}`, "Message-ID": `<${crypto.randomUUID()}@example.com>` });
    const res = await api(base, "POST", "/v1/inbound/email", raw, { "content-type": "message/rfc822" });
    expect(res.status).toBe(202);
    ids.push(res.body.message_ids[0]);
  }
  return ids;
}

/** Per message id, the delivery ids seen for each event. */
function seen(requests: { headers: Record<string, string>; body: string }[]) {
  const byKey = new Map<string, Set<string>>();
  for (const r of requests) {
    const key = `${JSON.parse(r.body).id} ${r.headers["x-service-event"]}`;
    if (!byKey.has(key)) byKey.set(key, new Set());
    byKey.get(key)!.add(r.headers["webhook-id"]!);
  }
  return byKey;
}

afterAll(() => {
  for (const p of procs) p.kill("SIGKILL");
});

describe.skipIf(!usingPostgres)(`webhook delivery survives crashes (${usingNats ? "JetStream" : "in-process"})`, () => {
  test("SIGKILL with deliveries in flight, then a restart: every event delivered at least once and recorded", async () => {
    const db = await freshDatabase("mailroom_faults");
    // A slow receiver, so that the kill lands with requests in flight.
    const rx = startReceiver(async () => {
      await sleep(150);
      return new Response("ok");
    });
    try {
      const a = await startNode(db.url, "crash-a");
      const { mailbox, endpointId } = await setup(a.url, rx.url);
      const ids = await sendMany(a.url, mailbox.email_address, 40);
      await rx.waitFor((rs) => rs.length >= 5, 20_000);
      a.proc.kill("SIGKILL");
      await a.proc.exited;
      const delivered = rx.requests.length;

      const b = await startNode(db.url, "crash-b");
      const want = ids.flatMap((id) => [`${id} message.received`, `${id} message.processed`]);
      await rx.waitFor((rs) => want.every((k) => seen(rs).has(k)), 60_000);
      expect(delivered).toBeLessThan(want.length); // the kill really interrupted delivery

      // A duplicate (at-least-once) always carries the same delivery id.
      for (const [, deliveryIds] of seen(rx.requests)) expect(deliveryIds.size).toBe(1);

      // Recorded: every delivery ends with a successful attempt in the history.
      const sql = postgres(db.url, { max: 1, onnotice: () => {} });
      try {
        const deadline = Date.now() + 20_000;
        for (;;) {
          const [row] = await sql<{ total: number; ok: number }[]>`
            select count(*)::int as total, count(*) filter (where state = 'succeeded' and exists (select 1 from webhook_attempts a where a.delivery_id = d.id and a.success))::int as ok
            from webhook_deliveries d where endpoint_id = ${endpointId}`;
          if (row!.total === want.length && row!.ok === want.length) break;
          if (Date.now() > deadline) throw new Error(`recorded ${row!.ok}/${row!.total} of ${want.length}`);
          await sleep(100);
        }
      } finally {
        await sql.end();
      }
      b.proc.kill("SIGTERM");
      await b.proc.exited;
    } finally {
      rx.stop();
      await db.drop();
    }
  }, 120_000);

  test.skipIf(!usingNats)("two nodes on one PostgreSQL and NATS deliver each event once", async () => {
    const db = await freshDatabase("mailroom_faults");
    const rx = startReceiver();
    try {
      const a = await startNode(db.url, "pair-a");
      const b = await startNode(db.url, "pair-b");
      const { mailbox } = await setup(a.url, rx.url);
      // Mail arrives at both nodes.
      const ids = [...(await sendMany(a.url, mailbox.email_address, 20)), ...(await sendMany(b.url, mailbox.email_address, 20))];
      const want = ids.flatMap((id) => [`${id} message.received`, `${id} message.processed`]);
      await rx.waitFor((rs) => want.every((k) => seen(rs).has(k)), 60_000);
      await sleep(1000);
      const duplicates = rx.requests.length - want.length;
      expect(duplicates).toBe(0);
      for (const p of [a, b]) p.proc.kill("SIGTERM");
      await Promise.all([a.proc.exited, b.proc.exited]);
    } finally {
      rx.stop();
      await db.drop();
    }
  }, 120_000);
});
