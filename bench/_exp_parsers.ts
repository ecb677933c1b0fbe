import PostalMime from "postal-mime";
import { readdirSync, readFileSync } from "node:fs";
import { parseInline } from "../src/mail/parse/convert.ts";
import { benchMessage } from "./lib.ts";
const raw = new Uint8Array(await benchMessage("bench@mail.localhost"));
const corpus = readdirSync("test/fixtures/mime").map((f) => new Uint8Array(readFileSync(`test/fixtures/mime/${f}`)));
async function cpu(label: string, n: number, f: () => Promise<unknown>) {
  for (let i = 0; i < 10; i++) await f();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await f();
  const c = process.cpuUsage(c0);
  console.log(label.padEnd(40), ((c.user + c.system) / 1000 / n).toFixed(3), "ms CPU");
}
await cpu("mailparser bench msg", 100, () => parseInline(raw));
await cpu("postal-mime bench msg", 100, () => PostalMime.parse(raw));
await cpu("mailparser corpus (per msg)", 5, async () => { for (const m of corpus) await parseInline(m); }).then(()=>{});
await cpu("postal-mime corpus (all)", 5, async () => { for (const m of corpus) await PostalMime.parse(m); });
