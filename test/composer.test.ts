import { afterAll, describe, expect, test } from "bun:test";
import { simpleParser } from "mailparser";
import { threadId } from "node:worker_threads";
import { AppError } from "../src/errors.ts";
import { Composer } from "../src/mail/outbound/composer.ts";
import type { Composition } from "../src/mail/outbound/compose.ts";

const composer = new Composer();
afterAll(() => composer.close());

const base: Composition = {
  from: "agent@mail.test",
  to: ["frank@example.com"],
  cc: ["grace@example.com"],
  subject: "Proposal",
  textBody: "Here it is.",
  htmlBody: "<p>Here it is.</p>",
  messageId: "<m1@mail.test>",
  replyTo: "agent+reply-x@mail.test",
  inReplyTo: "<earlier@example.com>",
  references: ["<first@example.com>", "<earlier@example.com>"],
};

describe("the composer", () => {
  test("builds the message in a worker thread, not on the event loop", async () => {
    const { raw, threadId: builtOn } = await composer.compose(base);
    expect(threadId).toBe(0);
    expect(builtOn).not.toBe(0);
    const text = Buffer.from(raw).toString("latin1");
    // CRLF everywhere, as on the wire, and Bcc never in the message.
    expect(text.replace(/\r\n/g, "")).not.toMatch(/\n/);
    const parsed = await simpleParser(Buffer.from(raw));
    expect(parsed.messageId).toBe("<m1@mail.test>");
    expect(parsed.inReplyTo).toBe("<earlier@example.com>");
    expect(parsed.references).toEqual(["<first@example.com>", "<earlier@example.com>"]);
    expect(parsed.replyTo?.text).toBe("agent+reply-x@mail.test");
    expect(parsed.text?.trim()).toBe("Here it is.");
    expect(parsed.html).toContain("<p>Here it is.</p>");
  });

  test("large bodies come back whole, in a buffer of their own", async () => {
    const textBody = "t".repeat(4 << 20);
    const htmlBody = `<p>${"é".repeat(1 << 20)}</p>`;
    const { raw, threadId: builtOn } = await composer.compose({ ...base, textBody, htmlBody });
    expect(builtOn).not.toBe(0);
    expect(raw.byteOffset).toBe(0);
    expect(raw.byteLength).toBe(raw.buffer.byteLength);
    const parsed = await simpleParser(Buffer.from(raw));
    expect(parsed.text?.replace(/\s+$/, "")).toBe(textBody);
    expect(parsed.html).toContain(htmlBody);
  });

  test("a composition that cannot run is a 503 that applied nothing", async () => {
    const closed = new Composer();
    await closed.close();
    const err = await closed.compose(base).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("service_unavailable");
    expect((err as AppError).details).toEqual({ applied: false });
    expect((err as AppError).headers["Retry-After"]).toBeDefined();
  });
});
