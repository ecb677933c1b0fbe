/**
 * Webhook delivery figures, on a fresh PostgreSQL database (and JetStream when NATS_URL is set).
 *
 *   bun bench/webhooks.ts [--events 20000] [--rate 100] [--seconds 10]
 *
 * 1. Throughput: `events` event rows are committed to the outbox at once (one statement) for
 *    a mailbox with one endpoint, a local receiver answers 200; deliveries/s from the commit
 *    to the last receipt, with one node and then with two nodes sharing the database (and NATS).
 * 2. End to end: inbound SMTP at `rate` messages/s for `seconds` (each message is two events,
 *    message.received and message.processed), one node; ms from the SMTP 250 to the webhook's
 *    arrival at the receiver, p50/p99/max per event.
 */
import { parseArgs } from "node:util";
import nodemailer from "nodemailer";
import postgres from "postgres";
import { freePort, freshDatabase, startService, stop, tempDir } from "./lib.ts";

const { values } = parseArgs({ options: { events: { type: "string", default: "20000" }, rate: { type: "string", default: "100" }, seconds: { type: "string", default: "10" } } });
const EVENTS = Number(values.events);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const admin = `bench-admin-${crypto.randomUUID()}`;
const nats = process.env.NATS_URL;

const arrivals: { at: number; event: string; id: string }[] = [];
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const body = (await req.json()) as { id: string };
    arrivals.push({ at: performance.now(), event: req.headers.get("x-service-event") ?? "", id: body.id });
    return new Response("ok");
  },
});

async function node(dbUrl: string, name: string) {
  const httpPort = await freePort();
  const smtpPort = await freePort();
  const svc = await startService({
    PORT: String(httpPort),
    SMTP_PORT: String(smtpPort),
    HOST: "127.0.0.1",
    ADMIN_TOKEN: admin,
    DATABASE_URL: dbUrl,
    DATA_DIR: tempDir("mailroom-bench-"),
    NODE_ID: name,
    ALLOW_PRIVATE_WEBHOOK_TARGETS: "true",
    ...(nats ? { NATS_URL: nats } : {}),
  });
  return { ...svc, http: `http://127.0.0.1:${httpPort}`, smtpPort };
}

const api = (base: string, path: string, body: unknown) =>
  fetch(`${base}${path}`, { method: "POST", headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);

async function mailboxWithEndpoint(base: string) {
  const created = await api(base, "/v1/accounts", { slug: `wh-${crypto.randomUUID().slice(0, 8)}`, displayName: "Bench" });
  const mailbox = created.primary_mailbox as { id: string; email_address: string };
  await api(base, `/v1/mailboxes/${mailbox.id}/webhooks`, { url: `http://127.0.0.1:${receiver.port}/hook`, events: ["message.received", "message.processed", "message.sent"] });
  return mailbox;
}

async function waitArrivals(n: number, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  while (arrivals.length < n && performance.now() < deadline) await Bun.sleep(5);
  return arrivals.length >= n;
}

const pct = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;

async function throughput(nodes: number) {
  const db = await freshDatabase();
  const started = [];
  try {
    for (let i = 0; i < nodes; i++) started.push(await node(db.url, `bench-${i}`));
    const mailbox = await mailboxWithEndpoint(started[0]!.http);
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    arrivals.length = 0;
    const t0 = performance.now();
    await sql`
      insert into outbox (id, kind, topic, mailbox_id, payload)
      select gen_random_uuid(), 'event', 'message.received', ${mailbox.id}, jsonb_build_object('id', gen_random_uuid(), 'mailbox_id', ${mailbox.id}::text, 'subject', 'bench ' || g)
      from generate_series(1, ${EVENTS}) g`;
    const committed = performance.now();
    const ok = await waitArrivals(EVENTS, 300_000);
    const last = arrivals.at(-1)?.at ?? performance.now();
    const seconds = (last - committed) / 1000;
    const unique = new Set(arrivals.map((a) => a.id)).size;
    console.log(
      `throughput, ${nodes} node(s): ${EVENTS} events committed in ${((committed - t0) / 1000).toFixed(2)} s; ${arrivals.length} deliveries (${unique} distinct) in ${seconds.toFixed(2)} s = ${(arrivals.length / seconds).toFixed(0)} deliveries/s${ok ? "" : " (TIMED OUT)"}`,
    );
    await sql.end();
  } finally {
    for (const s of started) await stop(s.proc);
    await db.drop();
  }
}

async function endToEnd() {
  const db = await freshDatabase();
  const svc = await node(db.url, "bench-e2e");
  try {
    const mailbox = await mailboxWithEndpoint(svc.http);
    const transport = nodemailer.createTransport({ host: "127.0.0.1", port: svc.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 8, maxMessages: Infinity });
    arrivals.length = 0;
    const accepted = new Map<string, number>();
    const total = RATE * SECONDS;
    const t0 = performance.now();
    const sends: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      sends.push(
        transport
          .sendMail({ envelope: { from: "bench@example.com", to: [mailbox.email_address] }, raw: `From: bench@example.com\r\nTo: ${mailbox.email_address}\r\nSubject: e2e ${i}\r\nMessage-ID: <${crypto.randomUUID()}@example.com>\r\n\r\nHello ${i}.\r\n` })
          .then((info) => {
            const at = performance.now();
            const id = /queued as (\S+)/.exec(info.response)?.[1];
            if (id) accepted.set(id, at);
          }),
      );
    }
    await Promise.all(sends);
    transport.close();
    await waitArrivals(total * 2, 60_000);
    const elapsed = (performance.now() - t0) / 1000;
    for (const event of ["message.received", "message.processed"]) {
      const lat = arrivals
        .filter((a) => a.event === event && accepted.has(a.id))
        .map((a) => a.at - accepted.get(a.id)!)
        .sort((a, b) => a - b);
      console.log(`end to end at ${RATE} msg/s (${RATE * 2} events/s), SMTP 250 → receipt, ${event}: n=${lat.length} p50 ${pct(lat, 0.5).toFixed(1)} ms, p99 ${pct(lat, 0.99).toFixed(1)} ms, max ${lat.at(-1)?.toFixed(1)} ms`);
    }
    console.log(`(${accepted.size} accepted, ${arrivals.length} deliveries, ${elapsed.toFixed(1)} s)`);
  } finally {
    await stop(svc.proc);
    await db.drop();
  }
}

console.log(`webhooks bench: PostgreSQL${nats ? " + NATS JetStream" : ", in-process transport"}`);
await throughput(1);
await throughput(2);
await endToEnd();
receiver.stop(true);
