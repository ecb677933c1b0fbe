/**
 * The time figures the MIME tests no longer assert (test/mail-parse.test.ts asserts outcomes):
 * per hostile input, how long the pooled parse took, its outcome, and the longest the main
 * thread went without running a 5 ms interval meanwhile; then how long a pool whose only
 * worker overran its budget takes to answer the next parse (the worker is replaced), and how
 * long the bounded head reader takes on hostile heads.
 *   bun bench/parse-budget.ts [--runs 3]
 */
import { MAX_PARTS, MailParser, readHead } from "../src/mail/parse/index.ts";
import type { ParseOutcome } from "../src/mail/types.ts";

const runs = Number(process.argv[process.argv.indexOf("--runs") + 1] ?? 3) || 3;
const enc = new TextEncoder();

const inputs: Record<string, () => Uint8Array> = {
  "30 MB of line breaks": () => {
    const head = enc.encode("From: slow@example.com\r\nSubject: Pathological\r\n\r\n");
    const out = new Uint8Array(head.length + 30_000_000).fill(0x0a);
    out.set(head);
    return out;
  },
  [`${MAX_PARTS + 500} parts`]: () => {
    let s = 'Subject: parts\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="p"\r\n\r\n';
    for (let i = 0; i < MAX_PARTS + 500; i++) s += `--p\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`;
    return enc.encode(`${s}--p--\r\n`);
  },
  "1000 nested multiparts": () => {
    let s = 'Subject: nested\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b0"\r\n\r\n';
    let tail = "";
    for (let i = 1; i <= 1000; i++) {
      s += `--b${i - 1}\r\nContent-Type: multipart/mixed; boundary="b${i}"\r\n\r\n`;
      tail = `--b${i - 1}--\r\n${tail}`;
    }
    return enc.encode(`${s}--b1000\r\nContent-Type: text/plain\r\n\r\ndeep\r\n--b1000--\r\n${tail}`);
  },
  "1 MB header line": () => enc.encode(`Subject: huge\r\nX-Huge: ${"a".repeat(1_000_000)}\r\n\r\nbody\r\n`),
  "10,000 header fields": () => {
    let s = "Subject: many\r\n";
    for (let i = 0; i < 10_000; i++) s += `X-Field-${i}: value ${i}\r\n`;
    return enc.encode(`${s}\r\nbody\r\n`);
  },
};

/** Runs `work` while a 5 ms interval measures the longest gap between its ticks. */
async function watched<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; maxGapMs: number }> {
  let last = performance.now();
  let maxGapMs = 0;
  const interval = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
  }, 5);
  const started = performance.now();
  try {
    const value = await work();
    const ms = performance.now() - started;
    return { value, ms, maxGapMs: Math.max(maxGapMs, performance.now() - last) };
  } finally {
    clearInterval(interval);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const describe = (o: ParseOutcome) => (o.ok ? "ok" : o.reason.split(":")[0]!);

const pool = new MailParser();
await pool.parse(enc.encode("Subject: warm-up\r\n\r\nx\r\n")); // boot a worker outside the figures
console.log(`pooled parse, default budget (median of ${runs})`);
for (const [name, make] of Object.entries(inputs)) {
  const raw = make();
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await watched(() => pool.parse(raw)));
  const outcome = describe(results[0]!.value);
  console.log(`  ${name.padEnd(24)} ${outcome.padEnd(14)} ${median(results.map((r) => r.ms)).toFixed(0).padStart(6)} ms   worst loop gap ${median(results.map((r) => r.maxGapMs)).toFixed(1)} ms`);
}
await pool.close();

console.log("\nbudget overrun (1 worker, 200 ms budget): the timed-out parse, then the next one");
for (let i = 0; i < runs; i++) {
  const parser = new MailParser({ workers: 1, timeoutMs: 200 });
  const raw = inputs["30 MB of line breaks"]!();
  const over = await watched(() => parser.parse(raw));
  const next = await watched(() => parser.parse(enc.encode("Subject: after\r\n\r\nstill working\r\n")));
  console.log(`  run ${i + 1}: ${describe(over.value)} after ${over.ms.toFixed(0)} ms; next ${describe(next.value)} after ${next.ms.toFixed(0)} ms (worst loop gap ${Math.max(over.maxGapMs, next.maxGapMs).toFixed(1)} ms)`);
  await parser.close();
}

console.log("\nbounded head reader on the main thread");
let fields = "";
for (let i = 0; i < 5000; i++) fields += `X-${i}: v\r\n`;
const heads: Record<string, Uint8Array> = {
  "5,000 fields": enc.encode(`${fields}\r\n`),
  "1 MB header line": inputs["1 MB header line"]!(),
  "32 MiB of noise": new Uint8Array(32 * 1024 * 1024).map((_, i) => (i * 2654435761) >>> 24),
};
for (const [name, raw] of Object.entries(heads)) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    readHead(raw);
    times.push(performance.now() - started);
  }
  console.log(`  ${name.padEnd(24)} ${median(times).toFixed(2).padStart(8)} ms`);
}
