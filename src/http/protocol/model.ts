import { t } from "elysia";
import type { MessageRow, ProtocolMessageRow, ProtocolResponseRow } from "../../../db/schema/index.ts";
import { responseEventPayload } from "../../protocol/records.ts";
import { iso, JsonObject, Timestamp, Uuid } from "../schemas.ts";

const Json = (description: string) => t.Object({}, { additionalProperties: true, description });
/** Request side: bounded at the top (JsonObject); metadata's size is checked by the inbox route. */
const JsonInput = (description: string) => JsonObject(description, 256);
const Priority = t.Union([t.Literal("low"), t.Literal("normal"), t.Literal("high"), t.Literal("urgent")]);
const Status = t.Union([t.Literal("received"), t.Literal("routed"), t.Literal("responded"), t.Literal("failed")]);

export const InboxBody = t.Object(
  {
    from: t.Optional(
      t.Object(
        {
          agent: t.Optional(t.String({ maxLength: 200, description: "the sending agent's name" })),
          on_behalf_of: t.Optional(t.String({ maxLength: 320, description: "the person or organisation the agent acts for" })),
          callback_url: t.Optional(t.String({ maxLength: 2048, description: "responses are POSTed here, signed with x-service-callback-signature" })),
        },
        { additionalProperties: false },
      ),
    ),
    action: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "an enabled action of the recipient; omit for a free-form message" })),
    parameters: t.Optional(JsonInput("must match the action's parameter schema; only with an action")),
    subject: t.String({ maxLength: 998, description: "required, not blank" }),
    body: t.Optional(t.String({ maxLength: 1_000_000, description: "required (not blank) when there is no action" })),
    thread_id: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "the sender's conversation id; a sender's messages with the same id share a thread" })),
    priority: t.Optional(Priority),
    metadata: t.Optional(JsonInput("kept and returned as given (at most 16 KiB)")),
  },
  { additionalProperties: false },
);

export const RespondBody = t.Object(
  {
    body: t.Optional(t.String({ maxLength: 1_000_000 })),
    structured_data: t.Optional(JsonInput("must match the action's response schema")),
    structuredData: t.Optional(JsonInput("the same as structured_data")),
  },
  { additionalProperties: false },
);

export const ProtocolResponse = t.Object(
  {
    id: Uuid(),
    protocol_message_id: Uuid(),
    body: t.String(),
    structured_data: Json("as given"),
    delivery_mode: t.Union([t.Literal("poll"), t.Literal("callback")]),
    status: t.Union([t.Literal("pending"), t.Literal("delivered"), t.Literal("failed")], { description: "poll: delivered at once; callback: pending until the POST succeeds, failed after the last retry" }),
    responder: t.Union([t.Literal("agent"), t.Literal("runtime"), t.Literal("auto")]),
    created_at: Timestamp,
    delivered_at: t.Union([Timestamp, t.Null()]),
  },
  { additionalProperties: false },
);

export const Accepted = t.Object(
  {
    id: Uuid(),
    status: Status,
    action: t.Union([t.String(), t.Null()]),
    thread_id: Uuid("the recipient's thread; may be sent back as thread_id"),
    created_at: Timestamp,
    status_url: t.String(),
    responses_url: t.String(),
  },
  { additionalProperties: false },
);

export const ProtocolMessage = t.Object(
  {
    id: Uuid(),
    status: Status,
    action: t.Union([t.String(), t.Null()]),
    parameters: t.Union([Json("as validated"), t.Null()]),
    subject: t.String(),
    body: t.Union([t.String(), t.Null()]),
    thread_id: t.Union([Uuid(), t.Null()]),
    conversation_id: t.Union([t.String(), t.Null()]),
    priority: Priority,
    metadata: Json("as given"),
    from: t.Object({ address: t.String(), agent: t.Union([t.String(), t.Null()]), on_behalf_of: t.Union([t.String(), t.Null()]), callback_url: t.Union([t.String(), t.Null()]) }),
    to: t.String(),
    risk_level: t.Union([t.String(), t.Null()]),
    triage_label: t.Union([t.String(), t.Null()]),
    error: t.Union([t.Object({ code: t.String(), message: t.String() }), t.Null()]),
    response: t.Union([ProtocolResponse, t.Null()], { description: "the latest response" }),
    responses_count: t.Integer(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

export const InboxParams = t.Object({ messageId: t.String({ maxLength: 64 }) });

export const responseView = (r: ProtocolResponseRow) => ({
  ...responseEventPayload(r),
  responder: r.responder,
  created_at: iso(r.createdAt),
  delivered_at: r.deliveredAt ? iso(r.deliveredAt) : null,
});

export const messageView = (m: MessageRow, p: ProtocolMessageRow, responses: ProtocolResponseRow[]) => ({
  id: m.id,
  status: p.status,
  action: p.action,
  parameters: p.parameters,
  subject: m.subject,
  body: m.textBody,
  thread_id: m.threadId,
  conversation_id: p.conversationId,
  priority: p.priority,
  metadata: p.metadata,
  from: { address: m.fromAddress, agent: p.fromAgent, on_behalf_of: p.onBehalfOf, callback_url: p.callbackUrl },
  to: m.toAddress,
  risk_level: m.riskLevel,
  triage_label: m.triageLabel,
  error: p.error,
  response: responses.length > 0 ? responseView(responses[responses.length - 1]!) : null,
  responses_count: responses.length,
  created_at: iso(m.createdAt),
  updated_at: iso(p.updatedAt),
});
