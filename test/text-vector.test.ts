import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { simpleParser } from "mailparser";
import { rowsOf } from "../db/migrate.ts";
import { messages } from "../db/schema/index.ts";
import { benchText } from "../bench/lib.ts";
import { putBlob } from "../src/mail/blobs.ts";
import { storeContent } from "../src/mail/content.ts";
import { MailParser } from "../src/mail/parse/index.ts";
import { splitReply } from "../src/mail/extract.ts";
import { tokenizeText } from "../src/mail/text-vector.ts";
import { type LearnedWord, type Lexicon, type TextVectorPieces, textVectorPieces, WordLexicon } from "../src/mail/text-vector-pieces.ts";
import { numbersRule, PIECES_FROM_CHARS, piecesFromChars } from "../src/mail/text-vector-rules.ts";
import { LexiconFeed } from "../src/mail/lexicon-feed.ts";
import type { ProcessedMail } from "../src/mail/types.ts";
import { seedAccount, startTestService, type TestService } from "./harness.ts";
import { rfc822, smtpSend, waitForMessage } from "./mail-support.ts";

/**
 * The text part of a message's full-text vector is made by the service where it can name the
 * tokens exactly as PostgreSQL's parser would (src/mail/text-vector.ts), and by PostgreSQL
 * otherwise. Search compares what `websearch_to_tsquery('english', …)` makes of a query with
 * this vector, so the two must be the same vector, not a similar one: every check here is
 * equality with what PostgreSQL itself makes, on the database the suite runs on.
 */

let t: TestService;
let s: Awaited<ReturnType<typeof seedAccount>>;
beforeAll(async () => {
  // The service makes the text part here (the default leaves it to the database's parser), so
  // that mail through SMTP below goes the service's way end to end.
  t = await startTestService({ SEARCH_VECTOR: "service" });
  s = await seedAccount(t);
});
afterAll(() => t.stop());

const db = () => t.service.internals.database.db;
const query = async <T>(q: ReturnType<typeof sql>) => rowsOf<T>(await db().execute(q));

// How many generated texts must go the pieces' way, with and without segments (see the first test).
const MADE_FLOOR = 1900;
const SEGMENTS_FLOOR = 1200;

type Compared = { same: boolean; fellBack: boolean; ours: string; theirs: string };

/**
 * Whether `pieces` join (migration 0020's function) into the vector PostgreSQL makes of `text`
 * (where the function declines, the trigger's own vector: `fellBack`); both texts when not.
 */
async function joinedSameAsPostgres(text: string, pieces: TextVectorPieces): Promise<Compared> {
  const theirs = sql`setweight(to_tsvector('english', left(${text}, 200000)), 'C')`;
  const [r] = await query<Compared>(sql`
    select coalesce(v, ${theirs}) = ${theirs} as same, v is null as "fellBack", coalesce(v::text, '') as ours, ${theirs}::text as theirs
    from (select mailroom_text_vector(${pieces.json}::jsonb) as v) j`);
  return r!;
}

/** The pieces of `text` with `lexicon`, which must be made. */
function piecesOf(text: string, lexicon: Lexicon, numbersPlain = true): TextVectorPieces {
  const tokens = tokenizeText(text);
  if (!tokens) throw new Error(`not split: ${JSON.stringify(text.slice(0, 80))}`);
  const pieces = textVectorPieces(tokens, lexicon, numbersPlain);
  if (pieces.json === null) throw new Error(`no pieces for ${JSON.stringify(text.slice(0, 80))}`);
  return pieces;
}

/** Teaches `lexicon` the lexemes of `words` as PostgreSQL makes them of each word alone. */
async function learn(lexicon: WordLexicon, words: string[]): Promise<void> {
  if (words.length === 0) return;
  const rows = await query<{ word: string; lexeme: string | null; positions: number[] | null }>(
    sql`select w as word, t.lexeme, t.positions from unnest(string_to_array(${words.join(" ")}, ' ')) w left join lateral unnest(to_tsvector('english', w)) t on true`,
  );
  const made = new Map<string, [string, number[]][]>(words.map((w) => [w, []]));
  for (const r of rows) if (r.lexeme !== null) made.get(r.word)!.push([r.lexeme, r.positions!]);
  lexicon.learn([...made]);
}

/**
 * Equal to PostgreSQL's with no word known (`cold`: null where the text has more new words than
 * the function is given), then again with every word learned: both ways of the function.
 */
async function sameBothWays(text: string, lexicon = new WordLexicon()): Promise<{ cold: Compared | null; warm: Compared; missing: string[] }> {
  const tokens = tokenizeText(text)!;
  const first = textVectorPieces(tokens, lexicon, true);
  const cold = first.json === null ? null : await joinedSameAsPostgres(text, first);
  await learn(lexicon, tokens.words.filter((w) => lexicon.get(w) === undefined && !/^\d/.test(w)));
  const second = piecesOf(text, lexicon);
  return { cold, warm: await joinedSameAsPostgres(text, second), missing: second.missing };
}

// Deterministic texts: pieces of real words and every printable ASCII character, so that the
// tokenizer meets hosts, numbers, hyphens, apostrophes and stray punctuation.
const WORDS = ["the", "Running", "cats", "don't", "I'm", "well-known", "e-mail", "follow-up", "a", "x", "12", "ab12", "1e5", "0x1F", "HATS", "example.com", "3.5", "v2.0", "-", "--", "...", "re:", "(see)", '"quoted"', "bob@example.com", "https://example.com/a?b=c", "$1,234.56", "2024-01-05", "café", "Zürich", "don’t", "İstanbul", "\u212Aelvin", "x_y", "a+b", "&amp;", "/usr/bin", "-5", "+1", "~18%", "~/x", "#1", "%20"];
const ASCII = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("") + "\n\t\r";
const PLAIN_WORDS = WORDS.filter((w) => /^[A-Za-z' ()"-]+$/.test(w));
function texts(count: number, seed: number, alphabet: string, words = WORDS): string[] {
  let state = seed;
  const next = (n: number) => ((state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff), state % n);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let text = "";
    const pieces = 1 + next(30);
    for (let p = 0; p < pieces; p++) text += next(3) === 0 ? alphabet[next(alphabet.length)] : words[next(words.length)] + (next(2) ? " " : "");
    out.push(text);
  }
  return out;
}

async function receivedMessage(subject: string): Promise<string> {
  const raw = new TextEncoder().encode(rfc822({ From: "ann@example.com", To: s.agent.email_address, Subject: subject }, "Body.\r\n"));
  const id = randomUUID();
  await db()
    .insert(messages)
    .values({ id, mailboxId: s.agent.id, transport: "smtp", direction: "inbound", status: "received", fromAddress: "ann@example.com", toAddress: s.agent.email_address, subject, rawSha256: await putBlob(db(), raw), rawSize: raw.byteLength });
  return id;
}
const processed = (text: string, file = "report-2024_final.pdf"): ProcessedMail => ({
  headers: [{ key: "Subject", value: "Quarterly figures" }],
  messageIdHeader: null,
  inReplyTo: null,
  references: [],
  subject: "Quarterly figures",
  fromAddress: "ann@example.com",
  toAddresses: [s.agent.email_address],
  ccAddresses: ["cc.person@example.org"],
  replyTo: [],
  textBody: text,
  htmlBody: null,
  extractedText: text,
  snippet: text.slice(0, 100),
  attachments: [{ filename: file, mimeType: "application/pdf", size: 5, contentId: null, sha256: null, rawOffset: 0, rawLength: 5, transferEncoding: "identity" as const }],
  assessment: { riskLevel: "low", triageLabel: "fyi", signals: [], auth: { spf: "none", dkim: "none", dmarc: "none" }, autoReplyBlocked: false },
});
/** The stored vector against migration 0006's expression, computed now from the row. */
const asGenerated = async (id: string, on = db()) => {
  const [r] = rowsOf<{ same: boolean; hits: boolean }>(await on.execute(sql`
    select search_tsv = (
      setweight(to_tsvector('english', left(subject, 2000)), 'A')
      || setweight(to_tsvector('english', left(from_address || ' ' || to_address || ' ' || translate(cc::text, '[]",', '    '), 4000)
        || ' ' || translate(left(from_address || ' ' || to_address || ' ' || cc::text, 4000), '@.[]",', '      ')), 'B')
      || setweight(to_tsvector('english', left(attachment_names, 4000) || ' ' || translate(left(attachment_names, 4000), '-_.', '   ')), 'B')
      || setweight(to_tsvector('english', left(coalesce(extracted_text, text_body, ''), 200000)), 'C')
    ) as same, search_tsv @@ websearch_to_tsquery('english', 'meetings') as hits
    from messages where id = ${id}`));
  return r!;
};


describe("the text vector in pieces", () => {
  test("equals PostgreSQL's for every generated text, with its words unknown and then known", async () => {
    let made = 0;
    let withSegments = 0;
    const failures: string[] = [];
    const lexicon = new WordLexicon();
    for (const [seed, alphabet, words] of [
      [1, ASCII, WORDS],
      [2, " \n,;:!?()'\"abcXYZ019", WORDS],
      [3, " -.abc12", WORDS],
      [4, " é’\u00a0\u2028\u3000a.-@1", WORDS],
      [5, " \n,;:!?()'\"abcXYZ019.-", PLAIN_WORDS],
    ] as const) {
      for (const text of texts(400, seed, alphabet, words)) {
        const tokens = tokenizeText(text);
        if (!tokens) {
          // Only a tag's `<` (or a NUL, or a very long chunk) leaves a text to PostgreSQL whole.
          expect(text).toContain("<");
          continue;
        }
        if (tokens.segments.length > 16) {
          // More segments than the function is given: the trigger parses it whole.
          expect(textVectorPieces(tokens, lexicon, true).json).toBeNull();
          continue;
        }
        made++;
        if (tokens.segments.length) withSegments++;
        // Each text against a lexicon that knows none of its words, then one that knows them all.
        const cold = await joinedSameAsPostgres(text, piecesOf(text, new WordLexicon()));
        await learn(lexicon, textVectorPieces(tokens, lexicon, true).missing);
        const warm = piecesOf(text, lexicon);
        expect(warm.missing).toEqual([]);
        const joined = await joinedSameAsPostgres(text, warm);
        for (const r of [cold, joined]) {
          if (!r.same || r.fellBack) failures.push(`${JSON.stringify(text)}\n  ours:   ${r.ours}\n  theirs: ${r.theirs}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // The check means something only if the texts were made here, with and without segments.
    expect(made).toBeGreaterThan(MADE_FLOOR);
    expect(withSegments).toBeGreaterThan(SEGMENTS_FLOOR);
    expect(made - withSegments).toBeGreaterThan(200);
  }, 120_000);

  test("prose, stop words, case, hyphenated words and pieces only PostgreSQL splits", async () => {
    for (const text of [
      benchText("A short note about the meeting tomorrow. ", 8 * 1024, "prose"),
      "The cat's HATS and the RUNNING dogs: well-known, follow-up (e-mail) - see -- above!",
      "",
      "   ",
      "the and of",
      "Write to bob@example.com or see https://example.com/x?y=1 by 2024-01-05 (costs $1,234.56, v1.2.3).",
      "the the bob@example.com the the",
      "bob@example.com the of",
      "Grüße aus Zürich, and the café is open",
      "a.b c.d e.f",
      "the a.b the c.d of",
    ]) {
      const { cold, warm, missing } = await sameBothWays(text);
      // 8 KiB of prose has more new words than the function is given; the others do not.
      expect(cold === null).toBe(text.length > 1000);
      if (cold) expect(cold).toMatchObject({ same: true, fellBack: false });
      expect(warm).toMatchObject({ same: true, fellBack: false });
      expect(missing).toEqual([]);
    }
  });

  test("literals that spell weight C on every position (a node not yet updated) join into the same vector", async () => {
    const lexicon = new WordLexicon();
    const text = "Write to bob@example.com about the meeting, see https://example.com/x?y=1 and the notes, then the rest.";
    await sameBothWays(text, lexicon);
    const pieces = piecesOf(text, lexicon);
    const parsed = JSON.parse(pieces.json!) as { p: string[] };
    expect(parsed.p.length).toBeGreaterThan(1);
    // The literals of this version spell no weight (the function sets C on the whole).
    expect(parsed.p.join(" ")).not.toMatch(/\d[A-D]\b/);
    const weighted = { ...parsed, p: parsed.p.map((literal) => literal.replace(/(:|,)(\d+)(?=[ ,]|$)/g, "$1$2C")) };
    expect(weighted.p.join(" ")).toMatch(/\dC\b/);
    expect(await joinedSameAsPostgres(text, { json: JSON.stringify(weighted), missing: [] })).toMatchObject({ same: true, fellBack: false });
    expect(await joinedSameAsPostgres(text, pieces)).toMatchObject({ same: true, fellBack: false });
  });

  test("the JSON is JSON.stringify's, whatever characters a lexeme holds", () => {
    // Lexemes as a lexicon could hold them: plain words (written into the JSON as they are),
    // and quotes, backslashes, control characters and surrogates (which the JSON must escape).
    const odd: Record<string, [string, number[]][]> = {
      alpha: [["alpha", [1]]],
      beta: [["it's", [1]]],
      gamma: [["back\\slash", [1]]],
      delta: [['say "hi"', [1]]],
      eps: [["tab\there", [1]]],
      zeta: [["smile\u{1F600}", [1]]],
      eta: [["lone\ud800", [1]]],
    };
    const lexicon: Lexicon = { get: (w) => odd[w] };
    for (const words of [["alpha"], ["alpha", "beta"], ["alpha", "gamma"], ["delta"], ["eps", "alpha"], ["zeta"], ["eta"]]) {
      const pieces = textVectorPieces(tokenizeText(`${words.join(" ")} see https://example.com/x then ${words.join(" ")}`)!, lexicon, true);
      const parsed = JSON.parse(pieces.json!) as { p: string[]; s: string[]; m: unknown[] };
      expect(pieces.json).toBe(JSON.stringify(parsed));
      expect(parsed.p.join(" ")).toContain(words[0] === "alpha" ? "'alpha':" : "':");
    }
    const quoted = JSON.parse(textVectorPieces(tokenizeText("beta gamma")!, lexicon, true).json!) as { p: string[] };
    expect(quoted.p[0]).toBe("'it''s':1 'back\\\\slash':2 mailroomend:2");
  });

  test("two words of one hash stay two words, each with its own positions, whatever their case", async () => {
    // Two made-up words the tokenizer files under one hash (FNV-1a of the lower-cased letters),
    // found by a birthday search over six-letter words (20 s on a busy machine: its answer is kept).
    const fnv = (w: string) => [...w].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 0x01000193), 0x811c9dc5);
    const [one, two] = ["yaczfa", "glbppa"];
    expect(fnv(one)).toBe(fnv(two));
    const tokens = tokenizeText(`${one} ${two.toUpperCase()} ${one} ${two}`)!;
    expect(tokens.words).toEqual([one, two]);
    expect([...tokens.starts.subarray(tokens.first[0], tokens.first[1])]).toEqual([1, 3]);
    expect([...tokens.starts.subarray(tokens.first[1], tokens.first[2])]).toEqual([2, 4]);
    const { warm } = await sameBothWays(`${one} ${two} ${one}`);
    expect(warm).toMatchObject({ same: true, fellBack: false });
  });

  test("the marker word anywhere (a segment, a word, a word's lexeme) leaves the text to the trigger", async () => {
    const lexicon = new WordLexicon();
    for (const text of ["write to x@MailroomEnd.example now", "the Mailroomend is here", "two mailroomends"]) {
      expect(textVectorPieces(tokenizeText(text)!, lexicon, true).json).toBeNull();
    }
    // A known word whose lexeme is the marker.
    lexicon.learn([["mailrooming", [["mailroomend", [1]]]], ["some", []], ["here", []]]);
    expect(textVectorPieces(tokenizeText("some mailrooming here")!, lexicon, true).json).toBeNull();
    expect(textVectorPieces(tokenizeText("some here")!, lexicon, true).json).not.toBeNull();
  });

  test("equals PostgreSQL's for the text of every mail in the fixtures", async () => {
    const dirs = ["test/fixtures/mime", "test/fixtures/intel", ...readdirSync("test/fixtures/intel", { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `test/fixtures/intel/${d.name}`)];
    let made = 0;
    const failures: string[] = [];
    const lexicon = new WordLexicon();
    for (const dir of dirs) {
      for (const file of readdirSync(dir).filter((f) => f.endsWith(".eml"))) {
        const mail = await simpleParser(readFileSync(`${dir}/${file}`));
        const text = splitReply({ text: mail.text ?? null, html: typeof mail.html === "string" ? mail.html : null }).text;
        const tokens = text ? tokenizeText(text) : null;
        if (!text || !tokens) continue;
        made++;
        const { cold, warm } = await sameBothWays(text, lexicon);
        if ((cold && !cold.same) || !warm.same || warm.fellBack) failures.push(`${dir}/${file}`);
      }
    }
    expect(failures).toEqual([]);
    expect(made).toBeGreaterThan(90);
  }, 60_000);

  test("PostgreSQL's limits: a lexeme keeps its first 255 positions, and positions stop at 16383", async () => {
    // Below the limit of a lexeme: joined, with the words known and unknown.
    const some = "word other ".repeat(120);
    const both = await sameBothWays(some);
    expect(both.cold).toMatchObject({ same: true, fellBack: false });
    expect(both.warm).toMatchObject({ same: true, fellBack: false });
    // Past it, where joining keeps one position more than to_tsvector: the function declines
    // and the trigger makes the text part itself.
    const { cold, warm } = await sameBothWays("word other ".repeat(300));
    expect(cold).toMatchObject({ same: true, fellBack: true });
    expect(warm).toMatchObject({ same: true, fellBack: true });
    // Words never seen are each made alone by the function: past 64 of them the trigger parses
    // the text whole, and a flood teaches the first 256.
    const letters = (k: number) => Array.from({ length: 5 }, (_, i) => String.fromCharCode(97 + (Math.floor(k / 26 ** i) % 26))).join("");
    const words = (n: number) => Array.from({ length: n }, (_, k) => `zq${letters(k)}`).join(" ");
    expect(textVectorPieces(tokenizeText(words(64))!, new WordLexicon(), true)).toMatchObject({ json: expect.any(String), missing: expect.any(Array) });
    expect(textVectorPieces(tokenizeText(words(64))!, new WordLexicon(), true).missing).toHaveLength(64);
    expect(textVectorPieces(tokenizeText(words(65))!, new WordLexicon(), true).json).toBeNull();
    const flood = textVectorPieces(tokenizeText(words(5000))!, new WordLexicon(), true);
    expect(flood.json).toBeNull();
    expect(flood.missing).toHaveLength(256);
    // Each segment is a step of the function's loop: past 16 of them the trigger parses the text whole.
    const segmented = (n: number) => Array.from({ length: n }, (_, k) => `word a${k}.example`).join(" ");
    expect(tokenizeText(segmented(17))!.segments).toHaveLength(17);
    expect(textVectorPieces(tokenizeText(segmented(17))!, new WordLexicon(), true).json).toBeNull();
    expect(await joinedSameAsPostgres(segmented(16), piecesOf(segmented(16), new WordLexicon()))).toMatchObject({ same: true, fellBack: false });
    // Near the last position: no pieces at all.
    const long = benchText("Long. ", 150_000, "prose") + " closing words";
    expect(tokenizeText(long)!.starts.length).toBeGreaterThan(16_383);
    const lexicon = new WordLexicon();
    await learn(lexicon, tokenizeText(long)!.words);
    expect(textVectorPieces(tokenizeText(long)!, lexicon, true).json).toBeNull();
  });

  test("numbers are made in the worker once the database's rule for them is known, and are never learned", async () => {
    expect(await numbersRule(db()).answered).toBe(true);
    const text = "Order 1001 of the spring catalogue, 0042 items, 98765432109876543210987654321 of them";
    const lexicon = new WordLexicon();
    await learn(lexicon, piecesOf(text, lexicon).missing.filter((w) => !/^\d/.test(w)));
    // Plain numbers: nothing missing, the same vector.
    const plain = piecesOf(text, lexicon, true);
    expect(plain.missing).toEqual([]);
    expect(await joinedSameAsPostgres(text, plain)).toMatchObject({ same: true, fellBack: false });
    // Until the rule is known, numbers are made by the database like words not known yet.
    const asked = piecesOf(text, lexicon, false);
    expect(asked.missing.sort()).toEqual(["0042", "1001", "98765432109876543210987654321"]);
    expect(await joinedSameAsPostgres(text, asked)).toMatchObject({ same: true, fellBack: false });
  });

  test("the statement that stores the content answers the lexemes of the words it made, numbers aside", async () => {
    const id = await receivedMessage("Learning");
    const text = "Zebras gallop over 1234 hyphen-joined meadows";
    const pieces = piecesOf(text, new WordLexicon());
    const learned: LearnedWord[] = [];
    await storeContent(db(), id, processed(text), "ann@example.com", { pieces, learned: (words) => learned.push(...words) });
    expect(await asGenerated(id)).toMatchObject({ same: true });
    expect(learned.map(([w]) => w).sort()).toEqual(["gallop", "hyphen-joined", "meadows", "over", "zebras"]);
    const lexicon = new WordLexicon();
    await learn(lexicon, ["gallop", "hyphen-joined", "meadows", "over", "zebras"]);
    for (const [word, lexemes] of learned) expect(lexemes).toEqual(lexicon.get(word)!);
    // "over" is a stop word: known, with no lexeme.
    expect(learned.find(([w]) => w === "over")![1]).toEqual([]);
  });

  test("the parser's worker makes the pieces of the text that is indexed, with the words it was taught", async () => {
    const parser = new MailParser({ workers: 1 });
    try {
      const body = "Hello there, see bob@example.com about the well-known café.\r\n";
      const raw = new TextEncoder().encode(rfc822({ From: "ann@example.com", To: "b@example.com", Subject: "S", "Content-Type": "text/plain; charset=utf-8" }, body));
      const first = await parser.parse(raw, undefined, { vector: { numbersPlain: true } });
      if (!first.ok) throw new Error(first.reason);
      expect(first.textPieces).toEqual(textVectorPieces(tokenizeText(first.extractedText)!, new WordLexicon(), true));
      // Taught its words, the worker's next pieces need none of them.
      const lexicon = new WordLexicon();
      await learn(lexicon, first.textPieces!.missing);
      const taught = first.textPieces!.missing.map((w) => [w, lexicon.get(w)!] as const);
      const second = await parser.parse(raw, undefined, { vector: { numbersPlain: true, learned: taught } });
      if (!second.ok) throw new Error(second.reason);
      expect(second.textPieces!.missing).toEqual([]);
      expect(await joinedSameAsPostgres(second.extractedText, second.textPieces!)).toMatchObject({ same: true, fellBack: false });
      // A tag leaves the text to the trigger; not asked (SEARCH_VECTOR=database), no pieces at all.
      const tagged = await parser.parse(new TextEncoder().encode(rfc822({ From: "a@example.com", To: "b@example.com", Subject: "S" }, "Meet <b>now</b>\r\n")), undefined, { vector: { numbersPlain: true } });
      expect(tagged.ok && tagged.textPieces).toBeNull();
      const plain = await parser.parse(raw);
      expect(plain.ok && plain.textPieces).toBeUndefined();
    } finally {
      await parser.close();
    }
  });

  test("by length: a text shorter than asked for is left to the trigger, and the words sent along are learned all the same", async () => {
    const parser = new MailParser({ workers: 1 });
    try {
      const body = "Quartz jugglers vex brisk nymphs.\r\n";
      const raw = new TextEncoder().encode(rfc822({ From: "ann@example.com", To: "b@example.com", Subject: "S" }, body));
      const cold = await parser.parse(raw, undefined, { vector: { numbersPlain: true } });
      if (!cold.ok) throw new Error(cold.reason);
      const words = cold.textPieces!.missing;
      expect(words.length).toBeGreaterThan(0);
      const lexicon = new WordLexicon();
      await learn(lexicon, words);
      const taught = words.map((w) => [w, lexicon.get(w)!] as const);
      // One character short of the bar: no pieces (the row's trigger makes the text part), but the words are taken.
      const short = await parser.parse(raw, undefined, { vector: { numbersPlain: true, fromChars: cold.extractedText.length + 1, learned: taught } });
      expect(short.ok && short.textPieces).toBeNull();
      // At the bar: pieces, made with the words the short one carried.
      const at = await parser.parse(raw, undefined, { vector: { numbersPlain: true, fromChars: cold.extractedText.length } });
      if (!at.ok) throw new Error(at.reason);
      expect(at.textPieces!.missing).toEqual([]);
      expect(await joinedSameAsPostgres(at.extractedText, at.textPieces!)).toMatchObject({ same: true, fellBack: false });
    } finally {
      await parser.close();
    }
  });

  test("SEARCH_VECTOR=by-length: short and long mail through SMTP each get the vector PostgreSQL makes, and search finds both", async () => {
    expect(piecesFromChars("by-length")).toBe(PIECES_FROM_CHARS);
    expect(piecesFromChars("service")).toBe(0);
    expect(piecesFromChars("database")).toBe(Infinity);
    const u = await startTestService({ SEARCH_VECTOR: "by-length" });
    try {
      const seed = await seedAccount(u);
      const sent: string[] = [];
      for (const text of ["Short meetings note, order 4471.", benchText("Long meetings minutes, order 4472. ", PIECES_FROM_CHARS + 2048, "prose")]) {
        const raw = rfc822({ From: "ann@example.com", To: seed.agent.email_address, Subject: "Minutes", "Message-ID": `<${randomUUID()}@example.com>` }, `${text}\r\n`);
        const info = await smtpSend(u.service.smtpPort, { from: "ann@example.com", to: [seed.agent.email_address] }, raw);
        const id = /queued as ([0-9a-f-]{36})/.exec(info.response)![1]!;
        expect(await waitForMessage(u, id)).toMatchObject({ status: "processed" });
        expect(await asGenerated(id, u.service.internals.database.db)).toEqual({ same: true, hits: true });
        sent.push(id);
      }
      for (const [query, id] of [["4471", sent[0]!], ["4472", sent[1]!]] as const) {
        const found = await u.api("POST", `/v1/mailboxes/${seed.agent.id}/search`, { body: { query }, token: seed.agentKey.token });
        expect((found.body.items as { id: string }[]).map((m) => m.id)).toEqual([id]);
      }
    } finally {
      await u.stop();
    }
  });

  test("a text with a tag, a NUL or a chunk PostgreSQL would skip is left to it whole", () => {
    for (const text of ["see <b>this</b>", "a <!-- x y --> b", "nul\0here", `word ${"x".repeat(2001)} word`, "lone \ud800 surrogate"]) {
      expect(tokenizeText(text)).toBeNull();
    }
  });
});

describe("the lexicon of the parser threads", () => {
  test("a learned batch rides along with the next parses, one per thread the pool can have, then is gone", () => {
    const feed = new LexiconFeed(2);
    expect(feed.take()).toBeUndefined();
    feed.learn([["alpha", [["alpha", [1]]]]]);
    feed.learn([]);
    expect(feed.take()?.map(([w]) => w)).toEqual(["alpha"]);
    feed.learn([["beta", []]]);
    expect(feed.take()?.map(([w]) => w)).toEqual(["alpha", "beta"]);
    expect(feed.take()?.map(([w]) => w)).toEqual(["beta"]);
    expect(feed.take()).toBeUndefined();
  });

  test("what waits is bounded: the oldest batches go first", () => {
    const feed = new LexiconFeed(1);
    for (let i = 0; i < 30; i++) feed.learn(Array.from({ length: 1000 }, (_, k) => [`w${i}x${k}`, []] as const));
    const taken = feed.take()!;
    expect(taken.length).toBeLessThanOrEqual(20_000);
    expect(taken.at(-1)![0]).toBe("w29x999");
  });

  test("a thread's lexicon forgets everything when full, and never holds more than its bound", () => {
    const lexicon = new WordLexicon(3);
    lexicon.learn([["a", []], ["b", []]]);
    expect(lexicon.size).toBe(2);
    lexicon.learn([["c", []], ["d", []]]);
    expect(lexicon.size).toBe(2);
    expect(lexicon.get("a")).toBeUndefined();
    expect(lexicon.get("d")).toEqual([]);
    lexicon.learn([["e", []], ["f", []], ["g", []], ["h", []]]);
    expect(lexicon.size).toBe(3);
  });
});

describe("a message's full-text vector", () => {
  test("is what the generated column made, whether the service, PostgreSQL or both made the text part", async () => {
    const prose = benchText("A short note about the meetings tomorrow. ", 8 * 1024, "prose");
    const mixed = "Meetings at café Zürich, see https://example.com/agenda for 2024-01-05.";
    const other = "Meetings <b>today</b>";
    expect(tokenizeText(prose)!.segments).toEqual([]);
    expect(tokenizeText(mixed)!.segments.length).toBeGreaterThan(0);
    expect(tokenizeText(other)).toBeNull();
    for (const [text, by] of [prose, mixed, other].flatMap((t) => [[t, "service"], [t, "database"]] as const)) {
      const id = await receivedMessage("Quarterly figures");
      expect(await asGenerated(id)).toEqual({ same: true, hits: false });
      const tokens = tokenizeText(text);
      const lexicon = new WordLexicon();
      if (by === "service" && tokens) await learn(lexicon, tokens.words);
      const pieces = by === "service" && tokens ? textVectorPieces(tokens, lexicon, true) : null;
      if (by === "service") expect(pieces === null || pieces.json === null).toBe(text === other);
      await storeContent(db(), id, processed(text), "ann@example.com", by === "service" ? { pieces, learned: () => {} } : undefined);
      expect(await asGenerated(id)).toEqual({ same: true, hits: true });
      // An update of other columns leaves the vector as it is; one of its columns remakes it.
      await db().execute(sql`update messages set status = 'processed', snippet = 'x' where id = ${id}`);
      expect(await asGenerated(id)).toEqual({ same: true, hits: true });
      await db().execute(sql`update messages set subject = 'Renamed', text_body = 'nothing here', extracted_text = null where id = ${id}`);
      expect(await asGenerated(id)).toEqual({ same: true, hits: false });
    }
  });

  test("mail through SMTP with SEARCH_VECTOR=service: the vector is the one PostgreSQL makes, and search finds its words, numbers and pieces", async () => {
    const body = "Order 4471 of the Zürich meetings ships 2026-12-05, tracking https://orders.example.com/track/4471 (0042 boxes).\r\n";
    const raw = rfc822({ From: "ann@example.com", To: s.agent.email_address, Subject: "Shipping update", "Message-ID": `<${randomUUID()}@example.com>` }, body);
    const info = await smtpSend(t.service.smtpPort, { from: "ann@example.com", to: [s.agent.email_address] }, raw);
    const id = /queued as ([0-9a-f-]{36})/.exec(info.response)![1]!;
    expect(await waitForMessage(t, id)).toMatchObject({ status: "processed" });
    expect((await asGenerated(id)).same).toBe(true);
    for (const query of ["meetings", "4471", "0042", "orders.example.com", "Zürich"]) {
      const found = await t.api("POST", `/v1/mailboxes/${s.agent.id}/search`, { body: { query }, token: s.agentKey.token });
      expect(found.status).toBe(200);
      expect((found.body.items as { id: string }[]).map((m) => m.id)).toContain(id);
    }
  });

  test("a vector handed in for one message never reaches another row", async () => {
    const a = await receivedMessage("First");
    const b = await receivedMessage("Second");
    await db().transaction(async (tx) => {
      await tx.execute(sql`select set_config('mailroom.text_vector', ${`${a} 'meet':1C`}, true)`);
      await tx.execute(sql`update messages set text_body = 'plain words' where id = ${b}`);
      await tx.execute(sql`update messages set text_body = 'other words' where id = ${a}`);
      await tx.execute(sql`update messages set text_body = 'third words' where id = ${a}`);
    });
    const [rb] = await query<{ v: string }>(sql`select search_tsv::text as v from messages where id = ${b}`);
    expect(rb!.v).toContain("'plain'");
    expect(rb!.v).not.toContain("'meet'");
    // Taken once by the row it names, then cleared: the second update computes its own.
    const [ra] = await query<{ v: string }>(sql`select search_tsv::text as v from messages where id = ${a}`);
    expect(ra!.v).toContain("'third'");
    expect(ra!.v).not.toContain("'meet'");
    expect(await asGenerated(a)).toEqual({ same: true, hits: false });
  });
});
