/**
 * What the ingest bench's message costs, part by part, on this machine: the CPU time per
 * message of the work every accepted message needs (parse it, authenticate it, assess it,
 * store the raw bytes and the attachment durably), the way it was done before issue 16 and
 * the way it is done now, and the message rate those parts alone would allow on all cores.
 *
 *   bun bench/ingest-floor.ts [--ceiling 2500] [--n 300] [--message big|small] [--text filler|prose]
 *
 * --ceiling is the bare smtp-server rate that bench/smtp-ingest.ts printed; --message and
 * --text pick the message as bench/smtp-ingest.ts does (the big one and filler by default).
 * "client" is this process's user+system time; "PostgreSQL" the CPU time of the backends
 * serving the bench's database (read from /proc, so only when PostgreSQL runs on this machine).
 *
 * Before: mailparser decodes the whole message; the raw bytes and the decoded attachment are
 * each inserted through postgres.js (bytea sent as hex text). Now: the large base64 attachment
 * is cut out of what mailparser reads and decoded natively (src/mail/parse/convert.ts); the raw
 * bytes go through Bun's client as binary bytea (src/mail/blobs.ts); the attachment is not
 * stored again (it is a range of the raw message).
 *
 * Both lists end with the full-text vector of the message's text that search reads. Before,
 * PostgreSQL computed it (the generated column of migration 0006), on English prose the
 * largest single part of the floor. Now the service splits the text and makes the vector of
 * its words in pieces that PostgreSQL joins (src/mail/text-vector-pieces.ts, migration 0020);
 * each run's text starts with a number of its own, as real mail's does.
 */
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { simpleParser, type SimpleParserOptions } from "mailparser";
import { openDatabase } from "../db/client.ts";
import { migrate, rowsOf } from "../db/migrate.ts";
import { blobs } from "../db/schema/index.ts";
import { Assessor } from "../src/mail/assess/index.ts";
import { checkAuth } from "../src/mail/assess/auth.ts";
import { nativeBlobWriter, sha256Hex } from "../src/mail/blobs.ts";
import { parseInline } from "../src/mail/parse/convert.ts";
import { tokenizeText } from "../src/mail/text-vector.ts";
import { textVectorPieces, WordLexicon } from "../src/mail/text-vector-pieces.ts";
import type { Envelope } from "../src/mail/types.ts";
import { benchMessage, type BenchText, freshDatabase, smallBenchMessage } from "./lib.ts";

const { values } = parseArgs({
  options: {
    ceiling: { type: "string", default: "2500" },
    n: { type: "string", default: "300" },
    message: { type: "string", default: "big" },
    text: { type: "string", default: "filler" },
  },
});
const ceiling = Number(values.ceiling);
const n = Number(values.n);
if (values.message !== "big" && values.message !== "small") throw new Error("--message is big or small");
if (values.text !== "filler" && values.text !== "prose") throw new Error("--text is filler or prose");
const small = values.message === "small";
const textKind: BenchText = values.text;

const raw = new Uint8Array(await (small ? smallBenchMessage : benchMessage)("bench@mail.localhost", textKind));
const envelope: Envelope = { mailFrom: "bench@example.com", rcptTo: ["bench@mail.localhost"], remoteAddress: "198.51.100.7", heloName: "bench.example.com" };
const offline = async () => {
  throw Object.assign(new Error("offline"), { code: "ENOTFOUND" });
};
const assessor = new Assessor({ mailDomain: "mail.localhost", resolver: offline });
const mail = await parseInline(raw);
const MAILPARSER = { skipHtmlToText: true, skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true, keepCidLinks: true } as SimpleParserOptions;

function cpuOf(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}
function backendsCpu(database: string): number {
  let total = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(` ${database} `)) total += cpuOf(Number(pid));
    } catch {}
  }
  return total;
}

/** CPU milliseconds per call of f (this process, and the database's backends), after a warm-up. */
async function cpuMs(f: (i: number) => Promise<unknown>, database?: string): Promise<[number, number]> {
  for (let i = 0; i < 20; i++) await f(i);
  const before = process.cpuUsage();
  const pg0 = database ? backendsCpu(database) : 0;
  for (let i = 0; i < n; i++) await f(i + 20);
  const used = process.cpuUsage(before);
  const pg = database ? backendsCpu(database) - pg0 : 0;
  return [(used.user + used.system) / 1000 / n, pg / n];
}

// Distinct bytes each time, as real mail is: a repeated blob would be a no-op insert.
const distinct = (size: number) => {
  const pool = Array.from({ length: n + 20 }, () => crypto.getRandomValues(new Uint8Array(size)));
  return (i: number) => pool[i % pool.length]!;
};

const db = await freshDatabase();
const name = new URL(db.url).pathname.slice(1);
const database = await openDatabase({ databaseUrl: db.url, dataDir: "/tmp" });
const native = nativeBlobWriter(db.url);
try {
  await migrate(database.db);
  const rawOf = distinct(raw.byteLength);
  const attachmentOf = distinct(100 * 1024);
  const oldPut = (bytes: Uint8Array) => database.db.insert(blobs).values({ sha256: sha256Hex(bytes), size: bytes.byteLength, bytes }).onConflictDoNothing();
  const auth = await cpuMs(() => checkAuth(raw, envelope, { mta: "mail.localhost", timeoutMs: 1000, resolver: offline }));
  // A text of its own each time, as every message has: the word gate keeps the index of the last few texts.
  const assessAll = await cpuMs((i) => assessor.assess({ raw, mail: { ...mail, text: `Order ${i}\n${mail.text}` }, headers: mail.headers, envelope }));
  const rules: [number, number] = [assessAll[0] - auth[0], 0];
  // The text the generated column takes the vector of (the body, capped as there), distinct
  // on every run as every message's is.
  const text = mail.text ?? "";
  const vector = await cpuMs((i) => database.db.execute(sql`select length(to_tsvector('english', left(${`${i} ${text}`}, 200000)))`), name);
  // The words' lexemes learned once (a parser thread keeps them), then each text in pieces.
  const lexicon = new WordLexicon();
  const learned = tokenizeText(text)!.words.filter((w) => !/^\d/.test(w));
  const rows = rowsOf<{ word: string; lexeme: string | null; positions: number[] | null }>(
    await database.db.execute(sql`select w as word, t.lexeme, t.positions from unnest(string_to_array(${learned.join(" ")}, ' ')) w left join lateral unnest(to_tsvector('english', w)) t on true`),
  );
  lexicon.learn(learned.map((w) => [w, rows.filter((r) => r.word === w && r.lexeme !== null).map((r) => [r.lexeme!, r.positions!] as const)] as const));
  const vectorNow = await cpuMs(async (i) => {
    const pieces = textVectorPieces(tokenizeText(`${i} ${text}`)!, lexicon, true);
    return database.db.execute(sql`select length(mailroom_text_vector(${pieces.json}::jsonb))`);
  }, name);
  const before: [string, [number, number]][] = [
    ["parse (mailparser, whole message)", await cpuMs(() => simpleParser(Buffer.from(raw), MAILPARSER))],
    ["SPF/DKIM/DMARC (mailauth, offline DNS)", auth],
    ["assessment rules (beyond auth)", rules],
    ["store raw bytes (postgres.js, hex)", await cpuMs((i) => oldPut(rawOf(i)), name)],
    ["store attachment (postgres.js, hex)", small ? [0, 0] : await cpuMs((i) => oldPut(attachmentOf(i)), name)],
    ["full-text vector (PostgreSQL, search)", vector],
  ];
  const after: [string, [number, number]][] = [
    ["parse (attachment cut, decoded natively)", await cpuMs(() => parseInline(raw))],
    ["SPF/DKIM/DMARC (mailauth, offline DNS)", auth],
    ["assessment rules (beyond auth)", rules],
    ["store raw bytes (Bun.SQL, binary)", await cpuMs((i) => native.write([{ sha256: `${i}-${sha256Hex(rawOf(i))}`, bytes: rawOf(i) }]), name)],
    ["store attachment (a range of the raw)", [0, 0]],
    ["full-text vector (pieces here, PG joins them)", vectorNow],
  ];
  const cores = availableParallelism();
  const shape = small ? "8 KiB text" : "20 KiB text + 100 KiB attachment";
  console.log(`ingest floor: ${raw.byteLength} B message (${shape}, ${textKind}), ${n} runs per part, ${cores} cores; CPU ms per message, this process + PostgreSQL backends`);
  for (const [label, parts] of [["before", before], ["now", after]] as const) {
    console.log(label);
    for (const [part, [c, pg]] of parts) console.log(`  ${part.padEnd(44)} ${c.toFixed(2)} + ${pg.toFixed(2)} ms`);
    const total = parts.reduce((s, [, [c, pg]]) => s + c + pg, 0);
    const bound = (cores * 1000) / total;
    console.log(`  ${"total".padEnd(44)} ${total.toFixed(2)} ms  → at most ${bound.toFixed(0)} msg/s on ${cores} cores = ${((100 * bound) / ceiling).toFixed(0)}% of a ${ceiling} msg/s ceiling`);
  }
} finally {
  await native.close();
  await database.close();
  await db.drop();
}
