/**
 * How well the local extractor does on the labelled fixtures: precision and recall per
 * field. A report, not a gate (test/intel-quality.test.ts holds the floors), so it always
 * exits 0. `--verbose` also lists, per fixture, what was missed and what was wrongly found.
 *
 *   bun bench/intel-quality.ts [--verbose]
 */
import { FIELDS, measureQuality } from "../test/intel-quality.ts";

const verbose = process.argv.includes("--verbose");
const report = await measureQuality();

const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7);
console.log(`fixtures: ${report.fixtures}\n`);
console.log(`${"field".padEnd(18)}${"precision".padStart(10)}${"recall".padStart(9)}${"tp".padStart(6)}${"fp".padStart(5)}${"fn".padStart(5)}`);
for (const field of FIELDS) {
  const s = report.fields[field];
  console.log(
    `${field.padEnd(18)}${pct(s.precision).padStart(10)}${pct(s.recall).padStart(9)}${String(s.tp).padStart(6)}${String(s.fp).padStart(5)}${String(s.fn).padStart(5)}`,
  );
}

if (verbose) {
  console.log(`\nmisses (${report.misses.length} fixtures):`);
  for (const m of report.misses) {
    console.log(`\n${m.name}`);
    for (const [field, d] of Object.entries(m.fields)) {
      if (d.missed.length) console.log(`  ${field} missed: ${d.missed.join(" | ")}`);
      if (d.extra.length) console.log(`  ${field} extra:  ${d.extra.join(" | ")}`);
    }
  }
}
process.exit(0);
