/**
 * CPU per message of the full-text vector's text part, both ways (SEARCH_VECTOR): made by
 * PostgreSQL's parser from the whole text (`database`), or in pieces (`service`: split and
 * made of the words the parser thread has learned here, joined by PostgreSQL's
 * mailroom_text_vector, src/mail/text-vector-pieces.ts), on texts that differ as real mail
 * does: the bench's prose (8 KiB, or 20 KiB with --big) after a line with numbers of the
 * message's own (an order number, an hour, an amount) and a tracking URL (a piece only
 * PostgreSQL splits), and with --dates a date too.
 *
 *   bun bench/text-vector.ts [--n 2000] [--big] [--pglite] [--dates]
 *
 * Printed per way: this process's CPU per text (the split and the pieces, what a parser
 * thread spends) and the database's (its backend's on PostgreSQL, from /proc; on embedded
 * PGlite its work is this process's and is printed as the statement's). Each text is one
 * statement either way.
 */
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { openDatabase } from "../db/client.ts";
import { migrate, rowsOf } from "../db/migrate.ts";
import { parseInline } from "../src/mail/parse/convert.ts";
import { tokenizeText } from "../src/mail/text-vector.ts";
import { textVectorPieces, WordLexicon } from "../src/mail/text-vector-pieces.ts";
import { cpuUs } from "./cluster-lib.ts";
import { benchMessage, freshDatabase, smallBenchMessage, tempDir } from "./lib.ts";

const { values } = parseArgs({ options: { n: { type: "string", default: "2000" }, big: { type: "boolean", default: false }, pglite: { type: "boolean", default: false }, dates: { type: "boolean", default: false } } });
const n = Number(values.n);
const WARM = 200;

const raw = new Uint8Array(await (values.big ? benchMessage : smallBenchMessage)("bench@mail.localhost", "prose"));
const prose = (await parseInline(raw)).text ?? "";
const textOf = (i: number) =>
  `Order ${100_000 + i} is ready at ${i % 24} for ${i * 7} units, see https://orders.example.com/track/${(i * 7919).toString(36)}${values.dates ? ` (due 2026-12-${String(1 + (i % 28)).padStart(2, "0")})` : ""}.\n${prose}`;

/** CPU milliseconds of a process so far. */
const cpuOf = (pid: number) => cpuUs(pid) / 1000;
const ownMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

const fresh = values.pglite ? undefined : await freshDatabase();
const dir = values.pglite ? tempDir("mailroom-text-vector-") : undefined;
const database = await openDatabase({ databaseUrl: fresh?.url, dataDir: dir ?? "/tmp", poolSize: 1 });
try {
  await migrate(database.db);
  const db = database.db;
  const backend = fresh ? rowsOf<{ pid: number }>(await db.execute(sql`select pg_backend_pid() as pid`))[0]!.pid : undefined;
  // The parser thread's lexicon, taught what the statement would answer (content.ts LEARNED).
  const lexicon = new WordLexicon();
  const teach = async (words: string[]) => {
    if (words.length === 0) return;
    const rows = rowsOf<{ word: string; lexeme: string | null; positions: number[] | null }>(
      await db.execute(sql`select w as word, t.lexeme, t.positions from unnest(string_to_array(${words.join(" ")}, ' ')) w left join lateral unnest(to_tsvector('english', w)) t on true`),
    );
    lexicon.learn(words.map((w) => [w, rows.filter((r) => r.word === w && r.lexeme !== null).map((r) => [r.lexeme!, r.positions!] as const)] as const));
  };
  const ways = {
    database: async (text: string) => {
      await db.execute(sql`select length(setweight(to_tsvector('english', left(${text}, 200000)), 'C'))`);
      return 0;
    },
    service: async (text: string) => {
      const t0 = ownMs();
      const pieces = textVectorPieces(tokenizeText(text)!, lexicon, true);
      const split = ownMs() - t0;
      // Without pieces (a thread still learning its words) the trigger parses the text itself.
      if (pieces.json === null) await db.execute(sql`select length(setweight(to_tsvector('english', left(${text}, 200000)), 'C'))`);
      else await db.execute(sql`select length(mailroom_text_vector(${pieces.json}::jsonb))`);
      await teach(pieces.missing.filter((w) => !/^\d/.test(w)));
      return split;
    },
  };
  for (let i = 0; i < WARM; i++) for (const way of Object.values(ways)) await way(textOf(i));
  const where = fresh ? "PostgreSQL" : "embedded PGlite (the database's work is this process's)";
  console.log(`full-text vector, ${n} texts of ${textOf(0).length} characters with numbers and a URL of their own${values.dates ? " and a date" : ""}, ${where}; CPU ms per text`);
  for (const [name, way] of Object.entries(ways)) {
    const pg0 = backend ? cpuOf(backend) : 0;
    const own0 = ownMs();
    let split = 0;
    for (let i = 0; i < n; i++) split += await way(textOf(WARM + i));
    const own = ownMs() - own0;
    console.log(
      `  ${name.padEnd(8)} split and pieces ${(split / n).toFixed(3)} ms, ` +
        (backend ? `statement ${((own - split) / n).toFixed(3)} ms, PostgreSQL backend ${((cpuOf(backend) - pg0) / n).toFixed(3)} ms` : `statement (database included) ${((own - split) / n).toFixed(3)} ms`),
    );
  }
} finally {
  await database.close();
  await fresh?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
