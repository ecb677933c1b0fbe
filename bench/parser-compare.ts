/**
 * postal-mime against mailparser (as the service calls it, src/mail/parse/convert.ts, which
 * cuts large base64 attachments out of what mailparser reads) on the bench message and on the
 * whole test/fixtures/mime corpus: CPU time per parse.
 *   bun bench/parser-compare.ts [--n 100]
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { simpleParser, type SimpleParserOptions } from "mailparser";
import PostalMime from "postal-mime";
import { parseInline } from "../src/mail/parse/convert.ts";
import { benchMessage, ROOT } from "./lib.ts";

const n = Number(process.argv[process.argv.indexOf("--n") + 1] ?? 100) || 100;
const raw = new Uint8Array(await benchMessage("bench@mail.localhost"));
const dir = join(ROOT, "test", "fixtures", "mime");
const corpus = readdirSync(dir).map((f) => new Uint8Array(readFileSync(join(dir, f))));
const OPTIONS = { skipHtmlToText: true, skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true, keepCidLinks: true } as SimpleParserOptions;

async function cpu(label: string, runs: number, per: number, f: () => Promise<unknown>) {
  for (let i = 0; i < 5; i++) await f();
  const c0 = process.cpuUsage();
  for (let i = 0; i < runs; i++) await f();
  const c = process.cpuUsage(c0);
  console.log(`${label.padEnd(48)} ${((c.user + c.system) / 1000 / runs / per).toFixed(3)} ms CPU per message`);
}
await cpu("bench message: mailparser (whole)", n, 1, () => simpleParser(Buffer.from(raw), OPTIONS));
await cpu("bench message: service parse (attachment cut)", n, 1, () => parseInline(raw));
await cpu("bench message: postal-mime", n, 1, () => PostalMime.parse(raw));
const each = async (f: (m: Uint8Array) => Promise<unknown>) => {
  for (const m of corpus) await f(m);
};
await cpu(`corpus (${corpus.length}): mailparser (whole)`, 5, corpus.length, () => each((m) => simpleParser(Buffer.from(m), OPTIONS)));
await cpu(`corpus (${corpus.length}): service parse`, 5, corpus.length, () => each((m) => parseInline(m)));
await cpu(`corpus (${corpus.length}): postal-mime`, 5, corpus.length, () => each((m) => PostalMime.parse(m)));
