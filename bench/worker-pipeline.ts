/**
 * CPU per message of what the parser's worker does with the ingest bench's message
 * (src/mail/parse/worker.ts): parse, reply split and snippet, the full-text vector's pieces,
 * the content assessment. Each message's text starts with a line of its own, as
 * bench/smtp-ingest.ts --distinct-text sends it.
 *
 *   bun bench/worker-pipeline.ts [--message big|small] [--rounds 30] [--against <dir>]
 *
 * Alone: CPU per step. With --against (a checkout of another commit, e.g. a `git worktree`
 * whose node_modules links to this one's), both pipelines run in this process, in alternating
 * batches of 50 messages, and their verdicts must agree: a machine whose speed drifts by a
 * tenth from one run to the next (as ours does) still compares them within a few percent,
 * where the service bench's per-round figures cannot. The lexicon of the vector's words is
 * taught each word as its own lexeme (what PostgreSQL would answer costs the same to use).
 */
import { parseArgs } from "node:util";
import { benchMessage, ROOT, smallBenchMessage } from "./lib.ts";

const { values } = parseArgs({ options: { message: { type: "string", default: "big" }, rounds: { type: "string", default: "30" }, against: { type: "string" } } });
const rounds = Number(values.rounds);
const WARM_ROUNDS = 5;
const BATCH = 50;

type Step = "parse" | "split" | "vector" | "assess";

async function pipeline(root: string) {
  const { parseInline } = await import(`${root}/src/mail/parse/convert.ts`);
  const { splitReply, snippetOf } = await import(`${root}/src/mail/extract.ts`);
  const { tokenizeText } = await import(`${root}/src/mail/text-vector.ts`);
  const { textVectorPieces, WordLexicon } = await import(`${root}/src/mail/text-vector-pieces.ts`);
  const { assessMessageContent } = await import(`${root}/src/mail/assess/content.ts`);
  const lexicon = new WordLexicon();
  const envelope = { mailFrom: "bench@example.com", rcptTo: ["bench@mail.localhost"], remoteAddress: "198.51.100.7", heloName: "bench.example.com" };
  return async (raw: Uint8Array, spent?: Record<Step, number>) => {
    const t0 = performance.now();
    const mail = await parseInline(raw);
    const t1 = performance.now();
    const { text: extractedText } = splitReply({ text: mail.text, html: mail.html });
    snippetOf(extractedText || mail.text || "");
    const t2 = performance.now();
    const split = tokenizeText(extractedText);
    const pieces = split ? textVectorPieces(split, lexicon, true) : null;
    if (pieces) lexicon.learn(pieces.missing.map((w: string) => [w, [[w, [1]]]] as const));
    const t3 = performance.now();
    const verdict = assessMessageContent({ mail, headers: mail.headers, envelope }, "mail.localhost");
    if (spent) {
      spent.parse += t1 - t0;
      spent.split += t2 - t1;
      spent.vector += t3 - t2;
      spent.assess += performance.now() - t3;
    }
    return verdict;
  };
}

const base = Buffer.from(await (values.message === "small" ? smallBenchMessage : benchMessage)("bench@mail.localhost", "prose")).toString("latin1");
const textAt = base.indexOf("\r\n\r\n", base.indexOf("Content-Type: text/plain")) + 4;
const raws = Array.from({ length: BATCH }, (_, i) =>
  new Uint8Array(Buffer.from(`${base.slice(0, textAt)}Order ${100_000 + i}: https://orders.example.com/track/${(i * 7919).toString(36)}\r\n${base.slice(textAt)}`, "latin1")),
);
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const measured = (rounds - WARM_ROUNDS) * BATCH;
if (!(measured > 0)) throw new Error(`--rounds must be more than ${WARM_ROUNDS}`);

const here = await pipeline(ROOT);
if (!values.against) {
  const spent: Record<Step, number> = { parse: 0, split: 0, vector: 0, assess: 0 };
  let cpu = 0;
  for (let round = 0; round < rounds; round++) {
    const counted = round >= WARM_ROUNDS;
    const c0 = cpuMs();
    for (const raw of raws) await here(raw, counted ? spent : undefined);
    if (counted) cpu += cpuMs() - c0;
  }
  const per = (ms: number) => `${((ms / measured) * 1000).toFixed(0)} µs`;
  console.log(`worker pipeline, ${values.message} message: ${per(cpu)} CPU per message; by step (wall): ${Object.entries(spent).map(([k, v]) => `${k} ${per(v)}`).join(", ")}`);
} else {
  const there = await pipeline(values.against);
  for (const raw of raws.slice(0, 5)) if (JSON.stringify(await here(raw)) !== JSON.stringify(await there(raw))) throw new Error("the two checkouts' verdicts differ");
  const cpu = { here: 0, there: 0 };
  for (let round = 0; round < rounds; round++) {
    for (const [side, run] of [["there", there], ["here", here]] as const) {
      const c0 = cpuMs();
      for (const raw of raws) await run(raw);
      if (round >= WARM_ROUNDS) cpu[side] += cpuMs() - c0;
    }
  }
  const per = (ms: number) => `${((ms / measured) * 1000).toFixed(0)} µs`;
  console.log(`worker pipeline, ${values.message} message, CPU per message: this checkout ${per(cpu.here)}, ${values.against} ${per(cpu.there)}; this/that ${(cpu.here / cpu.there).toFixed(3)}`);
}
