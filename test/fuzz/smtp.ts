import net from "node:net";

/** A line-level SMTP client that sends whatever it is given, and reads multi-line replies. */
export class SmtpSession {
  private buffer = "";
  private lines: string[] = [];
  private queued: string[] = [];
  private waiting: ((reply: string) => void)[] = [];
  closed = false;

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => this.onData(d));
    socket.on("error", () => {});
    socket.on("close", () => {
      this.closed = true;
      for (const w of this.waiting.splice(0)) w("<closed>");
    });
  }

  static open(port: number): Promise<SmtpSession> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () => resolve(new SmtpSession(socket)));
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
        else this.queued.push(reply);
      }
    }
  }

  /** The next reply, or "<closed>" / "<timeout>". */
  reply(ms = 20_000): Promise<string> {
    const q = this.queued.shift();
    if (q !== undefined) return Promise.resolve(q);
    if (this.closed) return Promise.resolve("<closed>");
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = this.waiting.filter((w) => w !== done);
        resolve("<timeout>");
      }, ms);
      const done = (r: string) => {
        clearTimeout(timer);
        resolve(r);
      };
      this.waiting.push(done);
    });
  }

  cmd(line: string): Promise<string> {
    this.socket.write(Buffer.from(`${line}\r\n`, "latin1"));
    return this.reply();
  }

  /** DATA content (a latin1 string), dot-stuffed, then the terminating dot. */
  data(latin1: string): Promise<string> {
    const normalized = latin1.replace(/\r?\n|\r/g, "\r\n");
    const stuffed = normalized.replace(/^\./gm, "..");
    this.socket.write(Buffer.from(`${stuffed}${stuffed.endsWith("\r\n") ? "" : "\r\n"}.\r\n`, "latin1"));
    return this.reply();
  }

  close() {
    this.socket.destroy();
  }
}
