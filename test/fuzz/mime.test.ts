import { afterAll, beforeAll, expect, test } from "bun:test";
import { fuzzInbound, fuzzProcessed, fuzzSmtp, type Accepted } from "./mail-surfaces.ts";
import { describe as describeFindings, FUZZ_SEED, newTally, runsFor, startWorld, summary, type Tally, type World } from "./support.ts";

/**
 * Generated mail through both doors, POST /v1/inbound/email and SMTP. Each door must answer
 * without a server fault; every message accepted must then be processed (it leaves `received`),
 * and reading it back (message, raw, thread, summary, extractions) must not fault either.
 */

let w: World;
const accepted: Accepted[] = [];
beforeAll(async () => {
  w = await startWorld();
}, 120_000);
afterAll(() => w.t.stop());

test("inbound HTTP: generated MIME is stored or refused in the envelope", async () => {
  const tally = newTally("mime-http");
  await fuzzInbound(w, tally, runsFor(20), FUZZ_SEED, accepted);
  report(tally);
}, 600_000);

test("SMTP: generated sessions get a reply for every step, never a temporary server fault", async () => {
  const tally = newTally("smtp");
  await fuzzSmtp(w, tally, runsFor(6), FUZZ_SEED + 1, accepted);
  report(tally);
}, 600_000);

test("every accepted message is processed, and reading it back does not fault", async () => {
  const tally = newTally("mime-processed");
  await fuzzProcessed(w, tally, accepted, Number(process.env.FUZZ_PROCESS_WAIT_MS ?? 45_000));
  report(tally);
}, 600_000);

function report(tally: Tally) {
  if (process.env.FUZZ_VERBOSE) console.log(summary(tally));
  expect(tally.inputs + tally.findings.length).toBeGreaterThan(0);
  if (tally.findings.length > 0) throw new Error(`${summary(tally)}\n${describeFindings(tally)}`);
}
