/**
 * CPU per message of the service-made text vector (src/mail/text-vector-store.ts textVectorOf,
 * SEARCH_VECTOR=service) on texts that differ as real mail does: the bench's 8 KiB of prose
 * after a line with numbers of the message's own (an order number, an hour, an amount), and
 * with --dates a date too (hyphenated digits, a piece only PostgreSQL splits). The text is split
 * beforehand, as the parser's worker does; what is measured is the look-ups and the literal.
 *
 *   bun bench/text-vector.ts [--n 3000] [--pglite] [--dates]
 *
 * On PostgreSQL (DATABASE_URL's server, a fresh database) printed: this process's CPU and its
 * one backend's per text; with --pglite, the embedded database in a temporary directory, whose
 * work is in this process. Run it in two checkouts to compare them.
 */
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { openDatabase } from "../db/client.ts";
import { migrate, rowsOf } from "../db/migrate.ts";
import { parseInline } from "../src/mail/parse/convert.ts";
import { tokenizeText } from "../src/mail/text-vector.ts";
import { textVectorOf } from "../src/mail/text-vector-store.ts";
import { cpuUs } from "./cluster-lib.ts";
import { freshDatabase, smallBenchMessage, tempDir } from "./lib.ts";

const { values } = parseArgs({ options: { n: { type: "string", default: "3000" }, pglite: { type: "boolean", default: false }, dates: { type: "boolean", default: false } } });
const n = Number(values.n);
const WARM = 300;

const raw = new Uint8Array(await smallBenchMessage("bench@mail.localhost", "prose"));
const prose = (await parseInline(raw)).text ?? "";
const textOf = (i: number) => `Order ${100_000 + i} is ready at ${i % 24} for ${i * 7} units${values.dates ? ` (due 2026-12-${String(1 + (i % 28)).padStart(2, "0")})` : ""}.\n${prose}`;

/** CPU milliseconds of a process so far. */
const cpuOf = (pid: number) => cpuUs(pid) / 1000;

const fresh = values.pglite ? undefined : await freshDatabase();
const dir = values.pglite ? tempDir("mailroom-text-vector-") : undefined;
const database = await openDatabase({ databaseUrl: fresh?.url, dataDir: dir ?? "/tmp", poolSize: 1 });
try {
  await migrate(database.db);
  const backend = fresh ? rowsOf<{ pid: number }>(await database.db.execute(sql`select pg_backend_pid() as pid`))[0]!.pid : undefined;
  for (let i = 0; i < WARM; i++) await textVectorOf(database.db, textOf(i), tokenizeText(textOf(i)));
  const split = Array.from({ length: n }, (_, i) => tokenizeText(textOf(WARM + i)));
  const pg0 = backend ? cpuOf(backend) : 0;
  const own0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await textVectorOf(database.db, textOf(WARM + i), split[i]);
  const own = process.cpuUsage(own0);
  const where = fresh ? "PostgreSQL" : "embedded PGlite (its work is this process's)";
  console.log(`service-made text vector, ${n} texts of ${textOf(0).length} characters with numbers of their own${values.dates ? " and a date" : ""}, ${where}`);
  console.log(`  this process ${((own.user + own.system) / 1000 / n).toFixed(3)} ms per text${backend ? `, PostgreSQL backend ${((cpuOf(backend) - pg0) / n).toFixed(3)} ms` : ""}`);
} finally {
  await database.close();
  await fresh?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
