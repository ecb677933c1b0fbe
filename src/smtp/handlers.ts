import type { SMTPServerAddress, SMTPServerDataStream, SMTPServerSession } from "smtp-server";
import type { Logger } from "../log.ts";
import { readMessage } from "./message.ts";
import { queuedText, REPLY, smtpError } from "./replies.ts";
import type { SessionGuard } from "./session-guard.ts";
import type { RecipientVerdict, SmtpEnvelope, SmtpIngressDeps } from "./types.ts";

type Callback = (err?: Error | null) => void;
type DataCallback = (err?: Error | null, message?: string) => void;

const REFUSAL_CODES = new Set([450, 451, 452, 550, 551, 553]);

/**
 * The RCPT and DATA decisions. The mailbox a recipient resolved to hangs off the very address
 * object smtp-server keeps in the envelope, so RSET/EHLO/a finished transaction forget it
 * together with the envelope, and DATA can prove every recipient had an ok verdict.
 */
export function createHandlers(
  deps: SmtpIngressDeps,
  log: Logger,
  limits: { maxMessageBytes: number; maxRecipients: number },
  guardOf: (session: SMTPServerSession) => SessionGuard | undefined,
) {
  const approved = new WeakMap<SMTPServerAddress, string>();

  function refuse(session: SMTPServerSession, code: number, text: string, fields: Record<string, unknown>): Error {
    log.info({ sessionId: session.id, code, reply: text, ...fields }, "smtp refused");
    return smtpError(code, text);
  }

  async function decide(address: SMTPServerAddress, session: SMTPServerSession): Promise<Error | null> {
    const rcpt = address.address.toLowerCase();
    const envelope = session.envelope;
    const earlier = envelope.rcptTo.find((r) => r.address.toLowerCase() === rcpt);
    const earlierMailbox = earlier && approved.get(earlier);
    if (earlierMailbox) {
      // smtp-server replaces the earlier entry with this one; it keeps its verdict.
      approved.set(address, earlierMailbox);
      return null;
    }
    if (!earlier && envelope.rcptTo.length >= limits.maxRecipients) {
      return refuse(session, REPLY.tooManyRecipients.code, REPLY.tooManyRecipients.text, { rcpt });
    }
    let verdict: RecipientVerdict;
    try {
      verdict = await deps.resolveRecipient(rcpt);
    } catch (err) {
      log.error({ err, sessionId: session.id, rcpt }, "smtp recipient lookup failed");
      return smtpError(REPLY.recipientLookupFailed.code, REPLY.recipientLookupFailed.text);
    }
    if (verdict?.ok === true && typeof verdict.mailboxId === "string" && verdict.mailboxId) {
      approved.set(address, verdict.mailboxId);
      return null;
    }
    if (verdict?.ok === false && REFUSAL_CODES.has(verdict.code)) {
      return refuse(session, verdict.code, verdict.message || "Recipient refused", { rcpt });
    }
    // Anything else must not turn into an accepted recipient: this is what keeps us from relaying.
    log.error({ sessionId: session.id, rcpt, verdict }, "smtp recipient lookup returned a malformed verdict");
    return smtpError(REPLY.recipientLookupFailed.code, REPLY.recipientLookupFailed.text);
  }

  function onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: Callback): void {
    decide(address, session).then(callback, (err) => {
      log.error({ err, sessionId: session.id }, "smtp RCPT handler failed");
      callback(smtpError(REPLY.recipientLookupFailed.code, REPLY.recipientLookupFailed.text));
    });
  }

  async function receive(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
    // Taken before the stream is read: the envelope is reset right after we answer.
    const from = session.envelope.mailFrom;
    const rcptTo = session.envelope.rcptTo.map((r) => ({ address: r.address.toLowerCase(), mailboxId: approved.get(r) }));
    const guard = guardOf(session);
    const result = await readMessage(stream, limits.maxMessageBytes, guard?.watchData(stream));
    if (result.kind === "cut") {
      // The guard has replied 421 and is closing the connection; this error only ends the handler.
      throw smtpError(REPLY.aborted.code, REPLY.aborted.text);
    }
    if (result.kind === "aborted") {
      log.info({ sessionId: session.id }, "smtp client left during DATA; partial message dropped");
      throw smtpError(REPLY.aborted.code, REPLY.aborted.text);
    }
    if (result.kind === "too-big") {
      throw refuse(session, REPLY.messageTooBig.code, REPLY.messageTooBig.text, { bytes: result.bytes, limit: limits.maxMessageBytes });
    }
    if (rcptTo.some((r) => !r.mailboxId)) {
      log.error({ sessionId: session.id }, "smtp envelope holds a recipient without a verdict; message refused");
      throw smtpError(REPLY.storeFailed.code, REPLY.storeFailed.text);
    }
    const envelope: SmtpEnvelope = {
      mailFrom: from && from.address ? from.address : null,
      rcptTo: rcptTo as SmtpEnvelope["rcptTo"],
      remoteAddress: session.remoteAddress || null,
      heloName: session.hostNameAppearsAs || null,
    };
    let ids: string[];
    try {
      ({ ids } = await deps.accept(result.raw, envelope));
    } catch (err) {
      log.error({ err, sessionId: session.id, bytes: result.raw.length }, "smtp message could not be stored");
      throw smtpError(REPLY.storeFailed.code, REPLY.storeFailed.text);
    }
    guard?.progressed();
    const queued = Array.isArray(ids) && ids.length > 0 ? ids : [`${session.id}.${session.transaction}`];
    log.debug({ sessionId: session.id, bytes: result.raw.length, recipients: rcptTo.length, ids: queued }, "smtp message accepted");
    return queuedText(queued);
  }

  function onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: DataCallback): void {
    receive(stream, session).then(
      (text) => callback(null, text),
      (err) => callback(err instanceof Error && "responseCode" in err ? err : smtpError(REPLY.storeFailed.code, REPLY.storeFailed.text)),
    );
  }

  return { onRcptTo, onData };
}
