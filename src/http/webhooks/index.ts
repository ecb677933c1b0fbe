import { Elysia, t } from "elysia";
import { standardWebhooksSecret } from "../../webhooks/signing.ts";
import type { WebhookSystem } from "../../webhooks/index.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import {
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryAttempt,
  deliveryAttempt,
  DeliveryParams,
  EndpointParams,
  ReplayFailedBody,
  Secret,
  UpdateWebhookBody,
  WebhookEndpoint,
  webhookEndpoint,
} from "./model.ts";

const tags = ["Webhooks"];

export function webhookRoutes(webhooks: WebhookSystem, mutation: MutationHooks) {
  const endpoints = webhooks.endpoints;
  return new Elysia({ name: "webhooks" })
    .get("/v1/mailboxes/:mailboxId/webhooks", async ({ params }) => ({ items: (await endpoints.list(params.mailboxId)).map(webhookEndpoint) }), {
      params: MailboxParams,
      response: { 200: t.Object({ items: t.Array(WebhookEndpoint) }) },
      detail: { summary: "List a mailbox's webhook endpoints", description: "Oldest first. Never includes secrets.", tags },
    })
    .get("/v1/webhooks/:endpointId", async ({ params }) => ({ webhook: webhookEndpoint(await endpoints.get(params.endpointId)) }), {
      params: EndpointParams,
      response: { 200: t.Object({ webhook: WebhookEndpoint }) },
      detail: { summary: "Get a webhook endpoint", tags },
    })
    .get("/v1/webhooks/:endpointId/deliveries", async ({ params, query }) => ({ items: (await webhooks.history(params.endpointId, query.limit ?? 50)).map(deliveryAttempt) }), {
      params: EndpointParams,
      query: DeliveriesQuery,
      response: { 200: t.Object({ items: t.Array(DeliveryAttempt) }) },
      detail: { summary: "Delivery history", description: "Every attempt, newest first (limit 1-100, default 50).", tags },
    })
    .guard(mutation, (writes) =>
      writes
        .post(
          "/v1/mailboxes/:mailboxId/webhooks",
          async ({ params, body, set }) => {
            const row = await endpoints.create(params.mailboxId, body);
            set.status = 201;
            return { webhook: webhookEndpoint(row), signing_secret: row.secret, standard_webhooks_secret: standardWebhooksSecret(row.secret) };
          },
          {
            params: MailboxParams,
            body: CreateWebhookBody,
            response: { 201: t.Object({ webhook: WebhookEndpoint, ...Secret }) },
            detail: { summary: "Register a webhook endpoint", description: "The signing secret is returned only in this response. Takes Idempotency-Key.", tags },
          },
        )
        .patch("/v1/webhooks/:endpointId", async ({ params, body }) => ({ webhook: webhookEndpoint(await endpoints.update(params.endpointId, body)) }), {
          params: EndpointParams,
          body: UpdateWebhookBody,
          response: { 200: t.Object({ webhook: WebhookEndpoint }) },
          detail: { summary: "Change a webhook endpoint", description: "url, events, enabled; fields left out keep their value. A disabled endpoint gets no new deliveries, and its pending ones fail.", tags },
        })
        .delete(
          "/v1/webhooks/:endpointId",
          async ({ params }) => ({ webhook: webhookEndpoint(await endpoints.remove(params.endpointId)) }),
          { params: EndpointParams, response: { 200: t.Object({ webhook: WebhookEndpoint }) }, detail: { summary: "Delete a webhook endpoint", description: "With its deliveries and their history.", tags } },
        )
        .post(
          "/v1/webhooks/:endpointId/rotate-secret",
          async ({ params }) => {
            const row = await endpoints.rotateSecret(params.endpointId);
            return { webhook: webhookEndpoint(row), signing_secret: row.secret, standard_webhooks_secret: standardWebhooksSecret(row.secret) };
          },
          {
            params: EndpointParams,
            response: { 200: t.Object({ webhook: WebhookEndpoint, ...Secret }) },
            detail: { summary: "Rotate the signing secret", description: "The old secret stops signing at once, retries included.", tags },
          },
        )
        .post("/v1/webhooks/:endpointId/deliveries/:deliveryId/replay", async ({ params }) => ({ attempt: deliveryAttempt(await webhooks.replay(params.endpointId, params.deliveryId)) }), {
          params: DeliveryParams,
          response: { 200: t.Object({ attempt: DeliveryAttempt }) },
          detail: { summary: "Replay a delivery", description: "Sends it again now as a new attempt, records it and returns it. A success completes the delivery.", tags },
        })
        .post(
          "/v1/webhooks/:endpointId/replay-failed",
          async ({ params, body, set }) => {
            const replayed = await webhooks.replayFailed(params.endpointId, body?.since ? new Date(body.since) : undefined);
            set.status = 202;
            return { replayed };
          },
          {
            params: EndpointParams,
            body: t.Optional(ReplayFailedBody),
            response: { 202: t.Object({ replayed: t.Integer({ description: "failed deliveries put back on a fresh retry schedule" }) }) },
            detail: { summary: "Replay every failed delivery", description: "Optionally only those created at or after `since`. They go out again with the full retry schedule.", tags },
          },
        ),
    );
}
