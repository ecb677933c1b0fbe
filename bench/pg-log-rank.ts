/**
 * Ranks the statements a bench ran by their total time, from the PostgreSQL server's log.
 *
 *   BENCH_PG_LOG=1 bun bench/smtp-ingest.ts …      (logs every statement of the bench's database)
 *   bun bench/pg-log-rank.ts <database-name-prefix> [log file] [--per N] [--top 40] [--phase execute]
 *
 * Reads the `duration: … ms  <phase>: <statement>` lines of databases whose name starts with
 * the prefix, folds each statement to its shape (numbers, strings and parameter lists
 * collapsed), and prints per shape: calls, total and mean ms, and (with --per N) calls per
 * N, e.g. per message accepted. Parse, bind and execute are counted apart (extended protocol).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { per: { type: "string" }, top: { type: "string", default: "40" }, phase: { type: "string" } } });
const prefix = positionals[0];
if (!prefix) throw new Error("usage: bun bench/pg-log-rank.ts <database-name-prefix> [log file] [--per N]");
const file = positionals[1] ?? "/var/log/postgresql/postgresql-15-main.log";
const per = values.per ? Number(values.per) : null;

// A log entry starts with a timestamp; continuation lines (long statements) start with a tab.
const entries: string[] = [];
for (const line of readFileSync(file, "utf8").split("\n")) {
  if (/^\d{4}-\d\d-\d\d /.test(line)) entries.push(line);
  else if (line.startsWith("\t") && entries.length) entries[entries.length - 1] += " " + line.trim();
}

const shape = (sql: string) =>
  sql
    .replace(/'(?:[^']|'')*'/g, "?")
    .replace(/\$\d+/g, "$")
    .replace(/\b\d+(\.\d+)?\b/g, "N")
    .replace(/\(\s*(\$|\?|N)(\s*,\s*(\$|\?|N))*\s*\)/g, "(…)")
    .replace(/(\(…\)\s*,\s*)+\(…\)/g, "(…), …")
    .replace(/\s+/g, " ")
    .trim();

const stats = new Map<string, { calls: number; ms: number }>();
let total = 0;
for (const e of entries) {
  const m = /^\S+ \S+ \S+ \[\d+\] \S*@(\S+) LOG:\s+duration: ([\d.]+) ms\s+(parse|bind|execute|statement)( [^:]*)?: (.*)$/.exec(e);
  if (!m || !m[1]!.startsWith(prefix) || (values.phase && m[3] !== values.phase)) continue;
  const key = `${m[3]} ${shape(m[5]!).slice(0, 160)}`;
  const s = stats.get(key) ?? { calls: 0, ms: 0 };
  s.calls++;
  s.ms += Number(m[2]);
  total += Number(m[2]);
  stats.set(key, s);
}
const rows = [...stats.entries()].sort((a, b) => b[1].ms - a[1].ms);
console.log(`total ${total.toFixed(0)} ms over ${rows.reduce((n, [, s]) => n + s.calls, 0)} logged phases`);
for (const [key, s] of rows.slice(0, Number(values.top))) {
  console.log(
    `${s.ms.toFixed(0).padStart(7)} ms ${String(s.calls).padStart(6)} calls ${(s.ms / s.calls).toFixed(3).padStart(8)} ms/call${per ? ` ${(s.calls / per).toFixed(2).padStart(6)}/unit` : ""}  ${key}`,
  );
}
