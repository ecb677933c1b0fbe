/**
 * The time figures test/intel-extract.test.ts no longer asserts: how long the local extraction
 * takes on hostile bodies of MAX_INPUT characters (median of --runs), on the main thread.
 *   bun bench/extract-budget.ts [--runs 3]
 */
import { extract } from "../src/intel/local/extract.ts";
import type { IntelMessage } from "../src/intel/types.ts";

const runs = Number(process.argv[process.argv.indexOf("--runs") + 1] ?? 3) || 3;
const hostile: Record<string, string> = {
  '"1/" x 100,000': "1/".repeat(100_000),
  '"a@" x 100,000': "a@".repeat(100_000),
  '"1 " x 100,000': "1 ".repeat(100_000),
  '"Mon-Fri " x 25,000': "Mon-Fri ".repeat(25_000),
  '"$1" x 100,000': "$1".repeat(100_000),
};
const message = (text: string): IntelMessage => ({
  id: "m1",
  direction: "inbound",
  from: "pat.jones@example.com",
  fromName: "Pat Jones",
  to: ["me@example.org"],
  cc: [],
  subject: "",
  text,
  date: new Date("2024-03-04T10:00:00Z"),
});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(`local extraction of hostile bodies (median of ${runs})`);
for (const [name, text] of Object.entries(hostile)) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    extract(message(text));
    times.push(performance.now() - started);
  }
  console.log(`  ${name.padEnd(22)} ${median(times).toFixed(0).padStart(6)} ms`);
}
