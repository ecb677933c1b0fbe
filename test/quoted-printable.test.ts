import { describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { decodeBody } from "../src/mail/parse/body-ranges.ts";
import { parseInline } from "../src/mail/parse/convert.ts";
import { decodeQuotedPrintable, parserLibqp, useFastQuotedPrintable } from "../src/mail/parse/quoted-printable.ts";

const libqp = parserLibqp();
const theirs = (bytes: Uint8Array) => new Uint8Array(libqp.decode(Buffer.from(bytes)));
const ours = (bytes: Uint8Array) => new Uint8Array(decodeQuotedPrintable(bytes));
const latin1 = (s: string) => new Uint8Array(Buffer.from(s, "latin1"));

/** Bytes drawn mostly from what the three steps look at, so their edges meet often. */
function randomBody(seed: number, length: number): Uint8Array {
  let x = seed >>> 0 || 1;
  const next = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), x >>> 0);
  const alphabet = latin1("==== \t\t\r\n\r\n\r\n0123456789abcdefABCDEFgGzZ.");
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    const r = next();
    out[i] = r % 10 === 0 ? r % 256 : alphabet[r % alphabet.length]!;
  }
  return out;
}

describe("quoted-printable decoding", () => {
  test("gives libqp's bytes for 5,000 random bodies", () => {
    for (let seed = 1; seed <= 5000; seed++) {
      const body = randomBody(seed, 1 + (seed % 97) * (seed % 5 === 0 ? 40 : 1));
      expect(ours(body)).toEqual(theirs(body));
    }
  });

  test.each([
    ["=41=42", "AB"],
    ["=4=\r\n1", "A"], // a soft break joins an escape
    ["=4=\n1", "A"],
    ["line = \t\r\nnext", "line next"], // blanks before the break go first, then the soft break
    ["ends with =", "ends with "],
    ["ends with =  ", "ends with "],
    ["=\r", "=\r"], // CR alone is no soft break
    ["=\r\r\n", "=\r\r\n"],
    ["a \t \r\nb\t\nc  ", "a\r\nb\nc"],
    ["keep  inner  blanks", "keep  inner  blanks"],
    ["=3d=3D=gg=4", "===gg=4"],
    ["==41", "=A"],
    ["caf=C3=A9", "caf\u00c3\u00a9"],
    ["", ""],
  ])("%j", (input, expected) => {
    const bytes = latin1(input);
    expect(Buffer.from(ours(bytes)).toString("latin1")).toBe(expected);
    expect(ours(bytes)).toEqual(theirs(bytes));
  });

  test("leaves its input alone", () => {
    const body = latin1("a=41 \r\nb=\r\nc");
    const copy = body.slice();
    ours(body);
    expect(body).toEqual(copy);
  });

  test("attachment downloads decode quoted-printable bodies the same way", () => {
    for (let seed = 7; seed < 2000; seed += 3) {
      const body = randomBody(seed, 200);
      expect(new Uint8Array(decodeBody(body, "quoted-printable"))).toEqual(theirs(body));
    }
  });
});

describe("the parser's quoted-printable decoder", () => {
  test("is ours, and decodes a body streamed in chunks as libqp's own decode does", async () => {
    expect(useFastQuotedPrintable(libqp)).toBe(true);
    expect(String(libqp.Decoder.prototype._flush)).toContain("decodeQuotedPrintable");
    const body = randomBody(42, 5000);
    const Decoder = libqp.Decoder as unknown as new () => NodeJS.ReadWriteStream;
    const decoder = new Decoder();
    const chunks: Buffer[] = [];
    decoder.on("data", (c: Buffer) => chunks.push(c));
    const done = new Promise((resolve) => decoder.on("end", resolve));
    Readable.from([body.subarray(0, 1234), body.subarray(1234, 1235), body.subarray(1235)].map((c) => Buffer.from(c))).pipe(decoder);
    await done;
    expect(new Uint8Array(Buffer.concat(chunks))).toEqual(theirs(body));
  });

  test("a parsed message's quoted-printable text keeps its characters and soft breaks", async () => {
    const raw = latin1(
      [
        "From: a@example.com",
        "To: b@example.com",
        "Subject: qp",
        "MIME-Version: 1.0",
        'Content-Type: text/plain; charset="utf-8"',
        "Content-Transfer-Encoding: quoted-printable",
        "",
        "Caf=C3=A9 au lait, r=C3=A9sum=C3=A9 attached and a long line that goes on =",
        "and on =E2=80=94 with a dash.   ",
        "Second line=3D ok.",
        "",
      ].join("\r\n"),
    );
    const mail = await parseInline(raw);
    expect(mail.text).toBe("Café au lait, résumé attached and a long line that goes on and on — with a dash.\nSecond line= ok.\n");
  });
});
