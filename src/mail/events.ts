import type { AttachmentRow, MessageRow } from "../../db/schema/index.ts";

/** The payload of message.received, message.processed and message.sent (spec section 6). */
export function messageEventPayload(m: MessageRow, attachments: AttachmentRow[] = []): Record<string, unknown> {
  return {
    id: m.id,
    mailbox_id: m.mailboxId,
    thread_id: m.threadId,
    direction: m.direction,
    from_address: m.fromAddress,
    to_address: m.toAddress,
    subject: m.subject,
    status: m.status,
    risk_level: m.riskLevel,
    triage_label: m.triageLabel,
    text_body: m.textBody,
    html_body: m.htmlBody,
    attachments: attachments.map((a) => ({ id: a.id, filename: a.filename, mime_type: a.mimeType, size: a.size })),
    suspicious_signals: m.suspiciousSignals,
  };
}
