import { SMTPServer } from "smtp-server";
import type { Logger } from "../log.ts";

export interface SmtpIngress {
  port: number;
  close(): Promise<void>;
}

/**
 * The inbound SMTP listener. Until the mail pipeline lands it accepts connections and
 * answers every recipient with a temporary 451, so senders queue and retry instead of
 * bouncing.
 */
export async function startSmtpIngress(opts: { host: string; port: number; hostname: string; log: Logger }): Promise<SmtpIngress> {
  const server = new SMTPServer({
    name: opts.hostname,
    banner: "Mailroom ESMTP",
    authOptional: true,
    disabledCommands: ["AUTH"],
    disableReverseLookup: true,
    maxClients: 200,
    size: 25 * 1024 * 1024,
    socketTimeout: 60_000,
    closeTimeout: 10_000,
    logger: false,
    onRcptTo(_address, _session, callback) {
      const err = Object.assign(new Error("4.3.2 Mail ingress is not available yet, try again later"), { responseCode: 451 });
      callback(err);
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on("end", () => callback(Object.assign(new Error("4.3.2 Mail ingress is not available yet"), { responseCode: 451 })));
    },
  });
  server.on("error", (err) => opts.log.warn({ err }, "smtp server error"));
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : opts.port;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
