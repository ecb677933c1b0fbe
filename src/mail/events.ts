import type { AttachmentRow, MessageRow, ProtocolMessageRow } from "../../db/schema/index.ts";

/**
 * The payload of message.received, message.processed and message.sent (spec section 6),
 * plus `transport`, and for agent protocol messages a `protocol` object (action, parameters,
 * the sending agent).
 */
export function messageEventPayload(m: MessageRow, attachments: AttachmentRow[] = [], protocol?: ProtocolMessageRow): Record<string, unknown> {
  return {
    id: m.id,
    transport: m.transport,
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
    ...(protocol ? { protocol: protocolFields(protocol) } : {}),
  };
}

export const protocolFields = (p: ProtocolMessageRow) => ({
  action: p.action,
  parameters: p.parameters,
  from_agent: p.fromAgent,
  on_behalf_of: p.onBehalfOf,
  priority: p.priority,
  metadata: p.metadata,
  conversation_id: p.conversationId,
  status: p.status,
});
