import { afterAll, beforeAll, expect, test } from "bun:test";
import { httpCases, routesFor, type HttpSurface } from "./http-cases.ts";
import { describe as describeFindings, FUZZ_SEED, newTally, runCases, runsFor, startWorld, summary, type World } from "./support.ts";

/**
 * Generated requests against every route of the route table: JSON bodies, query strings,
 * path ids and headers. Each must answer without a 5xx, every non-2xx in the error envelope,
 * and /health must keep answering. Counts per surface are small here (CI); FUZZ_RUNS raises them.
 */

let w: World;
beforeAll(async () => {
  w = await startWorld();
}, 120_000);
afterAll(() => w.t.stop());

const SURFACES: [HttpSurface, number][] = [
  ["json", 200],
  ["query", 150],
  ["path", 150],
  ["headers", 150],
];

test.each(SURFACES)("%s: no 5xx, every error in the envelope, /health keeps answering", async (surface, ciRuns) => {
  expect(routesFor(surface, w.routes).length).toBeGreaterThan(0);
  const tally = newTally(surface);
  await runCases(w, tally, httpCases(w, surface, runsFor(ciRuns), FUZZ_SEED));
  if (process.env.FUZZ_VERBOSE) console.log(summary(tally));
  expect(tally.inputs).toBeGreaterThan(0);
  if (tally.findings.length > 0) throw new Error(`${summary(tally)}\n${describeFindings(tally)}`);
}, 600_000);
