/**
 * Phishing as a first filter on the repository's corpus (test/corpus/mail.ts), with no
 * upstream verdict to lean on: the share of each class rated medium or high, precision and
 * recall of "medium or high" for phishing, and which mails land on the wrong side.
 *   bun bench/quality-phishing.ts [--verbose]
 */
import { Assessor } from "../src/mail/assess/index.ts";
import { parseInline } from "../src/mail/parse/convert.ts";
import { corpusResolver, loadCorpus, type MailClass } from "../test/corpus/mail.ts";

const verbose = process.argv.includes("--verbose");
// No network: DNS answers only the corpus's own DKIM keys.
const assessor = new Assessor({ mailDomain: "mail.localhost", resolver: corpusResolver });
const MAIL_CORPUS = await loadCorpus();

const flagged: Record<MailClass, number> = { phish: 0, ham: 0, newsletter: 0 };
const total: Record<MailClass, number> = { phish: 0, ham: 0, newsletter: 0 };
const wrong: string[] = [];
for (const m of MAIL_CORPUS) {
  const mail = await parseInline(m.raw);
  const r = await assessor.assess({ raw: m.raw, mail, headers: mail.headers, envelope: m.envelope });
  const hit = r.riskLevel !== "low";
  total[m.class]++;
  if (hit) flagged[m.class]++;
  if (hit !== (m.class === "phish") || verbose) wrong.push(`  ${m.class.padEnd(10)} ${m.id.padEnd(28)} ${r.riskLevel.padEnd(6)} ${r.signals.join(", ")}`);
}
const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(1)}%`;
console.log("medium or high, by class (no upstream verdicts):");
for (const c of ["phish", "ham", "newsletter"] as const) console.log(`  ${c.padEnd(10)} ${pct(flagged[c], total[c]).padStart(6)} (${flagged[c]}/${total[c]})`);
const tp = flagged.phish;
const fp = flagged.ham + flagged.newsletter;
console.log(`phishing: precision ${pct(tp, tp + fp)}, recall ${pct(tp, total.phish)}`);
const hamOk = total.ham + total.newsletter - fp;
console.log(`legitimate: precision ${pct(hamOk, hamOk + total.phish - tp)}, recall ${pct(hamOk, total.ham + total.newsletter)}`);
if (wrong.length) console.log(`${verbose ? "all" : "on the wrong side"}:\n${wrong.join("\n")}`);
process.exit(0);
