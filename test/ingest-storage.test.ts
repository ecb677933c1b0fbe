/**
 * Raw bytes are stored once: attachments are served as decoded ranges of the raw message
 * (src/mail/parse/body-ranges.ts) or, when no range could be proven, from a blob of their own.
 * Either way a download must give exactly the bytes mailparser reads from the message, and the
 * raw download exactly the bytes received.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { simpleParser, type SimpleParserOptions } from "mailparser";
import MailComposer from "nodemailer/lib/mail-composer";
import { attachments as attachmentsTable } from "../db/schema/index.ts";
import { inArray } from "drizzle-orm";
import { scanHead } from "../src/mail/parse/head.ts";
import { WORKER_HEAD_LIMITS } from "../src/mail/parse/limits.ts";
import { repair } from "../src/mail/parse/repair.ts";
import { seedAccount, startTestService, type TestService } from "./harness.ts";

let t: TestService;
let to: string;
beforeAll(async () => {
  t = await startTestService();
  to = (await seedAccount(t)).primary.email_address;
});
afterAll(() => t.stop());

const FIXTURES = join(import.meta.dir, "fixtures", "mime");

/** The attachments as mailparser reads them from the message (after the same repair the service applies). */
async function reference(raw: Uint8Array): Promise<Buffer[]> {
  const input = repair(raw, scanHead(raw, WORKER_HEAD_LIMITS));
  const parsed = await simpleParser(Buffer.from(input.buffer, input.byteOffset, input.byteLength), { skipHtmlToText: true, skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true, keepCidLinks: true } as SimpleParserOptions);
  return parsed.attachments.map((a) => a.content);
}

async function deliver(raw: Uint8Array): Promise<string> {
  const res = await fetch(`${t.url}/v1/inbound/email?to=${encodeURIComponent(to)}`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.admin}`, "content-type": "message/rfc822" },
    body: raw,
  });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`inbound failed: ${res.status} ${text}`);
  return JSON.parse(text).message_ids[0];
}

async function processed(id: string): Promise<any> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await fetch(`${t.url}/v1/messages/${id}`, { headers: { authorization: `Bearer ${t.admin}` } });
    const body = (await res.json()) as any;
    if (res.status === 200 && body.message.status !== "received") return body.message;
    if (Date.now() > deadline) throw new Error(`message ${id} was not processed`);
    await Bun.sleep(100);
  }
}

const bytesOf = async (path: string) => {
  const res = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${t.admin}` } });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
};

/** Delivers a message and checks its raw download and every attachment download against mailparser. */
async function roundTrip(raw: Uint8Array): Promise<{ id: string; attachments: { id: string }[] }> {
  const id = await deliver(raw);
  const message = await processed(id);
  expect(Buffer.compare(await bytesOf(`/v1/messages/${id}/raw`), Buffer.from(raw))).toBe(0);
  const expected = message.status === "processed" ? await reference(raw) : [];
  expect(message.attachments.length).toBe(expected.length);
  for (const [i, a] of (message.attachments as { id: string; size: number }[]).entries()) {
    const got = await bytesOf(`/v1/messages/${id}/attachments/${a.id}`);
    expect(got.length).toBe(expected[i]!.length);
    expect(Buffer.compare(got, expected[i]!)).toBe(0);
    expect(a.size).toBe(expected[i]!.length);
  }
  return { id, attachments: message.attachments };
}

const build = (opts: ConstructorParameters<typeof MailComposer>[0]) =>
  new MailComposer({ from: "Sender <sender@example.com>", to, subject: "Files", ...opts }).compile().build().then((b) => new Uint8Array(b));
const random = (n: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(n)));

describe("raw bytes stored once", () => {
  // The empty fixture is refused at the door (400), so it has nothing stored to check.
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith(".eml") && readFileSync(join(FIXTURES, f)).length > 0);

  test.each(files)("%s: raw download byte-identical, every attachment equal to mailparser's", async (file) => {
    await roundTrip(new Uint8Array(readFileSync(join(FIXTURES, file))));
  });

  test("large base64 attachments, a text attachment, a quoted-printable one and a nested multipart", async () => {
    const raw = await build({
      text: "See the files.",
      html: "<p>See the <b>files</b>.</p>",
      attachments: [
        { filename: "a.bin", content: random(100 * 1024), contentType: "application/octet-stream" },
        { filename: "notes.txt", content: "line one\r\nline two\r\n", contentType: "text/plain" },
        { filename: "qp.txt", content: "caf\u00e9 cr\u00e8me ".repeat(400), contentType: "text/plain", contentTransferEncoding: "quoted-printable" },
        { filename: "photo.png", content: random(5000), contentType: "image/png", cid: "photo@x" },
        { filename: "tiny.bin", content: random(10), contentType: "application/octet-stream" },
      ],
    });
    const { attachments } = await roundTrip(raw);
    expect(attachments.length).toBe(5);
    // The large ones are ranges of the raw message, not blobs of their own.
    const rows = await t.service.internals.database.db
      .select()
      .from(attachmentsTable)
      .where(
        inArray(
          attachmentsTable.id,
          attachments.map((a) => a.id),
        ),
      );
    const big = rows.find((r) => r.filename === "a.bin")!;
    expect(big.sha256).toBeNull();
    expect(big.transferEncoding).toBe("base64");
  });

  test("LF line endings, padding inside the base64 data, and an attachment with no closing delimiter", async () => {
    const b64 = (b: Buffer) => b.toString("base64").replace(/.{76}/g, "$&\n");
    const payload = random(3000);
    const padded = Buffer.from("abcd");
    const raw = new TextEncoder().encode(
      [
        "From: s@example.com",
        `To: ${to}`,
        "Subject: odd shapes",
        "MIME-Version: 1.0",
        'Content-Type: multipart/mixed; boundary="XX"',
        "",
        "--XX",
        "Content-Type: text/plain",
        "",
        "body",
        "--XX",
        'Content-Type: application/octet-stream; name="one.bin"',
        "Content-Transfer-Encoding: base64",
        "",
        b64(payload),
        "--XX",
        'Content-Type: application/octet-stream; name="padded.bin"',
        "Content-Transfer-Encoding: base64",
        "",
        `${padded.subarray(0, 1).toString("base64")}${padded.subarray(1).toString("base64")}`,
        "--XX",
        'Content-Type: application/octet-stream; name="last.bin"',
        "Content-Transfer-Encoding: base64",
        "",
        b64(random(2000)),
      ].join("\n"),
    );
    await roundTrip(raw);
  });
});
