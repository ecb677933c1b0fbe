/**
 * Reply extraction on the repository's own reply corpus (test/corpus/replies.ts): exact
 * matches and token F1 of extracted_text against the expected new text, and the cases missed.
 *   bun bench/quality-replies.ts [--verbose]
 */
import { splitReply } from "../src/mail/extract.ts";
import { REPLY_CASES } from "../test/corpus/replies.ts";
import { sameText, tokenF1 } from "../test/corpus/score.ts";

const verbose = process.argv.includes("--verbose");
let exact = 0;
let f1 = 0;
let empty = 0;
const misses: string[] = [];
for (const c of REPLY_CASES) {
  const got = splitReply({ text: c.text ?? null, html: c.html ?? null });
  const score = tokenF1(got.text, c.reply);
  f1 += score;
  if (sameText(got.text, c.reply)) exact++;
  else misses.push(`  ${c.id.padEnd(24)} F1 ${score.toFixed(2)}${verbose ? `\n    got:  ${JSON.stringify(got.text)}\n    want: ${JSON.stringify(c.reply)}` : ""}`);
  if (!got.text && c.reply) empty++;
}
const n = REPLY_CASES.length;
console.log(`reply extraction on ${n} replies: exact ${((100 * exact) / n).toFixed(1)}% (${exact}/${n}), mean token F1 ${(f1 / n).toFixed(3)}, empty where text was expected: ${empty}`);
if (misses.length) console.log(`misses:\n${misses.join("\n")}`);
