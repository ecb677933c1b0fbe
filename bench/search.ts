/**
 * Full-text search latency over a large mailbox.
 *
 *   bun bench/search.ts [--messages 100000] [--queries 400] [--limit 20] [--warmup 50]
 *
 * Starts the service on a fresh PostgreSQL database (DATABASE_URL's server, default the
 * local one), seeds one mailbox with `--messages` synthetic messages straight into the
 * tables (realistic length and a Zipf-distributed vocabulary, so common words match many
 * messages and rare ones few), ANALYZEs, then times POST /v1/mailboxes/{id}/search through
 * HTTP with two-word queries drawn from the same vocabulary, one at a time. Prints p50, p95,
 * p99 and the mean, and how many messages the queries matched.
 */
import { parseArgs } from "node:util";
import postgres from "postgres";
import { startOnFreshDatabase, stop } from "./lib.ts";

const { values } = parseArgs({
  options: {
    messages: { type: "string", default: "100000" },
    queries: { type: "string", default: "400" },
    limit: { type: "string", default: "20" },
    warmup: { type: "string", default: "50" },
    // Leaves the seeded database in place (its URL is printed) for EXPLAIN ANALYZE.
    keep: { type: "boolean", default: false },
  },
});
const MESSAGES = Number(values.messages);
const QUERIES = Number(values.queries);
const LIMIT = Number(values.limit);
const WARMUP = Number(values.warmup);

// A deterministic generator, so runs are comparable.
let seed = 42;
const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);

// 5,000 pronounceable words; word i is drawn with weight 1/(i+1) (Zipf), as in real text.
const SYLLABLES = ["ka", "lo", "mi", "ne", "ra", "to", "su", "vi", "de", "po", "la", "ri", "ma", "no", "te", "sa", "be", "gu", "fi", "ho"];
const VOCABULARY = Array.from({ length: 5000 }, (_, i) => {
  let w = "";
  for (let n = i + 7; n > 0; n = Math.floor(n / SYLLABLES.length)) w += SYLLABLES[n % SYLLABLES.length];
  return w;
});
const cumulative: number[] = [];
VOCABULARY.reduce((sum, _, i) => (cumulative[i] = sum + 1 / (i + 1)), 0);
const total = cumulative.at(-1)!;
function word(): string {
  const x = rand() * total;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo]!;
}
const words = (n: number) => Array.from({ length: n }, word).join(" ");

const { db, admin, svc, base } = await startOnFreshDatabase();
const sqlc = postgres(db.url, { max: 4, onnotice: () => {} });

try {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(base + path, { method, headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as any;
  };
  const acct = await call("POST", "/v1/accounts", { slug: `bench-${Date.now().toString(36)}`, displayName: "Bench" });
  const mailboxId: string = acct.primary_mailbox.id;
  const own: string = acct.primary_mailbox.email_address;

  // Every row shares one raw blob: search reads the parsed columns, not the raw bytes.
  const sha = "0".repeat(64);
  await sqlc`insert into blobs (sha256, size, bytes) values (${sha}, 1, ${Buffer.from("x")})`;
  const t0 = performance.now();
  const BATCH = 1000;
  const start = Date.now() - MESSAGES * 60_000;
  for (let done = 0; done < MESSAGES; done += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, MESSAGES - done) }, (_, i) => {
      const at = new Date(start + (done + i) * 60_000);
      const text = `${words(12)}. ${words(20)}. ${words(15)}.\n\n${words(30)}. ${words(18)}.`;
      return {
        id: crypto.randomUUID(),
        mailbox_id: mailboxId,
        transport: "smtp",
        direction: "inbound",
        status: "processed",
        from_address: `${word()}@${word()}.example`,
        to_address: own,
        subject: words(3 + Math.floor(rand() * 5)),
        snippet: text.slice(0, 200),
        text_body: text,
        extracted_text: text,
        risk_level: "low",
        triage_label: "fyi",
        raw_sha256: sha,
        raw_size: text.length,
        processed_at: at,
        created_at: at,
      };
    });
    await sqlc`insert into messages ${sqlc(rows)}`;
    if ((done / BATCH) % 20 === 0) process.stdout.write(`\rseeded ${done + rows.length} messages`);
  }
  await sqlc`analyze messages`;
  console.log(`\rseeded ${MESSAGES} messages in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${(await sqlc`select pg_size_pretty(pg_relation_size('messages_search_tsv_idx')) as s`)[0]!.s} GIN index`);

  // Two words from the top 2,000: some pairs common, most selective, as people type them.
  const pairs = Array.from({ length: WARMUP + QUERIES }, () => `${VOCABULARY[Math.floor(rand() ** 2 * 2000)]} ${VOCABULARY[Math.floor(rand() * 2000)]}`);
  const times: number[] = [];
  const slowest: { ms: number; query: string }[] = [];
  const hits: number[] = [];
  for (const [i, query] of pairs.entries()) {
    const q0 = performance.now();
    const res = await call("POST", `/v1/mailboxes/${mailboxId}/search`, { query, limit: LIMIT });
    const ms = performance.now() - q0;
    if (i >= WARMUP) {
      times.push(ms);
      slowest.push({ ms, query });
      hits.push(res.items.length);
    }
  }
  // How many messages the measured queries match in all (not just the page), for context.
  const matched: number[] = [];
  for (const query of pairs.slice(WARMUP, WARMUP + 50)) {
    const [r] = await sqlc`select count(*)::int as n from messages where search_tsv @@ websearch_to_tsquery('english', ${query})`;
    matched.push(r!.n);
  }
  times.sort((a, b) => a - b);
  matched.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)]!.toFixed(1);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(`search over ${MESSAGES.toLocaleString("en")} messages, ${QUERIES} two-word queries, limit ${LIMIT}, through HTTP (PostgreSQL${process.env.NATS_URL ? " + NATS" : ""}):`);
  console.log(`  p50 ${pct(50)} ms   p95 ${pct(95)} ms   p99 ${pct(99)} ms   mean ${mean.toFixed(1)} ms   max ${times.at(-1)!.toFixed(1)} ms`);
  slowest.sort((a, b) => b.ms - a.ms);
  console.log(`  slowest: ${slowest.slice(0, 5).map((x) => `"${x.query}" ${x.ms.toFixed(0)} ms`).join(", ")}`);
  console.log(`  full pages: ${hits.filter((h) => h === LIMIT).length}/${hits.length}; matches per query (first 50): median ${matched[matched.length >> 1]}, max ${matched.at(-1)}`);
} finally {
  await sqlc.end();
  await stop(svc.proc);
  if (values.keep) {
    console.log(`kept ${db.url}`);
    process.exit(0);
  }
  else await db.drop();
}
