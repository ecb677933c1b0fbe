/**
 * The fuzzer at scale: every surface of test/fuzz with many inputs, printing per surface the
 * inputs sent, the statuses seen, the findings (known and new, with an input for each) and
 * the slowest inputs. Findings do not stop the run.
 *   FUZZ_RUNS=5000 FUZZ_SEED=7 bun bench/fuzz.ts            (embedded)
 *   DATABASE_URL=… NATS_URL=… FUZZ_RUNS=2000 bun bench/fuzz.ts
 * FUZZ_SURFACES=json,path limits the surfaces; TEST_LOG_LEVEL=error shows the server's errors.
 */
import { httpCases, type HttpSurface } from "../test/fuzz/http-cases.ts";
import { fuzzInbound, fuzzProcessed, fuzzSmtp, type Accepted } from "../test/fuzz/mail-surfaces.ts";
import { describe, FUZZ_SEED, newTally, runCases, slowest, startWorld, summary, type Tally } from "../test/fuzz/support.ts";

const runs = Number(process.env.FUZZ_RUNS ?? 2000);
const only = process.env.FUZZ_SURFACES?.split(",");
const wanted = (s: string) => !only || only.includes(s);

const w = await startWorld();
const print = (tally: Tally, ms: number) => {
  console.log(`\n== ${summary(tally)} [${(ms / 1000).toFixed(1)} s]`);
  if (tally.findings.length > 0) console.log(describe(tally));
  console.log(`slowest:\n${slowest(tally)}`);
};

for (const surface of ["json", "query", "path", "headers"] as HttpSurface[]) {
  if (!wanted(surface)) continue;
  const tally = newTally(surface);
  const started = performance.now();
  await runCases(w, tally, httpCases(w, surface, runs, FUZZ_SEED));
  print(tally, performance.now() - started);
}

const accepted: Accepted[] = [];
const mail: [string, (t: Tally) => Promise<void>][] = [
  ["mime-http", (t) => fuzzInbound(w, t, Math.ceil(runs / 4), FUZZ_SEED, accepted)],
  ["smtp", (t) => fuzzSmtp(w, t, Math.ceil(runs / 20), FUZZ_SEED + 1, accepted)],
  ["mime-processed", (t) => fuzzProcessed(w, t, accepted, Number(process.env.FUZZ_PROCESS_WAIT_MS ?? 120_000))],
];
for (const [surface, run] of mail) {
  if (!wanted(surface)) continue;
  const tally = newTally(surface);
  const started = performance.now();
  await run(tally);
  print(tally, performance.now() - started);
}

await w.t.stop();
process.exit(0);
