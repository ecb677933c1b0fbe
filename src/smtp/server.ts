import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { createHandlers } from "./handlers.ts";
import type { SmtpIngress, SmtpIngressDeps, SmtpIngressOptions } from "./types.ts";

export type { RecipientVerdict, SmtpEnvelope, SmtpIngress, SmtpIngressDeps, SmtpIngressOptions } from "./types.ts";

const DEFAULTS = {
  maxMessageBytes: 25 * 1024 * 1024,
  maxRecipients: 100,
  maxClients: 200,
  socketTimeoutMs: 60_000,
  closeTimeoutMs: 10_000,
};

// Socket errors that only mean the client went away; anything else is worth a warning.
const CLIENT_GONE = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * The inbound SMTP listener (an MX, not a submission server: no AUTH). Recipients are
 * decided by `deps.resolveRecipient`, messages are handed to `deps.accept`, and the 250
 * after DATA is only sent once `accept` says the message is durable.
 */
export async function startSmtpIngress(opts: SmtpIngressOptions, deps: SmtpIngressDeps): Promise<SmtpIngress> {
  const limits = { ...DEFAULTS, ...definedOnly(opts) };
  // The caller names the component (service.ts passes a child logger already).
  const log = opts.log;
  const { onRcptTo, onData } = createHandlers(deps, log, limits);

  const tlsOptions: Partial<SMTPServerOptions> = opts.tls
    ? { key: opts.tls.key, cert: opts.tls.cert }
    : // Without our own certificate smtp-server would offer STARTTLS with its public test key.
      { hideSTARTTLS: true };
  const opened = new Set<string>();
  const server = new SMTPServer({
    name: opts.hostname,
    banner: "Mailroom",
    disabledCommands: opts.tls ? ["AUTH"] : ["AUTH", "STARTTLS"],
    authOptional: true,
    disableReverseLookup: true,
    // Size is enforced in onData (stream.sizeExceeded) so the reply text is ours; `size`
    // advertises it in EHLO and refuses a larger declared SIZE= at MAIL FROM.
    size: limits.maxMessageBytes,
    // No `maxRecipients` either: onRcptTo counts them, again for our own 452 text.
    maxClients: limits.maxClients,
    socketTimeout: limits.socketTimeoutMs,
    closeTimeout: limits.closeTimeoutMs,
    logger: false,
    ...tlsOptions,
    onRcptTo,
    onData,
    // onClose also fires for connections refused (maxClients) or gone before onConnect: only
    // the ones onConnect saw are counted closed, so the open gauge stays true.
    onConnect: (session, callback) => {
      opened.add(session.id);
      opts.sessions?.opened();
      callback();
    },
    onClose: (session) => {
      if (opened.delete(session.id)) opts.sessions?.closed();
    },
  });
  server.on("error", (err: Error & { code?: string }) => {
    if (err.code && CLIENT_GONE.has(err.code)) log.info({ code: err.code }, "smtp client connection dropped");
    else log.warn({ err }, "smtp server error");
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : opts.port;

  let closing: Promise<void> | undefined;
  return {
    port,
    // smtp-server answers new commands with 421 from here on, lets a running DATA finish,
    // and after closeTimeout sends 421 to whoever is left and calls back.
    close: () => (closing ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}

function definedOnly(opts: SmtpIngressOptions): Partial<typeof DEFAULTS> {
  const out: Partial<typeof DEFAULTS> = {};
  for (const key of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
    const value = opts[key];
    if (typeof value === "number" && value > 0) out[key] = value;
  }
  return out;
}
