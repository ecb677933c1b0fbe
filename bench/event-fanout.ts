/**
 * What many SSE streams on one mailbox cost (src/events/stream.ts, tail.ts): the service on a
 * fresh PostgreSQL database, `--streams` streams open on one mailbox, then `--events` events
 * committed one at a time (written straight into the outbox, as a commit of the mailbox's
 * actor writes them: the trigger numbers them and notifies), each with a payload of
 * `--payload` bytes. Printed per event: CPU of the service and of its PostgreSQL backends, and
 * how long until every stream had it (p50, p99, max). The service is started with
 * EVENT_STREAMS_PER_MAILBOX at `--streams`, so that it takes them all.
 *
 *   bun bench/event-fanout.ts [--streams 200] [--events 200] [--payload 8192] [--gap-ms 10] [--against <dir>]
 *
 * With --against (a checkout of another commit whose node_modules links to this one's), that
 * checkout's service is measured the same way after this one's.
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { socketOf } from "../db/client.ts";
import { ROOT, startOnFreshDatabase, stop } from "./lib.ts";

const { values } = parseArgs({
  options: {
    streams: { type: "string", default: "200" },
    events: { type: "string", default: "200" },
    payload: { type: "string", default: "8192" },
    "gap-ms": { type: "string", default: "10" },
    against: { type: "string" },
  },
});
const streamCount = Number(values.streams);
const eventCount = Number(values.events);
const payloadBytes = Number(values.payload);
const gapMs = Number(values["gap-ms"]);

const cpuMsOf = (pid: number): number => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
};
/** CPU ms of the backends of `database`, but `except` (this bench's own). */
const backendsCpuMs = (database: string, except: number): number => {
  let total = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === except) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(` ${database} `)) total += cpuMsOf(Number(pid));
    } catch {}
  }
  return total;
};
const pct = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

async function measure(root: string, label: string): Promise<void> {
  const { db, admin, svc, base } = await startOnFreshDatabase({ EVENT_STREAMS_PER_MAILBOX: String(streamCount) }, root);
  const { url, socketDir } = socketOf(db.url);
  const sql = postgres(url, { max: 1, onnotice: () => {}, ...(socketDir ? { host: socketDir } : {}) });
  const stopStreams = new AbortController();
  try {
    const created = (await fetch(`${base}/v1/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
      body: JSON.stringify({ slug: `fanout-${Date.now().toString(36)}`, displayName: "Fan-out" }),
    }).then((r) => r.json())) as { primary_mailbox: { id: string } };
    const mailboxId = created.primary_mailbox.id;

    // When each stream saw each event (performance.now()), by event number.
    const seen = Array.from({ length: eventCount + 1 }, () => [] as number[]);
    let open = 0;
    const streams = Array.from({ length: streamCount }, async () => {
      const res = await fetch(`${base}/v1/mailboxes/${mailboxId}/events`, { headers: { authorization: `Bearer ${admin}` }, signal: stopStreams.signal });
      if (!res.ok) throw new Error(`stream: ${res.status} ${await res.text()}`);
      open++;
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      let got = 0;
      while (got < eventCount) {
        const { done, value } = await reader.read();
        if (done) throw new Error("a stream ended early");
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const m = /^id: (\d+)$/m.exec(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (m) {
            seen[Number(m[1])]!.push(performance.now());
            got++;
          }
        }
      }
      await reader.cancel().catch(() => {});
    });
    const all = Promise.all(streams);
    all.catch(() => {});
    while (open < streamCount) await Bun.sleep(20);
    await Bun.sleep(500); // every stream has made its first read

    const me = (await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
    const dbName = new URL(db.url).pathname.slice(1);
    const payload = { text: "x".repeat(payloadBytes) };
    const svc0 = cpuMsOf(svc.proc.pid);
    const pg0 = backendsCpuMs(dbName, me);
    const committed: number[] = [0];
    for (let i = 1; i <= eventCount; i++) {
      await sql`insert into outbox (id, kind, topic, mailbox_id, payload) values (gen_random_uuid(), 'event', 'message.received', ${mailboxId}, ${sql.json(payload)})`;
      committed.push(performance.now());
      if (gapMs > 0) await Bun.sleep(gapMs);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([all, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("not every stream got every event within 120 s")), 120_000)))]);
    clearTimeout(timer);
    const svcMs = cpuMsOf(svc.proc.pid) - svc0;
    const pgMs = backendsCpuMs(dbName, me) - pg0;
    const lastSeen = seen.slice(1).map((times, i) => Math.max(...times) - committed[i + 1]!).sort((a, b) => a - b);
    console.log(
      `${label}: ${streamCount} streams, ${eventCount} events of ${payloadBytes} B | CPU per event: service ${(svcMs / eventCount).toFixed(2)} ms, PostgreSQL ${(pgMs / eventCount).toFixed(2)} ms` +
        ` | commit → every stream had it: p50 ${pct(lastSeen, 0.5).toFixed(0)} ms, p99 ${pct(lastSeen, 0.99).toFixed(0)} ms, max ${lastSeen[lastSeen.length - 1]!.toFixed(0)} ms`,
    );
  } finally {
    stopStreams.abort();
    await sql.end();
    await stop(svc.proc);
    await db.drop();
  }
}

await measure(ROOT, "this checkout");
if (values.against) await measure(values.against, values.against);
