/**
 * CPU per message of each step the service runs for the ingest bench's message, in one
 * thread, warmed up: what the parse worker does (parse, text split, content rules), the auth
 * thread (mailauth, offline DNS) and the main thread's pure-CPU steps (head reading, posting
 * the bytes, as the SMTP listener hands them on, to a worker and reading its answer back).
 *
 *   bun bench/ingest-parts.ts [--n 300] [--message big|small] [--text filler|prose]
 */
import { PassThrough } from "node:stream";
import { parseArgs } from "node:util";
import { arrivalHead } from "../src/mail/arrival-head.ts";
import { assessMessageContent } from "../src/mail/assess/content.ts";
import { checkAuth } from "../src/mail/assess/auth.ts";
import { splitReply } from "../src/mail/extract.ts";
import { parseInline } from "../src/mail/parse/convert.ts";
import { readHead } from "../src/mail/parse/head.ts";
import { readMessage } from "../src/smtp/message.ts";
import type { Envelope } from "../src/mail/types.ts";
import { benchMessage, smallBenchMessage } from "./lib.ts";

const { values } = parseArgs({ options: { n: { type: "string", default: "300" }, message: { type: "string", default: "big" }, text: { type: "string", default: "filler" } } });
const n = Number(values.n);
if (values.text !== "filler" && values.text !== "prose") throw new Error("--text is filler or prose");
const make = values.message === "small" ? smallBenchMessage : benchMessage;
const raw = new Uint8Array(await make("bench@mail.localhost", values.text));
const envelope: Envelope = { mailFrom: "bench@example.com", rcptTo: ["bench@mail.localhost"], remoteAddress: "198.51.100.7", heloName: "bench.example.com" };
const offline = async () => {
  throw Object.assign(new Error("offline"), { code: "ENOTFOUND" });
};

async function cpu(label: string, f: (i: number) => unknown): Promise<void> {
  for (let i = 0; i < 30; i++) await f(i);
  const c0 = process.cpuUsage();
  for (let i = 30; i < n + 30; i++) await f(i);
  const c = process.cpuUsage(c0);
  console.log(`${label.padEnd(52)} ${((c.user + c.system) / 1000 / n).toFixed(3)} ms`);
}

const mail = await parseInline(raw);
console.log(`CPU ms per message (${raw.byteLength} B), ${n} runs each`);
await cpu("parse worker: parseInline", () => parseInline(raw));
await cpu("parse worker: splitReply", () => splitReply({ text: mail.text, html: mail.html }));
// A text of its own each time, as every message has: the word gate keeps the index of the last few texts.
await cpu("parse worker: content rules", (i) => assessMessageContent({ mail: { ...mail, text: `Order ${i}\n${mail.text}` }, headers: mail.headers, envelope }, "mail.localhost"));
await cpu("auth: checkAuth (offline DNS)", () => checkAuth(raw, envelope, { mta: "mail.localhost", timeoutMs: 1000, resolver: offline }));
await cpu("main: readHead + arrivalHead", () => arrivalHead(readHead(raw)));
const echo = new Worker(URL.createObjectURL(new Blob(["self.onmessage = (e) => self.postMessage(e.data);"], { type: "application/javascript" })));
const roundTrip = (value: unknown) => new Promise((resolve) => {
  echo.onmessage = (e) => resolve(e.data);
  echo.postMessage(value);
});
// The bytes as the SMTP listener collects them (src/smtp/message.ts).
const stream = new PassThrough();
const collected = readMessage(stream, 32 * 1024 * 1024);
stream.end(Buffer.from(raw));
const received = await collected;
if (received.kind !== "complete") throw new Error("the message was not collected");
await cpu("main+echo: post SMTP's bytes to a worker and back", () => roundTrip(received.raw));
const parsed = { mail, extractedText: "x".repeat(20_000), quotedText: "" };
await cpu("main+echo: post the parsed result and back", () => roundTrip({ ...parsed, mail: { ...mail, attachments: [] } }));
echo.terminate();
