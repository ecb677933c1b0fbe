/**
 * One key's call window filling up, as a hot key under a large API_KEY_RATE_LIMIT fills it: the
 * longest single `take` (the event loop held for it), the total, and the slots held at the end.
 *
 *   bun bench/rate-window.ts [--limit 10000000] [--calls 8400000]
 *
 * A ring doubled to fit millions of calls allocates and copies tens of MiB in one call; a
 * window that grows a chunk at a time (actors/mailbox/rate-window.ts) never does.
 */
import { parseArgs } from "node:util";
import { SlidingWindow } from "../actors/mailbox/rate-window.ts";

const { values } = parseArgs({ options: { limit: { type: "string", default: "10000000" }, calls: { type: "string", default: "8400000" } } });
const limit = Number(values.limit);
const calls = Number(values.calls);

const w = new SlidingWindow(limit, 600_000);
let longest = 0;
let longestAt = 0;
const t0 = performance.now();
for (let i = 0; i < calls; i++) {
  const start = performance.now();
  w.take(i / 1000);
  const took = performance.now() - start;
  if (took > longest) {
    longest = took;
    longestAt = i;
  }
}
const total = performance.now() - t0;
const capacity = (w as { capacity?: number }).capacity;
console.log(
  `${calls.toLocaleString("en-US")} calls into one window (limit ${limit.toLocaleString("en-US")}): longest call ${longest.toFixed(1)} ms (call ${longestAt.toLocaleString("en-US")}), ` +
    `all ${total.toFixed(0)} ms${capacity === undefined ? "" : `, ${((capacity * 8) / 2 ** 20).toFixed(1)} MiB of slots at the end`}`,
);
