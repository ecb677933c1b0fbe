/**
 * Client CPU to make one statement ready to send: drizzle's builder, which builds the SQL text
 * and parameters on every execution, against the same statement built once (db/compiled.ts),
 * which only fills this run's values in.
 *
 *   bun bench/query-build.ts [--n 20000]
 *
 * The statements are the two every inbound message runs: the update that marks it processed
 * (thirteen columns set, the row returned without its texts) and the one that stores its
 * content. The session is a stand-in that answers at once, so only the client's own work is
 * timed (no database is needed); interleaved rounds, the minimum µs per statement printed.
 */
import { and, eq, getTableColumns, isNull, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { parseArgs } from "node:util";
import { type Db, schema } from "../db/client.ts";
import { Compiled, slot, slotsOf } from "../db/compiled.ts";
import { messages } from "../db/schema/index.ts";

const { values } = parseArgs({ options: { n: { type: "string", default: "20000" }, rounds: { type: "string", default: "5" } } });
const n = Number(values.n);
const rounds = Number(values.rounds);

// A real drizzle database whose session prepares statements that answer at once, unsent.
const real = drizzle(postgres("postgres://bench@127.0.0.1:1/none"), { schema }) as unknown as Db;
const session = new Proxy(real._.session, {
  get: (target, prop, receiver) => (prop === "prepareQuery" ? () => ({ execute: () => Promise.resolve([]) }) : Reflect.get(target, prop, receiver)),
});
const db = new Proxy(real, { get: (target, prop, receiver) => (prop === "session" ? session : prop === "_" ? { ...target._, session } : Reflect.get(target, prop, receiver)) });

const { textBody: _t, htmlBody: _h, extractedText: _e, quotedText: _q, ...WITHOUT_TEXTS } = getTableColumns(messages);
const DECIDED = ["threadId", "status", "snippet", "replyTo", "messageIdHeader", "inReplyTo", "references", "riskLevel", "triageLabel", "suspiciousSignals", "auth", "autoReplyBlocked", "processedAt"] as const;
const CONTENT = ["fromAddress", "subject", "cc", "textBody", "htmlBody", "extractedText", "quotedText", "headers", "attachmentNames"] as const;
const ASYNC_COMMIT = sql`set_config('synchronous_commit', 'off', true) is not null`;
const text = "The quarterly figures are attached. ".repeat(230);

const decided = () => ({
  threadId: crypto.randomUUID(),
  status: "processed" as const,
  snippet: "The quarterly figures are attached.",
  replyTo: [] as string[],
  messageIdHeader: "<bench@example.com>",
  inReplyTo: null,
  references: [] as string[],
  riskLevel: "low" as const,
  triageLabel: "fyi",
  suspiciousSignals: [] as never[],
  auth: { spf: "pass", dkim: "pass", dmarc: "pass" } as never,
  autoReplyBlocked: false,
  processedAt: new Date(),
});
const content = () => ({ fromAddress: "bench@example.com", subject: "Quarterly figures", cc: [] as string[], textBody: text, htmlBody: null, extractedText: text, quotedText: null, headers: { subject: "Quarterly figures" } as never, attachmentNames: "" });

const markProcessed = new Compiled<ReturnType<typeof decided> & { id: string }, unknown>((d) => d.update(messages).set(slotsOf(DECIDED)).where(eq(messages.id, slot<string>("id"))).returning(WITHOUT_TEXTS));
const storeContent = new Compiled<ReturnType<typeof content> & { id: string }, unknown>((d) =>
  d.update(messages).set(slotsOf(CONTENT)).where(and(eq(messages.id, slot<string>("id")), isNull(messages.processedAt), ASYNC_COMMIT)).returning({ disposition: sql`'neutral'` }),
);

const cases: [string, () => Promise<unknown>][] = [
  ["mark processed, builder", () => db.update(messages).set(decided()).where(eq(messages.id, crypto.randomUUID())).returning(WITHOUT_TEXTS).execute()],
  ["mark processed, compiled", () => markProcessed.run(db, { ...decided(), id: crypto.randomUUID() })],
  ["store content, builder", () => db.update(messages).set(content()).where(and(eq(messages.id, crypto.randomUUID()), isNull(messages.processedAt), ASYNC_COMMIT)).returning({ disposition: sql`'neutral'` }).execute()],
  ["store content, compiled", () => storeContent.run(db, { ...content(), id: crypto.randomUUID() })],
];

const best = new Map<string, number>();
for (let r = 0; r < rounds; r++) {
  for (const [name, run] of cases) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await run();
    const used = process.cpuUsage(t0);
    const us = (used.user + used.system) / n;
    best.set(name, Math.min(best.get(name) ?? Infinity, us));
  }
}
console.log(`client CPU per statement (µs, min of ${rounds} rounds of ${n}; the values' own making included in both)`);
for (const [name] of cases) console.log(`  ${name.padEnd(28)} ${best.get(name)!.toFixed(1)}`);
process.exit(0);
