/**
 * CPU per message of the content rules (src/mail/assess/content.ts, run in the parser's worker)
 * on the bench message's parsed text, with each message's text its own (a first line of numbers
 * and a link, as bench/smtp-ingest.ts --distinct-text sends) and with one text for all.
 *
 *   bun bench/content-rules.ts [--seconds 3] [--message big|small]
 *
 * The word gate (src/mail/assess/word-gate.ts) keeps the word index of the last few texts, so a
 * bench that assesses one text over and over measures that index once: the "one text" figure
 * is what earlier part benches reported, the "own text" figure is what real mail costs.
 */
import { parseArgs } from "node:util";
import { assessMessageContent } from "../src/mail/assess/content.ts";
import { parseInline } from "../src/mail/parse/convert.ts";
import { benchMessage, smallBenchMessage } from "./lib.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "3" }, message: { type: "string", default: "big" } } });
const seconds = Number(values.seconds);
const raw = new Uint8Array(await (values.message === "small" ? smallBenchMessage : benchMessage)("bench@mail.localhost", "prose"));
const mail = await parseInline(raw);
const envelope = { mailFrom: "bench@example.com", rcptTo: ["bench@mail.localhost"], remoteAddress: "198.51.100.7", heloName: "bench.example.com" };
const ownText = (n: number) => `Order ${100_000 + n}: https://orders.example.com/track/${(n * 7919).toString(36)}\n${mail.text}`;

function run(label: string, text: (n: number) => string): void {
  for (let n = 0; n < 100; n++) assessMessageContent({ mail: { ...mail, text: text(n) }, headers: mail.headers, envelope }, "mail.localhost");
  let n = 100;
  const c0 = process.cpuUsage();
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) assessMessageContent({ mail: { ...mail, text: text(n++) }, headers: mail.headers, envelope }, "mail.localhost");
  const c = process.cpuUsage(c0);
  console.log(`  ${label.padEnd(10)} ${((c.user + c.system) / 1000 / (n - 100)).toFixed(3)} ms CPU per message (${n - 100} messages)`);
}

console.log(`content rules: ${values.message} message (${mail.text?.length ?? 0} characters of prose)`);
run("own text", ownText);
run("one text", () => mail.text ?? "");
