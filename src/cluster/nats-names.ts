/**
 * Every NATS name a deployment uses, under its prefix: subjects are `{prefix}.…` (so one
 * permission `{prefix}.>` covers them) and the stream is `{prefix}-webhooks`. Two deployments
 * with different prefixes share a NATS cluster without seeing each other's messages.
 */
export interface NatsNames {
  prefix: string;
  webhookStream: string;
  webhookSubject: string;
  /** Durable consumer of the webhook stream; consumers are scoped by their stream. */
  webhookConsumer: string;
  keyRevoked: string;
  mailboxChanged: string;
}

/** Stream names take [A-Za-z0-9_-]; subject tokens take the same without dots, `*` or `>`. */
export const NATS_PREFIX_RE = /^[A-Za-z0-9_-]{1,64}$/;

export function natsNames(prefix: string): NatsNames {
  if (!NATS_PREFIX_RE.test(prefix)) throw new Error(`NATS prefix must match ${NATS_PREFIX_RE}, got "${prefix}"`);
  return {
    prefix,
    webhookStream: `${prefix}-webhooks`,
    webhookSubject: `${prefix}.webhooks.deliver`,
    webhookConsumer: "webhook-senders",
    keyRevoked: `${prefix}.auth.key-revoked`,
    mailboxChanged: `${prefix}.mailbox.changed`,
  };
}

/** The stream of versions before NATS_PREFIX; left alone (old nodes may still read it during an upgrade). */
export const LEGACY_WEBHOOK_STREAM = "MAILROOM_WEBHOOKS";
