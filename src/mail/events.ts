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

/**
 * messageEventPayload of a stored message without attachments or protocol fields, built by the
 * database from the row itself (`m` is the `messages` row in the statement that uses it). An
 * outbound message's bodies can be megabytes: reading them back, serialising them and sending
 * them again as a parameter held the event loop for hundreds of milliseconds; this way they
 * never leave the server. The same keys and values as messageEventPayload (jsonb orders keys
 * itself either way).
 */
export const MESSAGE_EVENT_PAYLOAD_SQL = `jsonb_build_object(
  'id', m.id, 'transport', m.transport, 'mailbox_id', m.mailbox_id, 'thread_id', m.thread_id,
  'direction', m.direction, 'from_address', m.from_address, 'to_address', m.to_address,
  'subject', m.subject, 'status', m.status, 'risk_level', m.risk_level, 'triage_label', m.triage_label,
  'text_body', m.text_body, 'html_body', m.html_body, 'attachments', '[]'::jsonb,
  'suspicious_signals', m.suspicious_signals)`;
