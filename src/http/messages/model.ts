import { t } from "elysia";
import type { AttachmentRow, DeliveryEventRow, MessageRow } from "../../../db/schema/index.ts";
import { AppError, validationError } from "../../errors.ts";
import { checkPageRange, iso, PageQuery, Timestamp, Uuid } from "../schemas.ts";

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()]);

export const MESSAGE_STATUSES = ["received", "processed", "queued", "sent", "failed", "archived", "reviewed"] as const;
export const RISK_LEVELS = ["low", "medium", "high"] as const;
export const TRIAGE_LABELS = ["action_required", "reply_needed", "fyi", "newsletter", "notification", "spam"] as const;

export const listFields = {
  id: Uuid(),
  thread_id: Nullable(Uuid()),
  transport: t.Union([t.Literal("smtp"), t.Literal("agent-json")]),
  direction: t.Union([t.Literal("inbound"), t.Literal("outbound")]),
  from_address: t.String(),
  to_address: t.String(),
  subject: t.String(),
  snippet: t.String(),
  status: t.String({ description: MESSAGE_STATUSES.join(", ") }),
  risk_level: Nullable(t.String({ description: "low, medium or high; null until processed" })),
  triage_label: Nullable(t.String({ description: "action_required, reply_needed, fyi, newsletter, notification or spam; null until processed and for outbound mail" })),
  created_at: Timestamp,
  labels: t.Array(Uuid(), { description: "Ids of the mailbox labels applied to the message, by label name (ours)" }),
};

export const MessageListItem = t.Object(listFields, { additionalProperties: false });

export const AttachmentInfo = t.Object({ id: Uuid(), filename: Nullable(t.String()), mime_type: t.String(), size: t.Integer() }, { additionalProperties: false });

export const Message = t.Object(
  {
    ...listFields,
    mailbox_id: Uuid(),
    message_id_header: Nullable(t.String()),
    text_body: Nullable(t.String()),
    html_body: Nullable(t.String()),
    extracted_text: Nullable(t.String({ description: "The new text of the message for an agent: quoted history and signature removed, HTML turned into text when there is no text part." })),
    quoted_text: Nullable(
      t.String({
        description:
          "What extracted_text left out (ours): the reply headers with the quoted lines and history, then the signature, as written; empty when nothing was removed, null when the message was not split (outbound, agent protocol, not processed yet, or stored before this field).",
      }),
    ),
    headers: t.Array(t.Object({ key: t.String(), value: t.String() })),
    suspicious_signals: t.Array(t.String()),
    attachments: t.Array(AttachmentInfo),
    archived_at: Nullable(t.String({ format: "date-time", description: "When the message was last archived (ours); null if never" })),
    reviewed_at: Nullable(t.String({ format: "date-time", description: "When the message was last marked reviewed (ours); null if never" })),
    authentication: Nullable(
      t.Object(
        { spf: t.String(), dkim: t.String(), dmarc: t.String() },
        { additionalProperties: false, description: "SPF, DKIM and DMARC results of inbound mail (ours): pass, fail, softfail, neutral, none, temperror or permerror; null until processed and for outbound mail" },
      ),
    ),
  },
  { additionalProperties: false },
);

export const MessageParams = t.Object({ messageId: Uuid("message id") });

export const messageListItem = (m: MessageRow, labels: string[] = []) => ({
  id: m.id,
  thread_id: m.threadId,
  transport: m.transport,
  direction: m.direction,
  from_address: m.fromAddress,
  to_address: m.toAddress,
  subject: m.subject,
  snippet: m.snippet,
  status: m.status,
  risk_level: m.riskLevel,
  triage_label: m.triageLabel,
  created_at: iso(m.createdAt),
  labels,
});

export const attachmentInfo = (a: AttachmentRow) => ({ id: a.id, filename: a.filename, mime_type: a.mimeType, size: a.size });

export const fullMessage = (m: MessageRow, attachments: AttachmentRow[], labels: string[] = []) => ({
  ...messageListItem(m, labels),
  mailbox_id: m.mailboxId,
  message_id_header: m.messageIdHeader,
  text_body: m.textBody,
  html_body: m.htmlBody,
  extracted_text: m.extractedText,
  quoted_text: m.quotedText ?? null,
  headers: m.headers,
  suspicious_signals: m.suspiciousSignals,
  attachments: attachments.map(attachmentInfo),
  archived_at: m.archivedAt ? iso(m.archivedAt) : null,
  reviewed_at: m.reviewedAt ? iso(m.reviewedAt) : null,
  authentication: m.auth && m.direction === "inbound" ? { spf: m.auth.spf, dkim: m.auth.dkim, dmarc: m.auth.dmarc } : null,
});

/** The enumerated filters of the message list and their values. */
export const MESSAGE_FILTERS = {
  status: MESSAGE_STATUSES,
  direction: ["inbound", "outbound"],
  transport: ["smtp", "agent-json"],
  triage_label: TRIAGE_LABELS,
  risk_level: RISK_LEVELS,
} as const;

/** An optional filter taking one of `values` (a union of literals, which OpenAPI shows as the choices). */
export const oneOf = <const V extends readonly [string, ...string[]]>(values: V, description: string) =>
  t.Optional(t.Union(values.map((v) => t.Literal(v)) as ReturnType<typeof t.Literal<V[number]>>[], { description }));

/** GET /v1/mailboxes/{id}/messages: spec section 4, plus `label` and `thread_id` (ours). */
export const MessageListQuery = t.Object({
  ...PageQuery.properties,
  query: t.Optional(t.String({ maxLength: 500, pattern: "^[^\\u0000]*$", description: "Words of the subject, each matched as a word prefix (full-text index)" })),
  status: oneOf(MESSAGE_FILTERS.status, "Message status"),
  direction: oneOf(MESSAGE_FILTERS.direction, "inbound or outbound"),
  transport: oneOf(MESSAGE_FILTERS.transport, "smtp or agent-json"),
  triage_label: oneOf(MESSAGE_FILTERS.triage_label, "Triage label set by assessment"),
  risk_level: oneOf(MESSAGE_FILTERS.risk_level, "Risk level set by assessment"),
  label: t.Optional(Uuid("Only messages carrying this label (a label id of the mailbox; another id matches nothing)")),
  thread_id: t.Optional(Uuid("Only messages of this thread")),
});

/**
 * The `transform` hook of a list: page and limit ranges (checkPageRange) and enumerated
 * filters, checked on the raw query so that every refusal names its parameter and the values
 * it takes (the schema's own message for a union reads "one of: 'string', 'string'").
 */
export function checkListQuery(enums: Record<string, readonly string[]>) {
  return (ctx: { query: object }): void => {
    const fields: { path: string; message: string }[] = [];
    for (const [name, values] of Object.entries(enums)) {
      const raw = (ctx.query as Record<string, unknown>)[name];
      if (raw === undefined) continue;
      if (!(Array.isArray(raw) ? raw : [raw]).every((v) => typeof v === "string" && values.includes(v))) {
        fields.push({ path: `query.${name}`, message: `must be one of: ${values.join(", ")}` });
      }
    }
    try {
      checkPageRange(ctx);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== "validation_error") throw err;
      fields.unshift(...((err.details.fields as typeof fields | undefined) ?? []));
    }
    if (fields.length > 0) throw validationError(`${fields[0]!.path}: ${fields[0]!.message}`, fields);
  };
}

export const AttachmentParams = t.Object({ messageId: Uuid("message id"), attachmentId: Uuid("attachment id") });
export const MessageLabelParams = t.Object({ messageId: Uuid("message id"), labelId: Uuid("label id") });

export const MessageState = <S extends string>(status: S) => t.Object({ message_id: Uuid(), status: t.Literal(status) }, { additionalProperties: false });
export const MessageLabels = t.Object(
  { message_id: Uuid(), labels: t.Array(Uuid(), { description: "Ids of the labels now applied, by label name" }) },
  { additionalProperties: false },
);

export const DeliveryEvent = t.Object(
  { id: Uuid(), status: t.String({ description: "queued, sent, retrying or failed" }), detail: t.String(), created_at: Timestamp },
  { additionalProperties: false },
);
export const deliveryEvent = (e: DeliveryEventRow) => ({ id: e.id, status: e.status, detail: e.detail, created_at: iso(e.createdAt) });

/** A header-safe Content-Type for stored bytes: the stored type when it is a plain type/subtype, else octet-stream. */
export function safeContentType(mimeType: string): string {
  return /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i.test(mimeType) ? mimeType.toLowerCase() : "application/octet-stream";
}

/**
 * `attachment; filename="ascii fallback"; filename*=UTF-8''percent-encoded` (RFC 6266 / 8187).
 * Path separators and control characters are dropped; quotes never reach the quoted form.
 */
export function contentDisposition(filename: string | null, fallback: string): string {
  const cleaned = Array.from(
    (filename ?? "")
      .toWellFormed()
      .replace(/[\u0000-\u001f\u007f]/g, "")
      .replace(/[\/\\]/g, "_")
      .trim(),
  )
    .slice(0, 255)
    .join("");
  const name = cleaned === "" || cleaned === "." || cleaned === ".." ? fallback : cleaned;
  const ascii = name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\%;]/g, "_");
  const encoded = encodeURIComponent(name).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
