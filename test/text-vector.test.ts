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
import { type TextTokens, tokenizeText } from "../src/mail/text-vector.ts";
import { numbersRule, textVectorOf } from "../src/mail/text-vector-store.ts";
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

/** Whether our literal is the vector PostgreSQL makes of `text`; both texts when it is not. */
async function sameAsPostgres(text: string): Promise<{ same: boolean; ours: string; theirs: string }> {
  const ours = await textVectorOf(db(), text);
  if (ours === null) throw new Error(`no vector made for ${JSON.stringify(text.slice(0, 80))}`);
  const [r] = await query<{ same: boolean; ours: string; theirs: string }>(
    sql`select ${ours}::tsvector = setweight(to_tsvector('english', left(${text}, 200000)), 'C') as same, ${ours}::tsvector::text as ours, setweight(to_tsvector('english', left(${text}, 200000)), 'C')::text as theirs`,
  );
  return r!;
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

describe("the text vector made by the service", () => {
  test("equals PostgreSQL's for every generated text", async () => {
    let made = 0;
    let withSegments = 0;
    const failures: string[] = [];
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
        made++;
        if (tokens.segments.length) withSegments++;
        const r = await sameAsPostgres(text);
        if (!r.same) failures.push(`${JSON.stringify(text)}\n  ours:   ${r.ours}\n  theirs: ${r.theirs}`);
      }
    }
    expect(failures).toEqual([]);
    // The check means something only if the texts were made here, with and without segments.
    expect(made).toBeGreaterThan(1900);
    expect(withSegments).toBeGreaterThan(1200);
    expect(made - withSegments).toBeGreaterThan(200);
  }, 60_000);

  test("prose, stop words, case, hyphenated words and pieces only PostgreSQL splits", async () => {
    for (const text of [
      benchText("A short note about the meeting tomorrow. ", 8 * 1024, "prose"),
      "The cat's HATS and the RUNNING dogs: well-known, follow-up (e-mail) - see -- above!",
      "",
      "   ",
      "the and of",
      "Write to bob@example.com or see https://example.com/x?y=1 by 2024-01-05 (costs $1,234.56, v1.2.3).",
      "the the bob@example.com the the",
      "Grüße aus Zürich, and the café is open",
      "mailroomend the a.b mailroomend",
    ]) {
      expect(tokenizeText(text)).not.toBeNull();
      expect((await sameAsPostgres(text)).same).toBe(true);
    }
    // A piece only PostgreSQL splits that holds the word marking its end is left to it whole.
    expect(await textVectorOf(db(), "write to x@MailroomEnd.example now")).toBeNull();
  });

  test("equals PostgreSQL's for the text of every mail in the fixtures", async () => {
    const dirs = ["test/fixtures/mime", "test/fixtures/intel", ...readdirSync("test/fixtures/intel", { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `test/fixtures/intel/${d.name}`)];
    let made = 0;
    const failures: string[] = [];
    for (const dir of dirs) {
      for (const file of readdirSync(dir).filter((f) => f.endsWith(".eml"))) {
        const mail = await simpleParser(readFileSync(`${dir}/${file}`));
        const text = splitReply({ text: mail.text ?? null, html: typeof mail.html === "string" ? mail.html : null }).text;
        if (!text || !tokenizeText(text)) continue;
        made++;
        if (!(await sameAsPostgres(text)).same) failures.push(`${dir}/${file}`);
      }
    }
    expect(failures).toEqual([]);
    expect(made).toBeGreaterThan(90);
  }, 60_000);

  test("PostgreSQL's limits: a lexeme keeps its first 255 positions, and positions stop at 16383", async () => {
    const many = "word other ".repeat(300);
    const mixed = "word a.b ".repeat(300);
    const long = benchText("Long. ", 150_000, "prose") + " closing words";
    expect((await sameAsPostgres(many)).same).toBe(true);
    expect((await sameAsPostgres(mixed)).same).toBe(true);
    expect(tokenizeText(long)!.starts.length).toBeGreaterThan(16_383);
    expect((await sameAsPostgres(long)).same).toBe(true);
    expect((await sameAsPostgres(long.replaceAll(". ", ". x@y.z "))).same).toBe(true);
    // Beyond 200,000 characters the vector stops, as migration 0006's left(…) does.
    expect((await sameAsPostgres("alpha ".repeat(40_000) + "omega")).same).toBe(true);
    // left() counts code points: a text of astral characters keeps more UTF-16 units than 200,000.
    expect((await sameAsPostgres("\u{1F600} ".repeat(70_000) + "omega")).same).toBe(true);
  });

  test("a text's lexemes survive another text's look-up clearing the cache meanwhile", async () => {
    const text = "alpha beta gamma";
    await textVectorOf(db(), text);
    // This one waits for its new word, and meanwhile a text with more new words than the cache
    // holds clears it (its first step, before any await of its own).
    const waiting = textVectorOf(db(), `${text} zzwaitingword`);
    const letters = (n: number) => Array.from({ length: 4 }, (_, i) => String.fromCharCode(97 + (Math.floor(n / 26 ** i) % 26))).join("");
    const words = Array.from({ length: 52_000 }, (_, n) => `${n < 26_000 ? "q" : "r"}${letters(n % 26_000)}`);
    const flood: TextTokens = {
      words,
      spelled: words.map((_, k) => `${Math.min(k + 1, 16_383)}C`),
      starts: Int32Array.from(words, (_, k) => k + 1),
      first: Int32Array.from({ length: words.length + 1 }, (_, k) => k),
      span: new Int32Array(words.length).fill(1),
      segments: [],
      after: new Int32Array(0),
    };
    const clearing = textVectorOf(db(), words.join(" "), flood);
    const [r] = await query<{ same: boolean }>(sql`select ${await waiting}::tsvector = setweight(to_tsvector('english', ${`${text} zzwaitingword`}), 'C') as same`);
    expect(r!.same).toBe(true);
    await clearing;
  }, 60_000);

  test("numbers are made here once the database's rule for them is known: no look-up, the same vector", async () => {
    // A client of its own (a view of the same database), so that its rule and cache start empty,
    // that counts the statements the vector sends.
    let statements = 0;
    const counting = new Proxy(db(), {
      get(target, key, receiver) {
        if (key !== "execute") return Reflect.get(target, key, receiver);
        return (...args: Parameters<typeof target.execute>) => {
          statements++;
          return target.execute(...args);
        };
      },
    });
    const vectorOf = async (text: string) => {
      const made = await textVectorOf(counting, text);
      const [r] = await query<{ same: boolean }>(sql`select ${made}::tsvector = setweight(to_tsvector('english', ${text}), 'C') as same`);
      return r!.same;
    };
    // Before the rule is known, numbers are looked up with the other new words.
    expect(await vectorOf("Order 1001 of the spring catalogue, 0042 items")).toBe(true);
    expect(await numbersRule(counting).answered).toBe(true);
    statements = 0;
    // Known words and numbers never seen before, leading zeros and longer than any integer type: no statement.
    for (const text of ["Order 1002 of the spring catalogue", "0043 items, 98765432109876543210987654321 of the catalogue", "Order 7 catalogue 0 0 00 000"]) {
      expect(await vectorOf(text)).toBe(true);
    }
    expect(statements).toBe(0);
    // A new word still asks, numbers beside it or not.
    expect(await vectorOf("Order 1003 of the autumn catalogue")).toBe(true);
    expect(statements).toBe(1);
  });

  test("the parser's worker splits the text that is indexed, as tokenizeText does", async () => {
    const parser = new MailParser({ workers: 1 });
    try {
      for (const body of ["Hello there, see bob@example.com about the well-known café.\r\n", "Meet <b>now</b>\r\n"]) {
        const raw = new TextEncoder().encode(rfc822({ From: "ann@example.com", To: "b@example.com", Subject: "S", "Content-Type": "text/plain; charset=utf-8" }, body));
        const outcome = await parser.parse(raw, undefined, { tokens: true });
        if (!outcome.ok) throw new Error(outcome.reason);
        expect(outcome.textTokens).toEqual(tokenizeText(outcome.extractedText));
        expect(outcome.textTokens === null).toBe(body.includes("<"));
        // Not asked (SEARCH_VECTOR=database): the worker does not split the text at all.
        const plain = await parser.parse(raw);
        if (!plain.ok) throw new Error(plain.reason);
        expect(plain.textTokens).toBeUndefined();
      }
    } finally {
      await parser.close();
    }
  });

  test("a text with a tag, a NUL or a chunk PostgreSQL would skip is left to it whole", () => {
    for (const text of ["see <b>this</b>", "a <!-- x y --> b", "nul\0here", `word ${"x".repeat(2001)} word`, "lone \ud800 surrogate"]) {
      expect(tokenizeText(text)).toBeNull();
    }
  });
});

describe("a message's full-text vector", () => {
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
  const asGenerated = async (id: string) => {
    const [r] = await query<{ same: boolean; hits: boolean }>(sql`
      select search_tsv = (
        setweight(to_tsvector('english', left(subject, 2000)), 'A')
        || setweight(to_tsvector('english', left(from_address || ' ' || to_address || ' ' || translate(cc::text, '[]",', '    '), 4000)
          || ' ' || translate(left(from_address || ' ' || to_address || ' ' || cc::text, 4000), '@.[]",', '      ')), 'B')
        || setweight(to_tsvector('english', left(attachment_names, 4000) || ' ' || translate(left(attachment_names, 4000), '-_.', '   ')), 'B')
        || setweight(to_tsvector('english', left(coalesce(extracted_text, text_body, ''), 200000)), 'C')
      ) as same, search_tsv @@ websearch_to_tsquery('english', 'meetings') as hits
      from messages where id = ${id}`);
    return r!;
  };

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
      await storeContent(db(), id, processed(text), "ann@example.com", undefined, by);
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
