import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { capConnectionsPerClient } from "./client-address.ts";
import { connectionOf } from "./connection.ts";
import { installDataScan } from "./data-scan.ts";
import { createHandlers } from "./handlers.ts";
import { REPLY, smtpError, tooManyFromAddress } from "./replies.ts";
import { SessionGuard } from "./session-guard.ts";
import type { SmtpIngress, SmtpIngressDeps, SmtpIngressOptions } from "./types.ts";

export type { RecipientVerdict, SmtpEnvelope, SmtpIngress, SmtpIngressDeps, SmtpIngressOptions } from "./types.ts";

const DEFAULTS = {
  maxMessageBytes: 25 * 1024 * 1024,
  maxRecipients: 100,
  maxClients: 200,
  maxClientsPerAddress: 20,
  socketTimeoutMs: 60_000,
  sessionTimeoutMs: 600_000,
  dataTimeoutMs: 300_000,
  minDataRate: 500,
  dataRateGraceMs: 10_000,
  maxJunkCommands: 100,
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
  installDataScan();
  const limits = { ...DEFAULTS, ...definedOnly(opts) };
  // The caller names the component (service.ts passes a child logger already).
  const log = opts.log;
  // One per session onConnect admitted (connections over the per-address cap never get that far).
  const guards = new Map<string, SessionGuard>();
  const { onRcptTo, onData } = createHandlers(deps, log, limits, (session) => guards.get(session.id));

  const tlsOptions: Partial<SMTPServerOptions> = opts.tls
    ? { key: opts.tls.key, cert: opts.tls.cert }
    : // Without our own certificate smtp-server would offer STARTTLS with its public test key.
      { hideSTARTTLS: true };
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
    // In-flow control: a new message waits while processing runs behind (deps.admitMessage).
    onMailFrom: (_address, _session, callback) => {
      if (!deps.admitMessage) return callback();
      deps.admitMessage().then(
        () => callback(),
        () => callback(),
      );
    },
    onRcptTo,
    onData,
    // onClose also fires for connections refused (maxClients) or gone before onConnect: only
    // the ones onConnect admitted are counted closed, so the open gauge stays true.
    onConnect: (session, callback) => {
      const conn = connectionOf(server, session);
      if (!conn) {
        log.error({ sessionId: session.id }, "smtp connection not found for its session");
        return callback(smtpError(REPLY.unavailable.code, REPLY.unavailable.text));
      }
      guards.set(session.id, new SessionGuard(conn, limits, log, session.id));
      opts.sessions?.opened();
      callback();
    },
    onClose: (session) => {
      const guard = guards.get(session.id);
      if (!guard) return;
      guards.delete(session.id);
      guard.stop();
      opts.sessions?.closed();
    },
  });
  capConnectionsPerClient(server.server, limits.maxClientsPerAddress, (group) => tooManyFromAddress(opts.hostname, group), log);
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

// 0 is meaningful here: no rate check, no grace before it.
const ZERO_ALLOWED = new Set<keyof typeof DEFAULTS>(["minDataRate", "dataRateGraceMs"]);

function definedOnly(opts: SmtpIngressOptions): Partial<typeof DEFAULTS> {
  const out: Partial<typeof DEFAULTS> = {};
  for (const key of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
    const value = opts[key];
    if (typeof value === "number" && (value > 0 || (value === 0 && ZERO_ALLOWED.has(key)))) out[key] = value;
  }
  return out;
}
