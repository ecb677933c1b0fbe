import { t } from "elysia";
import type { WebhookAttemptRow, WebhookEndpointRow } from "../../../db/schema/index.ts";
import { WEBHOOK_EVENTS } from "../../webhooks/signing.ts";
import { iso, Timestamp, Uuid } from "../schemas.ts";

const EventName = t.String({ description: `one of ${WEBHOOK_EVENTS.join(", ")}`, minLength: 1, maxLength: 100 });
const Url = t.String({ minLength: 1, maxLength: 2048, description: "http(s) URL; private, loopback and link-local targets are refused unless ALLOW_PRIVATE_WEBHOOK_TARGETS" });

export const WebhookEndpoint = t.Object(
  {
    id: Uuid(),
    mailbox_id: Uuid(),
    url: t.String(),
    events: t.Array(t.String()),
    status: t.Union([t.Literal("active"), t.Literal("degraded")]),
    enabled: t.Boolean(),
    consecutive_failures: t.Integer({ description: "failed attempts since the last success; 5 or more is `degraded`" }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);

export const Secret = {
  signing_secret: t.String({ description: "hex, 256 bits: the HMAC key of x-service-signature (shown only now)" }),
  standard_webhooks_secret: t.String({ description: "the same key in the whsec_ form that Standard Webhooks libraries take" }),
};

export const CreateWebhookBody = t.Object({ url: Url, events: t.Array(EventName, { minItems: 1, maxItems: 10 }) }, { additionalProperties: false });
export const UpdateWebhookBody = t.Object(
  { url: t.Optional(Url), events: t.Optional(t.Array(EventName, { minItems: 1, maxItems: 10 })), enabled: t.Optional(t.Boolean()) },
  { additionalProperties: false },
);
export const EndpointParams = t.Object({ endpointId: Uuid("webhook endpoint id") });
export const DeliveryParams = t.Object({ endpointId: Uuid("webhook endpoint id"), deliveryId: Uuid("delivery id") });
export const DeliveriesQuery = t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 50 })) });
export const ReplayFailedBody = t.Object({ since: t.Optional(t.String({ format: "date-time", description: "only deliveries created at or after this time" })) }, { additionalProperties: false });

export const DeliveryAttempt = t.Object(
  {
    id: Uuid("attempt id"),
    delivery_id: Uuid("the delivery (same webhook-id on every attempt)"),
    endpoint_id: Uuid(),
    attempt: t.Integer({ description: "1 for the first request of the delivery, then 2, 3… (replays included)" }),
    trigger: t.Union([t.Literal("scheduled"), t.Literal("replay")]),
    url: t.String(),
    status_code: t.Union([t.Integer(), t.Null()]),
    response_body: t.Union([t.String({ description: "at most 4 KiB" }), t.Null()]),
    duration_ms: t.Integer(),
    success: t.Boolean(),
    error: t.Union([t.String(), t.Null()]),
    started_at: Timestamp,
    finished_at: Timestamp,
    event: t.Optional(t.Union([t.String(), t.Null()], { description: "the event the delivery carries (history only; ours)" })),
    request_body: t.Optional(t.Union([t.String({ description: "the JSON body sent, its first 16 KiB" }), t.Null()], { description: "history only; ours" })),
    delivery_status: t.Optional(t.Union([t.String({ description: "pending, succeeded or failed" }), t.Null()], { description: "the delivery's state now (history only; ours)" })),
  },
  { additionalProperties: false },
);

export const webhookEndpoint = (e: WebhookEndpointRow) => ({
  id: e.id,
  mailbox_id: e.mailboxId,
  url: e.url,
  events: e.events,
  status: e.status,
  enabled: e.enabled,
  consecutive_failures: e.consecutiveFailures,
  created_at: iso(e.createdAt),
  updated_at: iso(e.updatedAt),
});

export const deliveryAttempt = (a: WebhookAttemptRow & { event?: string | null; requestBody?: string | null; deliveryStatus?: string | null }) => ({
  id: a.id,
  delivery_id: a.deliveryId,
  endpoint_id: a.endpointId ?? "",
  attempt: a.attempt,
  trigger: a.trigger,
  url: a.url,
  status_code: a.statusCode,
  response_body: a.responseBody,
  duration_ms: a.durationMs,
  success: a.success,
  error: a.error,
  started_at: iso(a.startedAt),
  finished_at: iso(a.finishedAt),
  ...(a.event !== undefined ? { event: a.event, request_body: a.requestBody ?? null, delivery_status: a.deliveryStatus ?? null } : {}),
});
