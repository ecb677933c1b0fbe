import { createHmac, randomBytes } from "node:crypto";

/** The events of spec section 6, the only names an endpoint may subscribe to. */
export const WEBHOOK_EVENTS = ["message.received", "message.processed", "message.sent", "protocol.response.created"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** 256 random bits as lowercase hex: the endpoint's signing secret. */
export const newSigningSecret = (): string => randomBytes(32).toString("hex");

/** x-service-signature: lowercase hex HMAC-SHA256 of the raw body, keyed with the secret as written. */
export const serviceSignature = (secret: string, body: string): string => createHmac("sha256", secret).update(body).digest("hex");

/**
 * Standard Webhooks signs "{webhook-id}.{webhook-timestamp}.{body}" and sends "v1,{base64}".
 * The key is the same secret bytes as x-service-signature uses, so one secret verifies both;
 * standardWebhooksSecret() writes it in the "whsec_" form the libraries take.
 */
export const standardSignature = (key: string | Uint8Array, id: string, timestamp: number, body: string): string =>
  `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;

export const standardWebhooksSecret = (secret: string): string => `whsec_${Buffer.from(secret, "utf8").toString("base64")}`;

/** The headers of one attempt; every attempt of a delivery carries the same webhook-id. */
export function deliveryHeaders(input: { secret: string; event: string; deliveryId: string; body: string; now: Date; signatureHeader?: string }): Record<string, string> {
  const timestamp = Math.floor(input.now.getTime() / 1000);
  return {
    "content-type": "application/json",
    "user-agent": "Mailroom-Webhooks/1",
    "x-service-event": input.event,
    [input.signatureHeader ?? "x-service-signature"]: serviceSignature(input.secret, input.body),
    "x-service-delivery": input.deliveryId,
    "webhook-id": input.deliveryId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": standardSignature(input.secret, input.deliveryId, timestamp, input.body),
  };
}
