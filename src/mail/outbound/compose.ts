import MailComposer from "nodemailer/lib/mail-composer";

export interface Composition {
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  textBody: string | null;
  htmlBody: string | null;
  messageId: string;
  replyTo: string;
  inReplyTo: string | null;
  references: string[];
}

/**
 * Builds the RFC 5322 message we send and keep. Addresses have passed our strict check and
 * the subject has no CR, LF or NUL by the time they get here; Bcc never appears in the
 * message, only in the envelope. Line endings are CRLF, as on the wire, so the stored raw
 * is what the relay received.
 */
export async function compose(c: Composition): Promise<Uint8Array> {
  const built = await new MailComposer({
    from: c.from,
    to: c.to,
    cc: c.cc.length > 0 ? c.cc : undefined,
    subject: c.subject,
    text: c.textBody ?? undefined,
    html: c.htmlBody ?? undefined,
    messageId: c.messageId,
    replyTo: c.replyTo,
    inReplyTo: c.inReplyTo ?? undefined,
    references: c.references.length > 0 ? c.references.join(" ") : undefined,
    date: new Date(),
    disableFileAccess: true,
    disableUrlAccess: true,
  })
    .compile()
    .build();
  // Every line of the built message is 7-bit (bodies are quoted-printable or base64), so latin1 round-trips.
  return Buffer.from(built.toString("latin1").replace(/\r?\n/g, "\r\n"), "latin1");
}
