/**
 * The time figures test/mail-assess.test.ts and test/mail-extract.test.ts no longer assert:
 * the worst milliseconds of each assessment pattern family on 512 KiB of its own vocabulary
 * (the inputs the tests use), and text extraction of pathological HTML and a 5 MB body.
 *   bun bench/assess-budget.ts [--runs 3]
 */
import { EXFILTRATION_PATTERNS, INJECTION_PATTERNS } from "../src/mail/assess/injection.ts";
import { CREDENTIAL_PATTERNS, PAYMENT_PATTERNS } from "../src/mail/assess/signals/language.ts";
import { PHISH_PATTERNS } from "../src/mail/assess/signals/phish.ts";
import { ACTION_PATTERNS } from "../src/mail/assess/triage.ts";
import { extractText } from "../src/mail/extract.ts";
import { someGated } from "../src/mail/assess/word-gate.ts";

const runs = Number(process.argv[process.argv.indexOf("--runs") + 1] ?? 3) || 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const timed = (work: () => unknown) => {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return median(times);
};

const KB512 = 512 * 1024;
const families: Record<string, RegExp[]> = {
  injection: INJECTION_PATTERNS,
  exfiltration: EXFILTRATION_PATTERNS,
  payment: PAYMENT_PATTERNS,
  credential: CREDENTIAL_PATTERNS,
  action: ACTION_PATTERNS,
  phishing: PHISH_PATTERNS,
};
console.log(`assessment patterns on 512 KiB of their own vocabulary (median of ${runs}; worst pattern and input)`);
for (const [name, patterns] of Object.entries(families)) {
  let worst = 0;
  for (const re of patterns) {
    const words = [...new Set(re.source.match(/[a-z]{2,}/g) ?? [])];
    // Patterns of digits and marks (phone numbers, broken words) get their own kind of text.
    if (words.length < 3) words.push("+1", "(808)", "555-0142", "a\u034fb", "1.2.3");
    re.lastIndex = 0;
    const inputs = [words.join(" ") + " ", words.join(""), words.map((w) => `${w} ${w}`).join(" ") + " "].map((u) => u.repeat(Math.ceil(KB512 / u.length)).slice(0, KB512) + "\u0000");
    for (const input of inputs) worst = Math.max(worst, timed(() => re.test(input)));
  }
  console.log(`  ${name.padEnd(14)} ${patterns.length.toString().padStart(3)} patterns  worst ${worst.toFixed(1).padStart(8)} ms`);
}

// The word gate on texts made to cost its index the most: 512 KiB of words that are all distinct
// (every one a new entry) and all begin as many gate prefixes do (a prefix's look-up reads every
// word that begins with its first two characters; "d" is a one-character prefix, read against all).
console.log(`\nword gate, every family on 512 KiB of distinct words sharing a beginning (median of ${runs})`);
for (const lead of ["re", "in", "ch", "d"]) {
  const text = Array.from({ length: 100_000 }, (_, i) => `${lead}q${i.toString(36)}`).join(" ").slice(0, KB512);
  // A text of its own each run: the gate keeps the index of the last few texts.
  let run = 0;
  const work = () => {
    const own = `${run++} ${text}`;
    for (const f of Object.values(families)) someGated(f, own);
  };
  console.log(`  "${lead}…" words${" ".repeat(18 - lead.length)} ${timed(work).toFixed(1).padStart(8)} ms`);
}

const html = (h: string) => extractText({ text: null, html: h });
const big = "word ".repeat(1_000_000);
const cases: Record<string, () => unknown> = {
  "100,000 nested <div>": () => html(`${"<div>".repeat(100_000)}deep${"</div>".repeat(100_000)}`),
  "100,000 unclosed <b>": () => html(`${"<b>".repeat(100_000)}x`),
  "60,000 stray end tags": () => html(`${"<div>".repeat(500)}${"</x>".repeat(60_000)}`),
  '150,000 "<a"': () => html("<a".repeat(150_000)),
  "250 nested <blockquote>": () => html(`${"<blockquote>".repeat(250)}${"x<br>".repeat(40_000)}`),
  "9,000 <blockquote>s": () => html("<blockquote>a</blockquote>".repeat(9000)),
  "5 MB text body": () => extractText({ text: big, html: null }),
  "5 MB HTML body": () => html(`<p>${big}</p>`),
};
console.log(`\ntext extraction (median of ${runs})`);
for (const [name, work] of Object.entries(cases)) console.log(`  ${name.padEnd(24)} ${timed(work).toFixed(1).padStart(8)} ms`);

// Reply splitting on lines built to make the header rules work hardest (1 MiB each).
const MB = 1024 * 1024;
const fill = (line: string) => line.repeat(Math.ceil(MB / line.length)).slice(0, MB);
const replyCases: Record<string, string> = {
  '"Am … schrieb …:" lead words': fill(`${"Am 1 ".repeat(110)}schrieb ${"x ".repeat(20)}:\n`),
  '"schrieb" repeated': fill(`${"schrieb ".repeat(70)}:\n`),
  "Outlook field lines": fill("From: a\nTo: b\n"),
  "date-only header lines": fill("2024-01-08 9:14 Bob <bob@example.com>:\nx\n"),
  "quoted lines": fill("> quoted text\n"),
  "long lines, no breaks": "On 1 wrote ".repeat(MB / 11),
};
console.log(`\nreply splitting, 1 MiB text bodies (median of ${runs})`);
for (const [name, body] of Object.entries(replyCases)) console.log(`  ${name.padEnd(32)} ${timed(() => extractText({ text: body, html: null })).toFixed(1).padStart(8)} ms`);
