import type { SmtpIngressDeps } from "../smtp/types.ts";
import type { InFlow } from "./in-flow.ts";
import type { Ingest } from "./ingest.ts";
import type { Recipient, RecipientProblem, Recipients } from "./recipients.ts";

/** SMTP replies for the recipients we refuse at RCPT time (the HTTP ingress maps the same problems to 4xx). */
const REFUSAL: Record<RecipientProblem, (address: string) => { code: 550; message: string }> = {
  not_local: (a) => ({ code: 550, message: `5.7.1 Relaying denied: ${a} is not a domain served here` }),
  unknown_mailbox: (a) => ({ code: 550, message: `5.1.1 No such mailbox: ${a}` }),
  mailbox_disabled: (a) => ({ code: 550, message: `5.2.1 Mailbox disabled: ${a}` }),
  invalid_reply_token: (a) => ({ code: 550, message: `5.1.1 Invalid reply alias: ${a}` }),
  expired_reply_token: (a) => ({ code: 550, message: `5.1.1 Reply alias has expired: ${a}` }),
};

// RCPT decisions wait here for their DATA; bounded, as a client may never send DATA.
const PENDING_LIMIT = 10_000;

/** Joins the SMTP listener to the recipient rules, the ingest pipeline and its in-flow control. */
export function smtpBridge(recipients: Recipients, ingest: Ingest, inFlow?: InFlow): SmtpIngressDeps {
  const resolved = new Map<string, Recipient>();
  return {
    async resolveRecipient(address) {
      const r = await recipients.resolve(address);
      if (!r.ok) return { ok: false, ...REFUSAL[r.problem](r.address) };
      if (resolved.size >= PENDING_LIMIT) resolved.delete(resolved.keys().next().value!);
      resolved.set(r.recipient.address, r.recipient);
      return { ok: true, mailboxId: r.recipient.mailboxId };
    },
    async accept(raw, envelope) {
      const list: Recipient[] = envelope.rcptTo.map(
        (rcpt) => resolved.get(rcpt.address.toLowerCase()) ?? { address: rcpt.address.toLowerCase(), mailboxId: rcpt.mailboxId, replyToken: null },
      );
      return ingest.accept({ raw, mailFrom: envelope.mailFrom, recipients: list, remoteAddress: envelope.remoteAddress, heloName: envelope.heloName });
    },
    ...(inFlow ? { admitMessage: () => inFlow.admit() } : {}),
  };
}
