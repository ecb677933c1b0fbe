import type { JsonIntake } from "./json-intake.ts";
import type { WebhookSystem } from "../webhooks/index.ts";
import { webhookRoutes } from "./webhooks/index.ts";
import { Elysia } from "elysia";
import type { Mailboxes } from "../../actors/mailbox/client.ts";
import type { Db } from "../../db/client.ts";
import type { Authenticator } from "../auth/authenticate.ts";
import type { Accounts } from "../domain/accounts.ts";
import type { Owners } from "../domain/owners.ts";
import type { Suppressions } from "../domain/suppressions.ts";
import type { Logger } from "../log.ts";
import { accountRoutes } from "./accounts/index.ts";
import { apiKeyRoutes } from "./api-keys/index.ts";
import { healthRoutes, type HealthDeps } from "./health.ts";
import type { IdempotencyStore } from "./idempotency.ts";
import { mailboxRoutes } from "./mailboxes/index.ts";
import { openapiRoutes } from "./openapi.ts";
import { draftRoutes } from "./drafts/index.ts";
import { labelRoutes } from "./labels/index.ts";
import { routeBodies, type RouteBody } from "./body.ts";
import { requestPipeline } from "./pipeline.ts";
import { policyRoutes } from "./policy/index.ts";
import { suppressionRoutes } from "./suppressions/index.ts";
import type { JobRunner } from "../jobs/runner.ts";
import type { Ingest } from "../mail/ingest.ts";
import type { Recipients } from "../mail/recipients.ts";
import { inboundRoutes } from "./inbound/index.ts";
import { messageRoutes } from "./messages/index.ts";
import { threadRoutes } from "./threads/index.ts";
import type { EventFeed } from "../events/feed.ts";
import { eventRoutes } from "./events/index.ts";
import { SEND_TEXT_FIELDS, sendRoutes } from "./send/index.ts";
import { actionRoutes } from "./actions/index.ts";
import { autopilotRoutes } from "./autopilot/index.ts";
import { protocolRoutes } from "./protocol/index.ts";
import { callbackSecretRoutes } from "./protocol/callback-secret.ts";
import { runtimeRoutes } from "./runtime/index.ts";
import type { ProtocolHosts } from "../protocol/hosts.ts";
import type { TargetPolicy } from "../net/target-check.ts";
import type { SenderProfiles } from "../domain/sender-profiles.ts";
import type { Intelligence } from "../intel/service.ts";
import { searchRoutes } from "./search/index.ts";
import { intelRoutes } from "./intel/index.ts";
import { senderProfileRoutes } from "./sender-profiles/index.ts";
import { statsRoutes } from "./stats/index.ts";
import { metricsRoutes, requestMetrics } from "./metrics.ts";
import type { ServiceMetrics } from "../metrics/service-metrics.ts";
import { consoleRoutes } from "../console/routes.ts";
import { lazyConsole } from "../console/bundle.ts";
import { meRoutes } from "./me/index.ts";
import { mcpRoutes } from "../mcp/http.ts";

export interface HttpDeps {
  db: Db;
  accounts: Accounts;
  suppressions: Suppressions;
  senderProfiles: SenderProfiles;
  intel: Intelligence;
  metrics: ServiceMetrics;
  owners: Owners;
  mailboxes: Mailboxes;
  mail: { ingest: Ingest; recipients: Recipients; runner: JobRunner; mailDomain: string; maxMessageBytes: number };
  authenticator: Authenticator;
  idempotency: IdempotencyStore;
  health: HealthDeps;
  webhooks: WebhookSystem;
  log: Logger;
  version: string;
  /** Wakes the open SSE event streams (GET /v1/mailboxes/:mailboxId/events). */
  events: EventFeed;
  /** Which mailbox a Host header names (the agent protocol). */
  hosts: ProtocolHosts;
  /** The SSRF policy for callback and runtime URLs given to the API. */
  targets: TargetPolicy;
  /** JSON request bodies, the large ones parsed in a worker. */
  json: JsonIntake;
}

/** The Elysia root: the request pipeline first, then one module per resource group. */
export function createHttpApp(deps: HttpDeps) {
  // Read from the routes once they are all registered (the first request), not kept by hand.
  let bodies: Map<string, RouteBody> | undefined;
  const bodyOf = (routeKey: string) => (bodies ??= routeBodies(app.routes as never, SEND_TEXT_FIELDS)).get(routeKey);
  const pipeline = requestPipeline({ authenticator: deps.authenticator, mailboxes: deps.mailboxes, owners: deps.owners, idempotency: deps.idempotency, log: deps.log, maxJsonBytes: 10 * 1024 * 1024, json: deps.json, maxMessageBytes: deps.mail.maxMessageBytes, bodyOf });
  // normalize: false, so a schema with additionalProperties: false refuses unknown fields (a
  // typo in a PUT must not pass as "no change") instead of silently dropping them.
  const app: Elysia<any, any, any, any, any, any, any> = new Elysia({ name: "mailroom", normalize: false })
    .use(requestMetrics(deps.metrics))
    .use(pipeline.plugin)
    .use(metricsRoutes(deps.metrics))
    .use(healthRoutes(deps.health))
    .use(openapiRoutes(() => app, { version: deps.version }))
    .use(accountRoutes(deps.accounts, pipeline.mutation))
    .use(mailboxRoutes(deps.mailboxes, pipeline.mutation))
    .use(meRoutes(deps.mailboxes, deps.db))
    .use(apiKeyRoutes(deps.mailboxes, deps.db, pipeline.mutation))
    .use(policyRoutes(deps.mailboxes, pipeline.mutation))
    .use(draftRoutes(deps.mailboxes, deps.owners, deps.db, pipeline.mutation))
    .use(labelRoutes(deps.mailboxes, deps.owners, deps.db, pipeline.mutation))
    .use(suppressionRoutes(deps.suppressions, pipeline.mutation))
    .use(senderProfileRoutes(deps.senderProfiles, pipeline.mutation))
    .use(inboundRoutes(deps.mail.ingest, deps.mail.recipients, deps.mail.mailDomain, pipeline.mutation))
    .use(sendRoutes(deps.mailboxes, deps.owners, deps.db, deps.mail.runner, pipeline.mutation))
    .use(messageRoutes(deps.mailboxes, deps.owners, deps.db, pipeline.mutation))
    .use(threadRoutes(deps.mailboxes, deps.owners, deps.db, pipeline.mutation))
    .use(searchRoutes(deps.mailboxes, deps.db, pipeline.mutation))
    .use(intelRoutes(deps.intel, pipeline.mutation))
    .use(statsRoutes(deps.mailboxes, deps.db))
    .use(webhookRoutes(deps.webhooks, pipeline.mutation))
    .use(eventRoutes(deps.mailboxes, deps.db, deps.events, deps.log))
    .use(actionRoutes(deps.mailboxes, deps.db, pipeline.mutation))
    .use(autopilotRoutes(deps.mailboxes, deps.db, pipeline.mutation))
    .use(runtimeRoutes(deps.mailboxes, deps.db, deps.targets, pipeline.mutation))
    .use(callbackSecretRoutes(deps.mailboxes, pipeline.mutation))
    .use(consoleRoutes(lazyConsole()))
    .use(protocolRoutes({ mailboxes: deps.mailboxes, db: deps.db, hosts: deps.hosts, targets: deps.targets, version: deps.version }, pipeline.mutation))
    // The MCP server: its tools call this app in-process, as the caller.
    .use(mcpRoutes((request) => app.handle(request), { version: deps.version }, pipeline.mutation));
  return app;
}
