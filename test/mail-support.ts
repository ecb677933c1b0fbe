import nodemailer from "nodemailer";
import { SMTPServer } from "smtp-server";
import { sleep, type ApiResponse, type TestService } from "./harness.ts";

/** A raw RFC 5322 message with CRLF line endings. */
export function rfc822(headers: Record<string, string>, body = "Hello.\r\n"): string {
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}

/** Delivers a raw message over HTTP ingress (admin). */
export function postInbound(t: TestService, raw: string | Uint8Array, to: string[] = []): Promise<ApiResponse> {
  const query = to.map((a) => `to=${encodeURIComponent(a)}`).join("&");
  return t.api("POST", `/v1/inbound/email${query ? `?${query}` : ""}`, {
    rawBody: raw as string,
    headers: { "content-type": "message/rfc822" },
  });
}

/** Sends over real SMTP to the service, as a remote MTA would. */
export async function smtpSend(port: number, envelope: { from: string; to: string[] }, raw: string | Uint8Array) {
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true, connectionTimeout: 5000 });
  try {
    return await transport.sendMail({ envelope, raw: typeof raw === "string" ? raw : Buffer.from(raw) });
  } finally {
    transport.close();
  }
}

/** Polls a message until it reaches one of `statuses` (processing and delivery are asynchronous). */
export async function waitForMessage(t: TestService, id: string, statuses: string[] = ["processed"], timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.api("GET", `/v1/messages/${id}`);
    if (res.status === 200 && statuses.includes(res.body.message.status)) return res.body.message;
    if (Date.now() > deadline) throw new Error(`message ${id} did not reach ${statuses.join("/")}: ${res.status} ${res.text.slice(0, 300)}`);
    await sleep(25);
  }
}

export interface RelayMessage {
  from: string | null;
  to: string[];
  raw: Uint8Array;
}

/**
 * A real SMTP server standing in for the relay: it records what it receives, and answers
 * with `reply` (a function so a test can change its mind between attempts).
 */
export async function startRelaySink(reply: () => { code: number; message: string } | null = () => null) {
  const received: RelayMessage[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    disableReverseLookup: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const answer = reply();
        if (answer) return callback(Object.assign(new Error(answer.message), { responseCode: answer.code }));
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: new Uint8Array(Buffer.concat(chunks)),
        });
        callback(null, "Ok: queued as RELAY123");
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { port, url: `smtp://127.0.0.1:${port}`, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Pending outbox rows of a kind/topic, read straight from the database (the next stage delivers them). */
export async function outboxRows(t: TestService, topic: string, messageId: string) {
  const { outbox } = await import("../db/schema/index.ts");
  const { eq } = await import("drizzle-orm");
  const rows = await t.service.internals.database.db.select().from(outbox).where(eq(outbox.topic, topic));
  return rows.filter((r) => (r.payload as { id?: string }).id === messageId);
}
