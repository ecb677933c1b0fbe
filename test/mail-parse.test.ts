import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { FALLBACK_HEAD_LIMITS, MAX_PARTS, MailParser, PARSE_DEFAULTS, readHead } from "../src/mail/parse/index.ts";
import { parseInline } from "../src/mail/parse/convert.ts";
import type { ParseOutcome, ParsedMail } from "../src/mail/types.ts";

// ---------------------------------------------------------------- helpers

const FIXTURES = new URL("./fixtures/mime/", import.meta.url);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(name, FIXTURES)));
const enc = new TextEncoder();
/** Text with CRLF line endings, as on the wire. */
const crlf = (s: string) => enc.encode(s.replace(/\r?\n/g, "\r\n"));

let pool: MailParser;
beforeAll(() => {
  pool = new MailParser();
});
afterAll(async () => {
  await pool.close();
});

/**
 * What every parse must do: resolve, never reject. How long parses take and how long the
 * event loop waits meanwhile are figures, printed by bench/parse-budget.ts, not asserted here.
 */
async function watched(raw: Uint8Array, parser = pool) {
  const outcome: ParseOutcome = await parser.parse(raw);
  return { outcome };
}

/** The parsed message, failing the test with the reason when the parse failed. */
async function parsedOk(raw: Uint8Array): Promise<ParsedMail> {
  const { outcome } = await watched(raw);
  if (!outcome.ok) throw new Error(`expected a parsed message, got ${outcome.reason}`);
  return outcome.mail;
}

async function failed(raw: Uint8Array, parser = pool) {
  const { outcome } = await watched(raw, parser);
  if (outcome.ok) throw new Error("expected a failure, got a parsed message");
  return outcome;
}

const header = (mail: { headers: { key: string; value: string }[] }, key: string) =>
  mail.headers.find((h) => h.key.toLowerCase() === key.toLowerCase())?.value;

function noControlChars(headers: { key: string; value: string }[]) {
  for (const h of headers) {
    expect(h.key).not.toMatch(/[\r\n\0]/);
    expect(h.value).not.toMatch(/[\r\n\0]/);
  }
}

// ---------------------------------------------------------------- generators (big inputs are built here, not committed)

function manyParts(n: number): Uint8Array {
  let s = "From: digest@example.com\r\nSubject: Digest of many parts\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"p\"\r\n\r\n";
  for (let i = 0; i < n; i++) {
    s += `--p\r\nContent-Type: text/plain; name="part-${i}.txt"\r\nContent-Disposition: attachment; filename="part-${i}.txt"\r\n\r\npart number ${i}\r\n`;
  }
  return enc.encode(`${s}--p--\r\n`);
}

function nested(depth: number): Uint8Array {
  let s = "From: deep@example.com\r\nSubject: Nested deep\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b0\"\r\n\r\n";
  let tail = "";
  for (let i = 1; i <= depth; i++) {
    s += `--b${i - 1}\r\nContent-Type: multipart/mixed; boundary="b${i}"\r\n\r\n`;
    tail = `--b${i - 1}--\r\n${tail}`;
  }
  return enc.encode(`${s}--b${depth}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\ndeep text\r\n--b${depth}--\r\n${tail}`);
}

/** A format=flowed body of about `bytes`: soft breaks (trailing space) inside paragraphs. */
function flowed(bytes: number): Uint8Array {
  const line = "This paragraph goes on and on across soft line breaks \r\n";
  const paragraph = `${line.repeat(40)}end of paragraph.\r\n`;
  const head = "From: flow@example.com\r\nSubject: Flowed\r\nContent-Type: text/plain; charset=utf-8; format=flowed\r\n\r\n";
  return enc.encode(head + paragraph.repeat(Math.ceil(bytes / paragraph.length)));
}

function hugeHeaderLine(bytes: number): Uint8Array {
  return enc.encode(`From: big@example.com\r\nSubject: Huge header\r\nX-Huge: ${"a".repeat(bytes)}\r\n\r\nbody after the huge header\r\n`);
}

function manyHeaders(n: number): Uint8Array {
  let s = "Subject: Many header fields\r\n";
  for (let i = 0; i < n; i++) s += `X-Field-${i}: value ${i}\r\n`;
  return enc.encode(`${s}\r\nbody after many fields\r\n`);
}

/** Deterministic pseudo-random bytes. */
function garbage(bytes: number, seed = 7): Uint8Array {
  const out = new Uint8Array(bytes);
  let x = seed;
  for (let i = 0; i < bytes; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** About two seconds of mailparser work in 30 MB: a text body of nothing but line breaks. */
function pathological(): Uint8Array {
  const head = enc.encode("From: slow@example.com\r\nSubject: Pathological\r\n\r\n");
  const out = new Uint8Array(head.length + 30_000_000).fill(0x0a);
  out.set(head);
  return out;
}

// ---------------------------------------------------------------- the pool

describe("MailParser pool", () => {
  test("parses in a worker: headers, addresses, text and attachment bytes", async () => {
    const mail = await parsedOk(
      crlf(`From: =?UTF-8?Q?Ren=C3=A9e?= <Renee@Example.COM>
To: agent@mail.example.com, Other <OTHER@Example.org>
Cc: cc@example.net
Reply-To: replies@example.com
Subject: Invoice
Message-ID: <m1@example.com>
In-Reply-To: <m0@example.com>
References: <a@example.com> <m0@example.com>
Date: Tue, 02 Jan 2024 10:00:00 +0000
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="b"

--b
Content-Type: text/plain; charset=utf-8

Please find the invoice attached.
--b
Content-Type: application/PDF; name="invoice.pdf"
Content-Disposition: attachment; filename="invoice.pdf"
Content-Transfer-Encoding: base64

JVBERi0xLjQKJeLjz9MK
--b--
`),
    );
    expect(mail.from).toEqual({ address: "renee@example.com", name: "Renée" });
    expect(mail.to).toEqual([
      { address: "agent@mail.example.com", name: "" },
      { address: "other@example.org", name: "Other" },
    ]);
    expect(mail.cc.map((a) => a.address)).toEqual(["cc@example.net"]);
    expect(mail.replyTo.map((a) => a.address)).toEqual(["replies@example.com"]);
    expect(mail.messageId).toBe("<m1@example.com>");
    expect(mail.inReplyTo).toBe("<m0@example.com>");
    expect(mail.references).toEqual(["<a@example.com>", "<m0@example.com>"]);
    expect(mail.date?.toISOString()).toBe("2024-01-02T10:00:00.000Z");
    expect(mail.subject).toBe("Invoice");
    expect(mail.text?.trim()).toBe("Please find the invoice attached.");
    expect(mail.html).toBeNull();
    expect(mail.headers.map((h) => h.key).slice(0, 3)).toEqual(["From", "To", "Cc"]);
    const [pdf] = mail.attachments;
    expect(pdf?.filename).toBe("invoice.pdf");
    expect(pdf?.contentType).toBe("application/pdf");
    expect(pdf?.disposition).toBe("attachment");
    expect(pdf?.content).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(pdf!.content).toString("latin1")).toBe("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n");
    expect(pdf?.size).toBe(pdf!.content.byteLength);
  });

  test("parses a view into a bigger buffer (only the view is sent)", async () => {
    const big = new Uint8Array(1024 * 1024);
    const msg = crlf("Subject: inside a view\n\nviewed body\n");
    big.set(msg, 4096);
    const mail = await parsedOk(big.subarray(4096, 4096 + msg.length));
    expect(mail.subject).toBe("inside a view");
    expect(mail.text?.trim()).toBe("viewed body");
  });

  test(
    "a pathological message is parsed off the event loop: timers and other parses go on meanwhile",
    async () => {
      let pending = true;
      let timerRanWhilePending = false;
      // A parse on the main thread would hold the loop until it settled: this timer would run after it.
      setTimeout(() => {
        timerRanWhilePending = pending;
      }, 0);
      const slow = pool.parse(pathological()).finally(() => {
        pending = false;
      });
      const quick = await pool.parse(crlf("Subject: meanwhile\n\nanswered while the other parse runs\n"));
      expect(quick.ok && quick.mail.subject).toBe("meanwhile");
      expect(pending).toBe(true);
      const outcome = await slow;
      expect(timerRanWhilePending).toBe(true);
      // On a slow machine this may run out of budget; either way it resolved.
      if (outcome.ok) expect(outcome.mail.text?.length).toBeGreaterThan(1_000_000);
      else expect(outcome.reason).toBe("parse_timeout");
    },
    30_000,
  );

  test(
    "a parse over its time budget is terminated, resolves parse_timeout with the head, and the worker is replaced",
    async () => {
      // 30 MB of blank lines takes seconds; 1 s leaves the ordinary mail after it room on a busy machine.
      const parser = new MailParser({ workers: 1, timeoutMs: 1_000 });
      try {
        const timedOut = await failed(pathological(), parser);
        expect(timedOut.reason).toBe("parse_timeout");
        expect(header(timedOut, "subject")).toBe("Pathological");
        // The only worker had seconds of work left: had it been kept, this parse would have
        // waited behind that work past its own 1 s budget and resolved parse_timeout too.
        const next = await parser.parse(crlf("Subject: after the timeout\n\nstill working\n"));
        expect(next.ok && next.mail.subject).toBe("after the timeout");
      } finally {
        await parser.close();
      }
    },
    30_000,
  );

  test("input over the size budget resolves too_large with the head, without parsing", async () => {
    const parser = new MailParser({ maxBytes: 1024 });
    try {
      const raw = crlf(`Subject: too big\nFrom: big@example.com\n\n${"x".repeat(2000)}\n`);
      const tooLarge = await failed(raw, parser);
      expect(tooLarge.reason).toBe("too_large");
      expect(tooLarge.headers).toEqual([
        { key: "Subject", value: "too big" },
        { key: "From", value: "big@example.com" },
      ]);
      expect((await parser.parse(crlf("Subject: small\n\nok\n"))).ok).toBe(true);
    } finally {
      await parser.close();
    }
  });

  test("the default size budget is 32 MiB", async () => {
    const raw = new Uint8Array(PARSE_DEFAULTS.maxBytes + 1).fill(0x61);
    raw.set(crlf("Subject: just over\n\n"));
    const tooLarge = await failed(raw);
    expect(tooLarge.reason).toBe("too_large");
    expect(header(tooLarge, "subject")).toBe("just over");
  });

  test("a throw in the parser resolves parse_error with the head", async () => {
    const error = await failed(manyParts(MAX_PARTS + 500));
    expect(error.reason).toStartWith("parse_error: ");
    expect(error.reason).toContain("child nodes");
    expect(header(error, "subject")).toBe("Digest of many parts");
  });

  test("requests beyond the pool size wait their turn and each gets its own result", async () => {
    const parser = new MailParser({ workers: 1 });
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, (_, i) => parser.parse(crlf(`Subject: message ${i}\n\nbody ${i}\n`))),
      );
      expect(outcomes.map((o) => o.ok && o.mail.subject)).toEqual(Array.from({ length: 6 }, (_, i) => `message ${i}`));
    } finally {
      await parser.close();
    }
  });

  test(
    "close() resolves running and queued parses as parser_closed, and later ones too",
    async () => {
      const parser = new MailParser({ workers: 1 });
      const running = parser.parse(pathological());
      const queued = parser.parse(crlf("Subject: queued\n\nwaiting\n"));
      await Bun.sleep(150); // let the first one reach the worker
      await parser.close();
      const [r, q] = await Promise.all([running, queued]);
      expect(r).toMatchObject({ ok: false, reason: "parser_closed" });
      expect(q).toMatchObject({ ok: false, reason: "parser_closed", headers: [{ key: "Subject", value: "queued" }] });
      expect(await parser.parse(crlf("Subject: late\n\nx\n"))).toMatchObject({ ok: false, reason: "parser_closed" });
    },
    30_000,
  );

  test("rejects options that are not positive numbers", () => {
    expect(() => new MailParser({ workers: 0 })).toThrow(RangeError);
    expect(() => new MailParser({ timeoutMs: -1 })).toThrow(RangeError);
    expect(() => new MailParser({ maxBytes: Number.NaN })).toThrow(RangeError);
  });

  test(
    "starts its worker from another working directory, as under src/main.ts, and lets the process exit",
    async () => {
      // The worker URL comes from import.meta.url, so neither the cwd nor the entry point matters;
      // an idle pool that was never closed must not keep the process alive either.
      const index = fileURLToPath(new URL("../src/mail/parse/index.ts", import.meta.url));
      const script = `
        import { MailParser } from ${JSON.stringify(index)};
        const parser = new MailParser();
        const outcome = await parser.parse(new TextEncoder().encode("Subject: from elsewhere\\r\\n\\r\\nhello\\r\\n"));
        console.log(JSON.stringify({ ok: outcome.ok, subject: outcome.ok ? outcome.mail.subject : outcome.reason }));
      `;
      const child = Bun.spawn([process.execPath, "-e", script], { cwd: tmpdir(), stdout: "pipe", stderr: "pipe" });
      const killer = setTimeout(() => child.kill(), 20_000);
      const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
      clearTimeout(killer);
      expect(err).toBe("");
      expect(code).toBe(0);
      expect(JSON.parse(out.trim())).toEqual({ ok: true, subject: "from elsewhere" });
    },
    30_000,
  );
});

// ---------------------------------------------------------------- the head reader

describe("head reader", () => {
  test("reads fields in order, repeated keys kept, key as written, values unfolded and decoded", () => {
    const fields = readHead(
      crlf(`Received: from a
\tby b
Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?= and
 =?ISO-8859-1?Q?caf=E9?=
X-Tag: one
x-tag: two
Subject : second subject

Body: not a header
`),
    );
    expect(fields).toEqual([
      { key: "Received", value: "from a\tby b" },
      { key: "Subject", value: "Grüße and café" },
      { key: "X-Tag", value: "one" },
      { key: "x-tag", value: "two" },
      { key: "Subject", value: "second subject" },
    ]);
  });

  test("never lets CR, LF or NUL through, even from encoded words", () => {
    const fields = readHead(crlf("X-Evil: =?UTF-8?Q?a=0D=0ABcc:_x@example.com=00?=\nX-Lone-CR: a\rb\n\n"));
    expect(fields).toEqual([
      { key: "X-Evil", value: "a Bcc: x@example.com" },
      { key: "X-Lone-CR", value: "a b" },
    ]);
  });

  test("decodes raw 8-bit values as UTF-8, or Windows-1252 when they are not UTF-8", () => {
    const raw = Buffer.concat([Buffer.from("X-A: Grüße\r\nX-B: Caf"), Buffer.from([0xe9, 0x20, 0x80]), Buffer.from("\r\n\r\n")]);
    expect(readHead(raw)).toEqual([
      { key: "X-A", value: "Grüße" },
      { key: "X-B", value: "Café €" },
    ]);
  });

  test("joins adjacent encoded words before decoding, so a split character survives", () => {
    // "日" is E6 97 A5 in UTF-8; encoders split it across words, in B or Q encoding.
    expect(readHead(crlf("Y: =?UTF-8?Q?=E6=97?= =?UTF-8?Q?=A5?=\nZ: =?utf-8?B?5pc=?=\n =?UTF-8?Q?=A5?=\n\n"))).toEqual([
      { key: "Y", value: "日" },
      { key: "Z", value: "日" },
    ]);
  });

  test("skips an mbox From_ line and lines that are not fields", () => {
    const fields = readHead(crlf("From sender@example.com Mon Jan  1 00:00:00 2024\nSubject: mbox\nnot a field\n continuation of junk\nTo: a@example.com\n\n"));
    expect(fields).toEqual([
      { key: "Subject", value: "mbox" },
      { key: "To", value: "a@example.com" },
    ]);
  });

  // How fast it is on these belongs to bench/parse-budget.ts; the test holds the limits.
  test("stays within its limits on hostile heads", () => {
    let s = "";
    for (let i = 0; i < 5000; i++) s += `X-${i}: v\r\n`;
    const [fields, hugeLine, junk] = [enc.encode(`${s}\r\n`), hugeHeaderLine(1_000_000), garbage(32 * 1024 * 1024)];
    expect(readHead(fields)).toHaveLength(FALLBACK_HEAD_LIMITS.maxFields);
    // A field still open at the byte limit is dropped rather than reported cut short.
    expect(readHead(hugeLine)).toEqual([
      { key: "From", value: "big@example.com" },
      { key: "Subject", value: "Huge header" },
    ]);
    expect(readHead(junk)).toEqual([]);
  });

  test("a message with no head has no fields", () => {
    expect(readHead(crlf("Hi team,\n\nno headers here\n"))).toEqual([]);
    expect(readHead(new Uint8Array())).toEqual([]);
  });
});

// ---------------------------------------------------------------- the malformed-mail corpus

describe("malformed-mail corpus", () => {
  test("malformed headers: junk lines skipped, keys as written, values decoded and cleaned", async () => {
    const mail = await parsedOk(fixture("malformed-headers.eml"));
    noControlChars(mail.headers);
    expect(mail.headers.map((h) => h.key)).toEqual([
      "Return-Path",
      "Received",
      "From",
      "To",
      "Subject",
      "X-Injected",
      "X-Raw-UTF8",
      "X-Raw-Latin1",
      "X-Split-Char",
      "X-Empty",
      "x-repeated",
      "X-Repeated",
      "Message-ID",
      "Date",
      "MIME-Version",
      "Content-Type",
    ]);
    expect(mail.subject).toBe("🌎 weather report — part ✓");
    expect(header(mail, "received")).toBe("from mx.example.org (mx.example.org [192.0.2.1])\tby mail.example.com with ESMTP id abc123;\tTue, 02 Jan 2024 10:00:00 +0000");
    expect(header(mail, "x-injected")).toBe("evil Bcc: victim@example.com");
    expect(header(mail, "x-raw-utf8")).toBe("Grüße aus Köln");
    expect(header(mail, "x-raw-latin1")).toBe("Café crème");
    expect(header(mail, "x-split-char")).toBe("日 本");
    expect(header(mail, "x-empty")).toBe("");
    expect(mail.headers.filter((h) => h.key.toLowerCase() === "x-repeated").map((h) => h.value)).toEqual(["one", "two"]);
    expect(mail.from).toEqual({ address: "jorg.muller@example.com", name: "Jörg Müller" });
    expect(mail.to).toEqual([{ address: "agent@mail.example.com", name: "Agent" }]);
    expect(mail.text?.trim()).toBe("Hello from the malformed headers fixture.");
  });

  test("truncated message cut mid-part: the text and the partial attachment survive", async () => {
    const mail = await parsedOk(fixture("malformed-truncated.eml"));
    expect(mail.subject).toBe("Report attached (truncated in transit)");
    expect(mail.text?.trim()).toBe("Here is the quarterly report.");
    expect(mail.attachments).toHaveLength(1);
    expect(mail.attachments[0]).toMatchObject({ filename: "report.pdf", contentType: "application/pdf" });
    expect(Buffer.from(mail.attachments[0]!.content.subarray(0, 9)).toString()).toBe("%PDF-1.4\n");
    expect(mail.attachments[0]!.size).toBeLessThan(9 + 256 * 8);
  });

  test("8-bit body without charset: UTF-8 when valid, Windows-1252 otherwise", async () => {
    const latin = await parsedOk(fixture("malformed-8bit-latin1-no-charset.eml"));
    expect(latin.text?.trim()).toBe("Café crème brûlée “maison” – 5€");
    const utf8 = await parsedOk(fixture("malformed-8bit-utf8-no-charset.eml"));
    expect(utf8.text?.trim()).toBe("Café crème brûlée “maison” – 5€");
    // The headers still say what the sender wrote, not what the repair handed the parser.
    expect(header(latin, "content-type")).toBe("text/plain");
  });

  test(
    "nested multipart with 1,500 parts parses; more than MAX_PARTS is a parse_error",
    async () => {
      const mail = await parsedOk(manyParts(1500));
      expect(mail.attachments).toHaveLength(1500);
      expect(mail.attachments[1499]).toMatchObject({ filename: "part-1499.txt", contentType: "text/plain", size: 16 });
      const tooMany = await failed(manyParts(MAX_PARTS + 1));
      expect(tooMany.reason).toStartWith("parse_error: ");
    },
    30_000,
  );

  test("nesting depth 100 parses to the innermost text; depth 1,000 resolves too", async () => {
    const mail = await parsedOk(nested(100));
    expect(mail.subject).toBe("Nested deep");
    expect(mail.text?.trim()).toBe("deep text");
    const deeper = await watched(nested(1000));
    if (deeper.outcome.ok) expect(deeper.outcome.mail.text?.trim()).toBe("deep text");
    else expect(deeper.outcome.reason).toStartWith("parse_error: ");
  });

  test("header-only message/rfc822 attachment", async () => {
    const mail = await parsedOk(fixture("malformed-rfc822-header-only.eml"));
    expect(mail.text?.trim()).toBe("See the attached message.");
    expect(mail.attachments).toHaveLength(1);
    const [inner] = mail.attachments;
    expect(inner).toMatchObject({ filename: "original.eml", contentType: "message/rfc822", disposition: "attachment" });
    expect(Buffer.from(inner!.content).toString()).toContain("Subject: the original");
  });

  test("multipart with a missing or wrong boundary: the boundary is recovered from the body", async () => {
    for (const name of ["malformed-multipart-no-boundary.eml", "malformed-multipart-wrong-boundary.eml"]) {
      const mail = await parsedOk(fixture(name));
      expect(mail.text?.trim()).toBe("Plain version of the newsletter.");
      expect(mail.html?.trim()).toBe("<p>HTML version of the newsletter.</p>");
    }
    const none = await parsedOk(fixture("malformed-multipart-no-delimiter.eml"));
    expect(none.text?.trim()).toBe("Just some text where the parts should have been.");
    expect(header(none, "content-type")).toBe('multipart/mixed; boundary="never-used"');
  });

  test("2 MB format=flowed body: soft line breaks are joined", async () => {
    const raw = flowed(2 * 1024 * 1024);
    expect(raw.length).toBeGreaterThan(2 * 1024 * 1024);
    const mail = await parsedOk(raw);
    const paragraphs = mail.text!.trim().split("\n");
    expect(paragraphs.length).toBeGreaterThan(500);
    expect(paragraphs[0]).toStartWith("This paragraph goes on and on across soft line breaks This paragraph");
    expect(paragraphs[0]).toEndWith("end of paragraph.");
  });

  test("a 1 MB header line parses; a 2 MB one is a parse_error that still reports the head", async () => {
    const mail = await parsedOk(hugeHeaderLine(1_000_000));
    expect(header(mail, "x-huge")).toHaveLength(1_000_000);
    expect(mail.subject).toBe("Huge header");
    expect(mail.text?.trim()).toBe("body after the huge header");
    const tooBig = await failed(hugeHeaderLine(2_000_000));
    expect(tooBig.reason).toStartWith("parse_error: ");
    expect(tooBig.headers).toEqual([
      { key: "From", value: "big@example.com" },
      { key: "Subject", value: "Huge header" },
    ]);
  });

  test("10,000 header fields: all kept in order", async () => {
    const mail = await parsedOk(manyHeaders(10_000));
    expect(mail.headers).toHaveLength(10_001);
    expect(mail.headers[10_000]).toEqual({ key: "X-Field-9999", value: "value 9999" });
    expect(mail.subject).toBe("Many header fields");
    expect(mail.text?.trim()).toBe("body after many fields");
  });

  test("ISO-8859-1 message", async () => {
    const mail = await parsedOk(fixture("malformed-iso-8859-1.eml"));
    expect(mail.subject).toBe("Résumé de la réunion");
    expect(mail.from).toEqual({ address: "francois@example.fr", name: "François Pérez" });
    expect(mail.text).toBe("Voilà le résumé, à bientôt.\nFrançois\n");
  });

  test("Windows-1252 message (quoted-printable)", async () => {
    const mail = await parsedOk(fixture("malformed-windows-1252.eml"));
    expect(mail.subject).toBe("€100 – “final” invoice");
    expect(mail.text?.trim()).toBe("Total: €100 – it’s “final”.");
  });

  test("ISO-2022-JP and Shift_JIS messages", async () => {
    for (const name of ["malformed-iso-2022-jp.eml", "malformed-shift-jis.eml"]) {
      const mail = await parsedOk(fixture(name));
      expect(mail.subject).toBe("会議の件");
      expect(mail.text?.trim()).toBe("こんにちは、世界。明日の会議は十時からです。");
    }
  });

  test("unknown charset: words and body decoded as UTF-8 or, failing that, Windows-1252", async () => {
    const mail = await parsedOk(fixture("malformed-unknown-charset.eml"));
    expect(mail.subject).toBe("café au lait");
    expect(mail.text?.trim()).toBe("Café au lait, s'il vous plaît.");
  });

  test("a message with no headers at all is all body", async () => {
    const mail = await parsedOk(fixture("malformed-no-headers.eml"));
    expect(mail.headers).toEqual([]);
    expect(mail.subject).toBeNull();
    expect(mail.from).toBeNull();
    expect(mail.text).toBe("Hi team,\n\nThe deploy finished at 10:42 and all checks are green.\n");
  });

  test("an empty message", async () => {
    const mail = await parsedOk(fixture("malformed-empty.eml"));
    expect(mail).toMatchObject({ headers: [], subject: null, from: null, to: [], text: null, html: null, attachments: [] });
  });

  test(
    "binary garbage resolves, and no NUL reaches the text",
    async () => {
      for (const raw of [fixture("malformed-garbage.eml"), garbage(8 * 1024 * 1024, 99)]) {
        const { outcome } = await watched(raw);
        const headers = outcome.ok ? outcome.mail.headers : outcome.headers;
        noControlChars(headers);
        if (outcome.ok) {
          expect(outcome.mail.text ?? "").not.toContain("\0");
          expect(outcome.mail.html ?? "").not.toContain("\0");
        } else expect(outcome.reason).toMatch(/^(parse_error: |parse_timeout$)/);
      }
    },
    30_000,
  );

  test("parseInline (no pool) gives the same result as the pool", async () => {
    const raw = fixture("malformed-headers.eml");
    const inline = await parseInline(raw);
    const pooled = await parsedOk(raw);
    expect(pooled).toEqual(inline);
  });
});
