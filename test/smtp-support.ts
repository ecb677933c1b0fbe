import { expect } from "bun:test";
import net from "node:net";
import nodemailer from "nodemailer";
import pino from "pino";
import { startSmtpIngress, type RecipientVerdict, type SmtpEnvelope, type SmtpIngress, type SmtpIngressOptions } from "../src/smtp/server.ts";

/** Real SMTP over 127.0.0.1 against in-memory fakes of the two pipeline callbacks (the listener alone, no service). */

export const KNOWN = ["alice@mail.test", "bob@mail.test"];

export interface Delivered {
  raw: Buffer;
  envelope: SmtpEnvelope;
}

export function fakePipeline(known: (address: string) => boolean = (a) => KNOWN.includes(a)) {
  const delivered: Delivered[] = [];
  const lookups: string[] = [];
  const state = {
    delivered,
    lookups,
    acceptImpl: async (raw: Uint8Array, envelope: SmtpEnvelope) => {
      delivered.push({ raw: Buffer.from(raw), envelope });
      return { ids: [`msg_${delivered.length}`] };
    },
    deps: {
      async resolveRecipient(address: string): Promise<RecipientVerdict> {
        lookups.push(address);
        return known(address) ? { ok: true, mailboxId: `mbx_${address.split("@")[0]}` } : { ok: false, code: 550, message: "5.1.1 No such mailbox" };
      },
      accept: (raw: Uint8Array, envelope: SmtpEnvelope) => state.acceptImpl(raw, envelope),
    },
  };
  return state;
}

export function captureLog() {
  const lines: Record<string, any>[] = [];
  const log = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines };
}

const running: SmtpIngress[] = [];
const sockets: net.Socket[] = [];

/** Each test file runs this afterEach: listeners and raw clients die with their test. */
export async function stopSmtpServers(): Promise<void> {
  // Hung-up clients first, or close() would wait out closeTimeout for them.
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(running.splice(0).map((s) => s.close()));
}

export async function start(pipeline = fakePipeline(), opts: Partial<SmtpIngressOptions> = {}) {
  const smtp = await startSmtpIngress(
    { host: "127.0.0.1", port: 0, hostname: "mx.mail.test", log: pino({ level: "silent" }), closeTimeoutMs: 1000, ...opts },
    pipeline.deps,
  );
  running.push(smtp);
  return { smtp, pipeline, port: smtp.port };
}

/** A line-level SMTP client for what nodemailer will not do on purpose. */
export class RawClient {
  private buffer = "";
  private lines: string[] = [];
  private replies: string[] = [];
  private waiting: ((reply: string) => void)[] = [];
  closed = false;

  private constructor(readonly socket: net.Socket) {
    sockets.push(socket);
    socket.setEncoding("latin1");
    socket.on("data", (data: string) => this.onData(data));
    socket.on("error", () => {});
    socket.on("close", () => {
      this.closed = true;
      for (const w of this.waiting.splice(0)) w("<closed>");
    });
  }

  /** `from` picks the client's own address (any of 127.0.0.0/8 on Linux). */
  static connect(port: number, from?: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: "127.0.0.1", ...(from ? { localAddress: from } : {}) }, () => resolve(new RawClient(socket)));
      socket.once("error", reject);
    });
  }

  private onData(data: string) {
    this.buffer += data;
    let i: number;
    while ((i = this.buffer.indexOf("\r\n")) >= 0) {
      const line = this.buffer.slice(0, i);
      this.buffer = this.buffer.slice(i + 2);
      this.lines.push(line);
      if (/^\d{3}(?: |$)/.test(line)) {
        const reply = this.lines.splice(0).join("\n");
        const w = this.waiting.shift();
        if (w) w(reply);
        else this.replies.push(reply);
      }
    }
  }

  /** The next reply, or "<closed>"; with `ms`, "<timeout>" when none comes by then. */
  reply(ms?: number): Promise<string> {
    const queued = this.replies.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.closed) return Promise.resolve("<closed>");
    if (ms === undefined) return new Promise((resolve) => this.waiting.push(resolve));
    return new Promise((resolve) => {
      const done = (r: string) => {
        clearTimeout(timer);
        resolve(r);
      };
      const timer = setTimeout(() => {
        this.waiting = this.waiting.filter((w) => w !== done);
        resolve("<timeout>");
      }, ms);
      this.waiting.push(done);
    });
  }

  write(data: string | Buffer) {
    this.socket.write(data);
  }

  cmd(line: string, ms?: number): Promise<string> {
    this.write(line + "\r\n");
    return this.reply(ms);
  }

  /** DATA content (a latin1 string), dot-stuffed, then the terminating dot. */
  data(latin1: string, ms?: number): Promise<string> {
    const stuffed = latin1.replace(/\r?\n|\r/g, "\r\n").replace(/^\./gm, "..");
    this.write(Buffer.from(`${stuffed}${stuffed.endsWith("\r\n") ? "" : "\r\n"}.\r\n`, "latin1"));
    return this.reply(ms);
  }

  /** Greeting, EHLO, MAIL FROM, RCPT TO: a session ready for DATA. */
  static async ready(port: number, rcpt = "alice@mail.test"): Promise<RawClient> {
    const c = await RawClient.connect(port);
    expect(await c.reply()).toStartWith("220 ");
    expect(await c.cmd("EHLO client.example.org")).toStartWith("250-");
    expect(await c.cmd("MAIL FROM:<sender@example.org>")).toStartWith("250 ");
    expect(await c.cmd(`RCPT TO:<${rcpt}>`)).toStartWith("250 ");
    return c;
  }

  closedPromise(): Promise<void> {
    return this.closed ? Promise.resolve() : new Promise((resolve) => this.socket.once("close", () => resolve()));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
