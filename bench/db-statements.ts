/**
 * CPU per statement through the service's PostgreSQL client, prepared (db/prepared.ts) or not.
 *
 *   bun bench/db-statements.ts [--n 2000] [--unprepared]
 *
 * On a fresh database (DATABASE_URL's server), over one connection: an outbox insert (jsonb
 * payload), a select of it by id, and an update of it, `n` times each in turn, as the ingest
 * path writes them. Printed: this process's CPU (user+system) and its PostgreSQL backend's
 * CPU per statement, and statements per second. CPU time, not wall time, is the figure to
 * compare on a busy machine.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { type Db, schema } from "../db/client.ts";
import { migrate } from "../db/migrate.ts";
import { StatementChoice, withPreparedStatements } from "../db/prepared.ts";
import { outbox } from "../db/schema/index.ts";
import { newId } from "../src/domain/ids.ts";
import { freshDatabase } from "./lib.ts";

const { values } = parseArgs({ options: { n: { type: "string", default: "2000" }, unprepared: { type: "boolean", default: false } } });
const n = Number(values.n);

const cpuOf = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};
const ownCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const fresh = await freshDatabase();
const client = postgres(fresh.url, { max: 1, onnotice: () => {} });
try {
  const db = drizzle(values.unprepared ? client : withPreparedStatements(client, new StatementChoice()), { schema }) as unknown as Db;
  await migrate(db);
  const [{ pid }] = (await db.execute(sql`select pg_backend_pid() as pid`)) as unknown as [{ pid: number }];
  const mailboxId = newId();
  const payload = { message_id: newId(), token_thread_id: null, arrival: { raw_sha256: "ab".repeat(32), envelope: { mailFrom: "a@example.com", rcptTo: ["b@example.com"] }, from: "a@example.com", to: "b@example.com", subject: "Quarterly figures" } };
  const c0 = ownCpu();
  const b0 = cpuOf(pid);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const id = newId();
    await db.insert(outbox).values({ id, kind: "mail.process", mailboxId, payload });
    await db.select().from(outbox).where(eq(outbox.id, id)).limit(1);
    await db.update(outbox).set({ doneAt: new Date() }).where(eq(outbox.id, id));
  }
  const ms = performance.now() - t0;
  const statements = 3 * n;
  console.log(
    `${values.unprepared ? "unprepared" : "prepared"}: ${statements} statements, client ${((ownCpu() - c0) / statements).toFixed(3)} ms CPU/statement, PostgreSQL backend ${((cpuOf(pid) - b0) / statements).toFixed(3)} ms CPU/statement, ${((1000 * statements) / ms).toFixed(0)} statements/s`,
  );
} finally {
  await client.end();
  await fresh.drop();
}
