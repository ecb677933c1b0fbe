import { afterEach, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import nodemailer from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer";
import type { RecipientVerdict } from "../src/smtp/server.ts";
import { captureLog, fakePipeline, RawClient, sleep, start, stopSmtpServers } from "./smtp-support.ts";

const transport = (port: number) => nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true });

async function compose(to = "alice@mail.test"): Promise<Buffer> {
  return new MailComposer({
    from: "Sender <sender@example.org>",
    to,
    subject: "Grüße",
    // Lines starting with dots exercise dot-stuffing on the way in and unstuffing on ours.
    text: "first line\r\n.a line starting with a dot\r\n..two dots\r\n.\r\nünïcödé ✓\r\n",
    attachments: [{ filename: "blob.bin", content: randomBytes(200_000) }],
  })
    .compile()
    .build();
}

afterEach(stopSmtpServers);

describe("smtp ingress", () => {
  test("an accepted message reaches accept byte for byte, and 250 carries the stored id", async () => {
    const { port, pipeline } = await start();
    const raw = await compose();
    const info = await transport(port).sendMail({ envelope: { from: "sender@example.org", to: ["Alice@Mail.Test"] }, raw });

    expect(info.response).toBe("250 2.0.0 Ok: queued as msg_1");
    expect(pipeline.delivered).toHaveLength(1);
    const got = pipeline.delivered[0]!;
    expect(got.raw.equals(raw)).toBe(true);
    expect(got.envelope).toEqual({
      mailFrom: "sender@example.org",
      rcptTo: [{ address: "alice@mail.test", mailboxId: "mbx_alice" }],
      remoteAddress: "127.0.0.1",
      heloName: expect.any(String),
    });
    // resolveRecipient sees the lowercased address, once.
    expect(pipeline.lookups).toEqual(["alice@mail.test"]);
  });

  test("an unknown recipient is refused at RCPT with the verdict's code and text", async () => {
    const { port, pipeline } = await start();
    const err: any = await transport(port)
      .sendMail({ envelope: { from: "sender@example.org", to: ["nobody@mail.test"] }, raw: await compose("nobody@mail.test") })
      .catch((e) => e);
    expect(err.responseCode).toBe(550);
    expect(err.command).toBe("RCPT TO");
    expect(err.response).toBe("550 5.1.1 No such mailbox");
    expect(pipeline.delivered).toHaveLength(0);

    const c = await RawClient.connect(port);
    await c.reply();
    await c.cmd("EHLO client.example.org");
    await c.cmd("MAIL FROM:<sender@example.org>");
    expect(await c.cmd("RCPT TO:<relay-me@elsewhere.example>")).toBe("550 5.1.1 No such mailbox");
    // No recipient was accepted, so there is no transaction to put data into.
    expect(await c.cmd("DATA")).toStartWith("503 ");
  });

  test("with some recipients refused the message goes to the accepted ones only", async () => {
    const { port, pipeline } = await start();
    const to = ["alice@mail.test", "ghost@mail.test", "bob@mail.test", "relay@elsewhere.example"];
    const info = await transport(port).sendMail({ envelope: { from: "sender@example.org", to }, raw: await compose(to.join(", ")) });
    expect(info.accepted).toEqual(["alice@mail.test", "bob@mail.test"]);
    expect(info.rejected).toEqual(["ghost@mail.test", "relay@elsewhere.example"]);
    expect(info.rejectedErrors!.map((e: any) => e.response)).toEqual(["550 5.1.1 No such mailbox", "550 5.1.1 No such mailbox"]);
    expect(pipeline.delivered[0]!.envelope.rcptTo).toEqual([
      { address: "alice@mail.test", mailboxId: "mbx_alice" },
      { address: "bob@mail.test", mailboxId: "mbx_bob" },
    ]);
  });

  test("the verdict's temporary codes pass through, and a failing lookup is a 451", async () => {
    const pipeline = fakePipeline();
    pipeline.deps.resolveRecipient = async (address) => {
      if (address.startsWith("full")) return { ok: false, code: 452, message: "4.2.2 Mailbox full" };
      if (address.startsWith("weird")) return { ok: false, code: 250, message: "2.0.0 sure" } as unknown as RecipientVerdict;
      throw new Error("database down");
    };
    const { port } = await start(pipeline);
    const c = await RawClient.connect(port);
    await c.reply();
    await c.cmd("EHLO client.example.org");
    await c.cmd("MAIL FROM:<sender@example.org>");
    expect(await c.cmd("RCPT TO:<full@mail.test>")).toBe("452 4.2.2 Mailbox full");
    expect(await c.cmd("RCPT TO:<boom@mail.test>")).toBe("451 4.3.0 Temporary failure checking the recipient, try again later");
    // A malformed verdict never becomes an accepted recipient.
    expect(await c.cmd("RCPT TO:<weird@mail.test>")).toBe("451 4.3.0 Temporary failure checking the recipient, try again later");
    expect(await c.cmd("DATA")).toStartWith("503 ");
  });

  test("the 101st recipient gets 452 and the message goes to the first 100", async () => {
    const { port, pipeline } = await start(fakePipeline(() => true));
    const to = Array.from({ length: 101 }, (_, i) => `r${i}@mail.test`);
    const info = await transport(port).sendMail({ envelope: { from: "sender@example.org", to }, raw: await compose() });
    expect(info.accepted).toHaveLength(100);
    expect(info.rejected).toEqual(["r100@mail.test"]);
    expect((info.rejectedErrors![0] as any).response).toBe("452 4.5.3 Too many recipients");
    expect(pipeline.delivered[0]!.envelope.rcptTo).toHaveLength(100);
    // The limit is checked before the lookup.
    expect(pipeline.lookups).toHaveLength(100);
  });

  test("a repeated recipient is not counted or looked up twice", async () => {
    const { port, pipeline } = await start(fakePipeline(() => true), { maxRecipients: 2 });
    const c = await RawClient.ready(port, "a@mail.test");
    expect(await c.cmd("RCPT TO:<B@mail.test>")).toStartWith("250 ");
    expect(await c.cmd("RCPT TO:<a@MAIL.test>")).toStartWith("250 ");
    expect(await c.cmd("RCPT TO:<c@mail.test>")).toBe("452 4.5.3 Too many recipients");
    expect(await c.cmd("DATA")).toStartWith("354 ");
    expect(await c.cmd("Subject: x\r\n\r\nhi\r\n.")).toStartWith("250 ");
    expect(pipeline.lookups).toEqual(["a@mail.test", "b@mail.test"]);
    expect(pipeline.delivered[0]!.envelope.rcptTo.map((r) => r.address).sort()).toEqual(["a@mail.test", "b@mail.test"]);
  });

  test("a message over the size limit is refused with 552 after DATA, and the session goes on", async () => {
    const { port, pipeline } = await start(fakePipeline(), { maxMessageBytes: 1000 });
    const c = await RawClient.ready(port);
    expect(await c.cmd("DATA")).toStartWith("354 ");
    expect(await c.cmd(`Subject: big\r\n\r\n${"x".repeat(5000)}\r\n.`)).toBe("552 5.3.4 Message too big");
    expect(pipeline.delivered).toHaveLength(0);

    // Exactly at the limit is still fine.
    expect(await c.cmd("MAIL FROM:<sender@example.org>")).toStartWith("250 ");
    expect(await c.cmd("RCPT TO:<alice@mail.test>")).toStartWith("250 ");
    expect(await c.cmd("DATA")).toStartWith("354 ");
    const body = `Subject: fits\r\n\r\n${"y".repeat(1000 - 19)}\r\n`;
    expect(body.length).toBe(1000);
    expect(await c.cmd(`${body}.`)).toBe("250 2.0.0 Ok: queued as msg_1");
    expect(pipeline.delivered[0]!.raw.toString()).toBe(body);
  });

  test("a declared SIZE over the limit is refused at MAIL FROM; EHLO advertises the limit", async () => {
    const { port, pipeline } = await start(fakePipeline(), { maxMessageBytes: 1000 });
    const c = await RawClient.connect(port);
    await c.reply();
    expect(await c.cmd("EHLO client.example.org")).toMatch(/^250[- ]SIZE 1000$/m);
    expect(await c.cmd("MAIL FROM:<sender@example.org> SIZE=1001")).toBe("552 Error: message exceeds fixed maximum message size 1000");
    expect(await c.cmd("MAIL FROM:<sender@example.org> SIZE=1000")).toStartWith("250 ");
    expect(pipeline.lookups).toHaveLength(0);
  });

  test("accept throwing answers 451 and the message can be retried", async () => {
    const { port, pipeline } = await start();
    const working = pipeline.acceptImpl;
    pipeline.acceptImpl = async () => {
      throw new Error("disk on fire");
    };
    const send = () => transport(port).sendMail({ envelope: { from: "sender@example.org", to: ["alice@mail.test"] }, raw: "Subject: x\r\n\r\nhi\r\n" });
    const err: any = await send().catch((e) => e);
    expect(err.responseCode).toBe(451);
    expect(err.response).toBe("451 4.3.0 Temporary failure storing the message, try again later");
    expect(err.command).toBe("DATA");

    pipeline.acceptImpl = working;
    expect((await send()).response).toBe("250 2.0.0 Ok: queued as msg_1");
  });

  test("250 is sent only once accept has resolved", async () => {
    const { port, pipeline } = await start();
    let release!: () => void;
    let acceptStarted = false;
    pipeline.acceptImpl = async () => {
      acceptStarted = true;
      await new Promise<void>((resolve) => (release = resolve));
      return { ids: ["msg_a", "msg_b"] };
    };
    const c = await RawClient.ready(port);
    await c.cmd("DATA");
    const reply = c.cmd("Subject: x\r\n\r\nhi\r\n.");
    let answered = false;
    void reply.then(() => (answered = true));
    while (!acceptStarted) await sleep(5);
    await sleep(100);
    expect(answered).toBe(false);
    release();
    expect(await reply).toBe("250 2.0.0 Ok: queued as msg_a msg_b");
  });

  test("a client that resets in the middle of DATA leaves the server up and nothing is accepted", async () => {
    const { log, lines } = captureLog();
    const { port, pipeline } = await start(fakePipeline(), { log });
    for (const hangUp of ["destroy", "reset"] as const) {
      const c = await RawClient.ready(port);
      expect(await c.cmd("DATA")).toStartWith("354 ");
      c.write("Subject: half\r\n\r\nthis message never ends\r\n" + "z".repeat(50_000));
      await sleep(50);
      if (hangUp === "reset" && typeof c.socket.resetAndDestroy === "function") c.socket.resetAndDestroy();
      else c.socket.destroy();
      await c.closedPromise();
    }
    await sleep(200);
    expect(pipeline.delivered).toHaveLength(0);
    expect(lines.filter((l) => l.msg === "smtp client left during DATA; partial message dropped")).toHaveLength(2);

    const info = await transport(port).sendMail({ envelope: { from: "sender@example.org", to: ["alice@mail.test"] }, raw: "Subject: after\r\n\r\nstill here\r\n" });
    expect(info.response).toStartWith("250 ");
    expect(pipeline.delivered).toHaveLength(1);
  });

  test("connections over maxClients are refused with 421", async () => {
    const { port } = await start(fakePipeline(), { maxClients: 2 });
    const a = await RawClient.connect(port);
    const b = await RawClient.connect(port);
    expect(await a.reply()).toStartWith("220 ");
    expect(await b.reply()).toStartWith("220 ");
    const extra = await RawClient.connect(port);
    expect(await extra.reply()).toBe("421 mx.mail.test Too many connected clients, try again in a moment");
    await extra.closedPromise();

    await a.cmd("QUIT");
    await a.closedPromise();
    await sleep(50);
    const next = await RawClient.connect(port);
    expect(await next.reply()).toStartWith("220 ");
  });

  test("an idle client is dropped with 421 after the socket timeout", async () => {
    const { port } = await start(fakePipeline(), { socketTimeoutMs: 300 });
    const c = await RawClient.connect(port);
    expect(await c.reply()).toStartWith("220 ");
    expect(await c.reply()).toBe("421 Timeout - closing connection");
    await c.closedPromise();
  });

  test("no AUTH and no STARTTLS without a certificate", async () => {
    const { port } = await start();
    const c = await RawClient.connect(port);
    expect(await c.reply()).toBe("220 mx.mail.test ESMTP Mailroom");
    const ehlo = await c.cmd("EHLO client.example.org");
    expect(ehlo).not.toContain("AUTH");
    expect(ehlo).not.toContain("STARTTLS");
    expect(await c.cmd("AUTH PLAIN AGFsaWNlAHNlY3JldA==")).toBe("500 Error: command not recognized");
    expect(await c.cmd("STARTTLS")).toBe("500 Error: command not recognized");
  });

  test("STARTTLS is offered with a certificate and nodemailer delivers over it", async () => {
    const dir = join(import.meta.dir, "fixtures", "tls");
    const tls = { key: readFileSync(join(dir, "localhost.key.pem")), cert: readFileSync(join(dir, "localhost.cert.pem")) };
    const { port, pipeline } = await start(fakePipeline(), { tls });

    const c = await RawClient.connect(port);
    await c.reply();
    const ehlo = await c.cmd("EHLO client.example.org");
    expect(ehlo.split("\n")).toContain("250-STARTTLS");
    expect(ehlo).not.toContain("AUTH");

    const secure = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, requireTLS: true, tls: { rejectUnauthorized: false } });
    const raw = await compose();
    const info = await secure.sendMail({ envelope: { from: "sender@example.org", to: ["alice@mail.test"] }, raw });
    expect(info.response).toStartWith("250 ");
    expect(pipeline.delivered[0]!.raw.equals(raw)).toBe(true);
  });

  test("the empty sender <> is accepted (bounces)", async () => {
    const { port, pipeline } = await start();
    const c = await RawClient.connect(port);
    await c.reply();
    await c.cmd("EHLO bounce.example.org");
    expect(await c.cmd("MAIL FROM:<>")).toStartWith("250 ");
    expect(await c.cmd("RCPT TO:<bob@mail.test>")).toStartWith("250 ");
    expect(await c.cmd("DATA")).toStartWith("354 ");
    expect(await c.cmd("Subject: Undelivered Mail\r\n\r\nsorry\r\n.")).toStartWith("250 ");
    expect(pipeline.delivered[0]!.envelope).toEqual({
      mailFrom: null,
      rcptTo: [{ address: "bob@mail.test", mailboxId: "mbx_bob" }],
      remoteAddress: "127.0.0.1",
      heloName: "bounce.example.org",
    });
  });

  test("refusals are logged at info with the session id, acceptances at debug, never a body", async () => {
    const { log, lines } = captureLog();
    const { port } = await start(fakePipeline(), { log, maxMessageBytes: 2000 });
    const c = await RawClient.ready(port);
    expect(await c.cmd("RCPT TO:<nobody@mail.test>")).toStartWith("550 ");
    await c.cmd("DATA");
    await c.cmd("Subject: secret\r\n\r\nSECRET-BODY-TEXT\r\n.");
    await c.cmd("MAIL FROM:<sender@example.org>");
    await c.cmd("RCPT TO:<alice@mail.test>");
    await c.cmd("DATA");
    expect(await c.cmd(`Subject: secret\r\n\r\nSECRET-BODY-TEXT${"x".repeat(3000)}\r\n.`)).toStartWith("552 ");

    const refused = lines.filter((l) => l.msg === "smtp refused");
    expect(refused.map((l) => [l.level, l.code])).toEqual([
      [30, 550],
      [30, 552],
    ]);
    expect(refused.every((l) => typeof l.sessionId === "string" && l.sessionId.length > 0)).toBe(true);
    const accepted = lines.filter((l) => l.msg === "smtp message accepted");
    expect(accepted).toHaveLength(1);
    expect(accepted[0]!.level).toBe(20);
    expect(accepted[0]!.sessionId).toBe(refused[0]!.sessionId);
    expect(JSON.stringify(lines)).not.toContain("SECRET-BODY-TEXT");
  });

  test("close() lets a message being stored finish, then stops listening", async () => {
    const { smtp, port, pipeline } = await start(fakePipeline(), { closeTimeoutMs: 5000 });
    let release!: () => void;
    pipeline.acceptImpl = async (raw, envelope) => {
      await new Promise<void>((resolve) => (release = resolve));
      pipeline.delivered.push({ raw: Buffer.from(raw), envelope });
      return { ids: ["msg_slow"] };
    };
    const c = await RawClient.ready(port);
    await c.cmd("DATA");
    const reply = c.cmd("Subject: x\r\n\r\nhi\r\n.");
    while (!release) await sleep(5);

    let closed = false;
    const closing = smtp.close().then(() => (closed = true));
    await sleep(100);
    expect(closed).toBe(false);
    // New connections are no longer taken.
    expect(await RawClient.connect(port).then(() => "connected", () => "refused")).toBe("refused");

    release();
    expect(await reply).toBe("250 2.0.0 Ok: queued as msg_slow");
    expect(await c.cmd("QUIT")).toBe("421 Server shutting down");
    await closing;
    expect(closed).toBe(true);
  });

  test("close() gives up on lingering sessions after closeTimeout", async () => {
    const { smtp, port } = await start(fakePipeline(), { closeTimeoutMs: 300 });
    const c = await RawClient.connect(port);
    await c.reply();
    // The session never ends by itself: close() resolving at all is the timeout at work.
    await smtp.close();
    expect(await c.reply()).toBe("421 Server shutting down");
  });
});
