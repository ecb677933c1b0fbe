import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { splitLeaves } from "../src/mail/parse/body-ranges.ts";
import { parseCut, parseInline } from "../src/mail/parse/convert.ts";
import type { ParsedMail } from "../src/mail/types.ts";
import { benchMessage, smallBenchMessage } from "../bench/lib.ts";

/**
 * The parser's worker cuts large bodies out of what mailparser reads and decodes them itself
 * (src/mail/parse/convert.ts cutBodies): base64 attachments, and inline UTF-8 text and HTML.
 * Whatever it cuts, the parse must be the one mailparser gives of the whole message.
 */
const enc = new TextEncoder();
const crlf = (s: string) => s.replace(/\r?\n/g, "\r\n");

/** A parse as comparable data: bytes as hex, dates as ISO strings. */
function plain(mail: ParsedMail): unknown {
  return JSON.parse(
    JSON.stringify({ ...mail, attachments: mail.attachments.map((a) => ({ ...a, content: Buffer.from(a.content).toString("hex") })) }, (_key, value) =>
      value instanceof Date ? value.toISOString() : value,
    ),
  );
}

async function sameAsWhole(raw: Uint8Array): Promise<ParsedMail> {
  const cut = await parseInline(raw);
  const whole = await parseInline(raw, { cut: false });
  expect(plain(cut)).toEqual(plain(whole));
  return cut;
}

/** Prose of about `n` characters with accents, a euro sign and an emoji, lines of ~60. */
function prose(n: number, seed = 1): string {
  const words = ["café", "naïve", "report", "€42", "the", "quarter", "👍", "figures", "Zoë", "and", "déjà", "vu", "plan"];
  let out = "";
  let line = "";
  let x = seed;
  while (out.length < n) {
    x = (x * 1103515245 + 12345) >>> 0;
    line += (line ? " " : "") + words[x % words.length];
    if (line.length > 60) {
      out += `${line}\n`;
      line = "";
    }
  }
  return out + line;
}

/** Quoted-printable of UTF-8 text, 76-column lines with soft breaks that may split a character. */
function qp(text: string, { trailingBlanks = false } = {}): string {
  const lines: string[] = [];
  for (const source of text.split("\n")) {
    let line = "";
    for (const byte of enc.encode(source)) {
      const token = byte >= 33 && byte <= 126 && byte !== 61 ? String.fromCharCode(byte) : byte === 32 ? " " : `=${byte.toString(16).toUpperCase().padStart(2, "0")}`;
      if (line.length + token.length > 75) {
        lines.push(`${line}=`);
        line = "";
      }
      line += token;
    }
    lines.push(trailingBlanks ? `${line} \t` : line);
  }
  return lines.join("\r\n");
}

const b64 = (bytes: Uint8Array | string) => (Buffer.from(typeof bytes === "string" ? enc.encode(bytes) : bytes).toString("base64").match(/.{1,76}/g) ?? []).join("\r\n");
const head = "From: Zoë <zoe@example.com>\r\nTo: agent@mail.localhost\r\nSubject: cut\r\nMessage-ID: <cut@example.com>\r\nMIME-Version: 1.0\r\n";
const attachment = b64(new Uint8Array(4000).map((_, i) => (i * 7) % 256));

function multipart(type: string, parts: string[], boundary = "b1"): string {
  return `${head}Content-Type: multipart/${type}; boundary="${boundary}"\r\n\r\n${parts.map((p) => `--${boundary}\r\n${p}\r\n`).join("")}--${boundary}--\r\n`;
}
const part = (headers: string, body: string) => `${crlf(headers)}\r\n\r\n${body}`;
const bytes = (s: string) => new Uint8Array(Buffer.from(s, "latin1"));
const utf8 = (s: string) => enc.encode(s);

describe("bodies cut out of what mailparser reads", () => {
  const cases: [string, Uint8Array][] = [
    [
      "quoted-printable text (characters split by soft breaks, blanks ending lines) with an attachment",
      bytes(
        multipart("mixed", [
          part("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable", qp(prose(3000), { trailingBlanks: true })),
          part("Content-Type: application/pdf; name=a.pdf\nContent-Disposition: attachment; filename=a.pdf\nContent-Transfer-Encoding: base64", attachment),
        ]),
      ),
    ],
    [
      "alternative: base64 text and quoted-printable HTML",
      bytes(
        multipart("alternative", [
          part('Content-Type: text/plain; charset="UTF-8"\nContent-Transfer-Encoding: base64', b64(prose(2000, 3))),
          part("Content-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: quoted-printable", qp(`<html><body><p>${prose(3000, 5).replace(/\n/g, "</p>\n<p>")}</p></body></html>`)),
        ]),
      ),
    ],
    ["one 8-bit text part with LF line ends", utf8(`${head}Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n${prose(2500, 7)}\n\n\n`.replace(/\r\n/g, "\n"))],
    ["one 7-bit HTML part, CRLF, no final line break", bytes(`${head}Content-Type: text/html\r\n\r\n${crlf(`<div>${"plain words and more ".repeat(120)}</div>\n<p>end</p>`)}`)],
    ["US-ASCII text with bytes that are not UTF-8", bytes(`${head}Content-Type: text/plain; charset=us-ascii\r\nContent-Transfer-Encoding: 8bit\r\n\r\n${"caf\xe9 ok \xff\xfe bad \xc3 half\r\n".repeat(60)}`)],
    ["text that decodes to nothing (soft breaks only)", bytes(multipart("mixed", [part("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable", "=\r\n".repeat(500)), part("Content-Type: application/octet-stream\nContent-Transfer-Encoding: base64", attachment)]))],
    ["text with NUL bytes, lone CRs and CR CR LF", bytes(`${head}Content-Type: text/plain; charset=utf-8\r\n\r\n${"a\0b\rc\r\r\nline\r\n".repeat(150)}`)],
    [
      "several text parts, one too small to cut, joined as mailparser joins them",
      bytes(
        multipart("mixed", [
          part("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable", qp(prose(1500, 11))),
          part("Content-Type: text/plain; charset=utf-8", "small part\r\n"),
          part("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64", b64(prose(1800, 13))),
        ]),
      ),
    ],
    [
      "nested: related inside mixed, folded Content-Type",
      bytes(
        `${head}Content-Type: multipart/mixed; boundary=outer\r\n\r\n--outer\r\nContent-Type: multipart/related; boundary=inner\r\n\r\n--inner\r\nContent-Type: text/html;\r\n charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n${qp(`<p>${prose(2000, 17)}</p>`)}\r\n--inner--\r\n--outer\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\nContent-ID: <i1>\r\n\r\n${attachment}\r\n--outer--\r\n`,
      ),
    ],
    ["quoted-printable with lower-case escapes, '= ' soft breaks and an '=' ending the body", bytes(`${head}Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n${"caf=c3=a9 and =C3=A9t=C3=A9 = \r\nnext line =\r\n".repeat(60)}end=`)],
    // Not cut (the parser would read them otherwise), and still the same parse.
    ["format=flowed", bytes(`${head}Content-Type: text/plain; charset=utf-8; format=flowed\r\n\r\n${"flowed line \r\n".repeat(200)}`)],
    ["ISO-8859-1", bytes(`${head}Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n${"caf\xe9 cr\xe8me\r\n".repeat(150)}`)],
    ["an inline text part with a file name", bytes(multipart("mixed", [part("Content-Type: text/plain; charset=utf-8\nContent-Disposition: inline; filename=notes.txt", crlf(prose(2000, 19)))]))],
    ["a text attachment", bytes(multipart("mixed", [part("Content-Type: text/plain; charset=utf-8\nContent-Disposition: attachment", crlf(prose(2000, 23)))]))],
    ["two Content-Types", bytes(`${head}Content-Type: text/plain; charset=utf-8\r\nContent-Type: text/plain; charset=iso-8859-2\r\n\r\n${"\xb1\xe6 text\r\n".repeat(200)}`)],
    // Blanks after a delimiter: this splitter takes the line, mailparser does not; the markers
    // do not come back where they were cut, and the message is parsed whole.
    [
      "delimiter lines with trailing blanks",
      bytes(multipart("mixed", [part("Content-Type: text/plain; charset=utf-8", crlf(prose(2000, 31)))]).replace(/^--b1\r\n/m, "--b1  \r\n")),
    ],
    ["a text part with a name parameter", bytes(multipart("mixed", [part('Content-Type: text/plain; charset=utf-8; name="a.txt"', crlf(prose(2000, 29)))]))],
  ];

  test.each(cases)("%s: the same parse as mailparser's of the whole message", async (_name, raw) => {
    await sameAsWhole(raw);
  });

  test("cuts exactly the inline UTF-8 text and HTML parts it can vouch for, and puts them back", async () => {
    const cut = (name: string) => splitLeaves(cases.find(([n]) => n.startsWith(name))![1])!.map((l) => l.inlineText);
    // Whatever was cut came back where mailparser put it: no parse of the whole message.
    for (const [name, raw] of cases.slice(0, 10)) expect({ name, cut: (await parseCut(raw, splitLeaves(raw)!)) !== null }).toEqual({ name, cut: true });
    expect(cut("quoted-printable text")).toEqual([true, false]);
    expect(cut("alternative")).toEqual([true, true]);
    expect(cut("one 8-bit text part")).toEqual([true]);
    expect(cut("one 7-bit HTML part")).toEqual([true]);
    expect(cut("US-ASCII")).toEqual([true]);
    expect(cut("nested")).toEqual([true, false]);
    for (const name of ["format=flowed", "ISO-8859-1", "an inline text part with a file name", "a text attachment", "two Content-Types", "a text part with a name parameter"]) {
      expect(cut(name)).toEqual([false]);
    }
    const blanks = cases.find(([n]) => n.startsWith("delimiter lines"))![1];
    expect(cut("delimiter lines")).toEqual([true]);
    expect(await parseCut(blanks, splitLeaves(blanks)!)).toBeNull();
  });

  test("the texts come back whole: accents, emoji and line breaks as written", async () => {
    const mail = await sameAsWhole(cases[0]![1]);
    expect(mail.text).toBe(prose(3000));
    expect(mail.attachments).toHaveLength(1);
    expect(mail.attachments[0]!.raw).toBeDefined();
  });

  test("the bench's messages", async () => {
    for (const raw of [await benchMessage("agent@mail.localhost", "prose"), await smallBenchMessage("agent@mail.localhost", "prose")]) {
      expect(splitLeaves(new Uint8Array(raw))!.some((l) => l.inlineText)).toBe(true);
      expect(await parseCut(new Uint8Array(raw), splitLeaves(new Uint8Array(raw))!)).not.toBeNull();
      const mail = await sameAsWhole(new Uint8Array(raw));
      expect(mail.text!.length).toBeGreaterThan(7000);
    }
  });

  test("every message of the MIME fixtures", async () => {
    const dir = join(import.meta.dir, "fixtures", "mime");
    const files = readdirSync(dir).filter((f) => f.endsWith(".eml"));
    expect(files.length).toBeGreaterThan(40);
    for (const file of files) await sameAsWhole(new Uint8Array(readFileSync(join(dir, file))));
  });
});
