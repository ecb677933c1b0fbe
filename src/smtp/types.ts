import type { Logger } from "../log.ts";

/** What the mail pipeline says about one RCPT TO address. */
export type RecipientVerdict =
  | { ok: true; mailboxId: string }
  | { ok: false; code: 550 | 551 | 553 | 450 | 451 | 452; message: string }; // message like "5.1.1 No such mailbox"

export interface SmtpEnvelope {
  /** null for the empty reverse-path `<>` (bounces). */
  mailFrom: string | null;
  rcptTo: { address: string; mailboxId: string }[];
  remoteAddress: string | null;
  heloName: string | null;
}

export interface SmtpIngressDeps {
  /** Decides a RCPT TO address (already lowercased); called once per recipient. */
  resolveRecipient(address: string): Promise<RecipientVerdict>;
  /**
   * Called once per message with the raw bytes exactly as received (after dot-unstuffing)
   * and the envelope; resolves when the message is durable. A throw → 451 (logged).
   */
  accept(raw: Uint8Array, envelope: SmtpEnvelope): Promise<{ ids: string[] }>;
  /**
   * Called at each MAIL FROM; the 250 waits until it resolves (in-flow control: see
   * src/mail/in-flow.ts). It must resolve within seconds; a rejection is treated as a resolve.
   */
  admitMessage?(): Promise<void>;
}

export interface SmtpIngressOptions {
  host: string;
  port: number;
  /** Our name in the greeting and EHLO reply. */
  hostname: string;
  log: Logger;
  /** Default 25 MiB. */
  maxMessageBytes?: number;
  /** Per message; default 100. */
  maxRecipients?: number;
  /** Concurrent connections; default 200. */
  maxClients?: number;
  /** Concurrent connections from one IPv4 address or one IPv6 /64; default 20. */
  maxClientsPerAddress?: number;
  /** Told of every connection accepted and closed (the operator metrics). */
  sessions?: { opened(): void; closed(): void };
  /** Idle time before a session is dropped with 421; default 60000. */
  socketTimeoutMs?: number;
  /** Total time of one session, from the greeting; default 600000. */
  sessionTimeoutMs?: number;
  /** Total time of one DATA, from the 354; default 300000. */
  dataTimeoutMs?: number;
  /** Bytes/s a DATA must average once `dataRateGraceMs` has passed; default 500, 0 turns the check off. */
  minDataRate?: number;
  /** Default 10000. */
  dataRateGraceMs?: number;
  /** NOOP/RSET/VRFY/EXPN/HELP/ETRN and error replies allowed between accepted messages; default 100. */
  maxJunkCommands?: number;
  /** How long close() waits for in-flight sessions; default 10000. */
  closeTimeoutMs?: number;
  /** STARTTLS is offered only when this is set. */
  tls?: { key: string | Buffer; cert: string | Buffer };
}

export interface SmtpIngress {
  port: number;
  close(): Promise<void>;
}
