import { desc, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import type { Db } from "../../../db/client.ts";
import { agentRuntimeBindings, agentRuntimeEvents, type AgentRuntimeBindingRow, type AgentRuntimeEventRow } from "../../../db/schema/index.ts";
import { notFound } from "../../errors.ts";
import { checkTargetUrl, type TargetPolicy } from "../../net/target-check.ts";
import { RUNTIME_MESSAGES_PATH, runtimeUrl } from "../../runtime/payload.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import { iso, Timestamp, Uuid } from "../schemas.ts";

const Tier = t.Union([t.Literal("read-only"), t.Literal("draft"), t.Literal("send"), t.Literal("admin-lite"), t.Literal("admin")]);
const Mode = t.Union([t.Literal("draft-first"), t.Literal("auto-send"), t.Literal("observe")]);

// The binding's fields are spelled as spec section 2 lists them, in requests and responses.
const Binding = t.Object(
  {
    mailboxId: Uuid(),
    agentId: t.String(),
    runtimeBaseUrl: t.String(),
    permissionTier: Tier,
    policyMode: Mode,
    personaLabel: t.String(),
    enabled: t.Boolean(),
    deliveryUrl: t.String({ description: `where processed inbound messages are POSTed: runtimeBaseUrl + ${RUNTIME_MESSAGES_PATH}` }),
    runtimeKeyId: t.Union([Uuid(), t.Null()], { description: "id of the runtime's API key (scope runtime)" }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);
const BindingBody = t.Object(
  {
    agentId: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "required to create" })),
    runtimeBaseUrl: t.Optional(t.String({ minLength: 1, maxLength: 2048, description: "required to create; http(s), checked like webhook URLs" })),
    permissionTier: t.Optional(Tier),
    policyMode: t.Optional(Mode),
    personaLabel: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
    enabled: t.Optional(t.Boolean()),
  },
  { additionalProperties: false },
);
const RuntimeEvent = t.Object(
  {
    id: Uuid(),
    mailbox_id: Uuid(),
    message_id: t.Union([Uuid(), t.Null()]),
    kind: t.String({ description: "routed, skipped, delivered, retrying, failed, or a runtime request its mode held: send_drafted, send_observed, protocol_send_observed, respond_observed" }),
    detail: t.String(),
    data: t.Object({}, { additionalProperties: true }),
    delivery_id: t.Union([Uuid(), t.Null()]),
    created_at: Timestamp,
  },
  { additionalProperties: false },
);
const EventsQuery = t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, default: 50 })), mailboxId: t.Optional(Uuid("only this mailbox's events")) });

export const bindingView = (b: AgentRuntimeBindingRow) => ({
  mailboxId: b.mailboxId,
  agentId: b.agentId,
  runtimeBaseUrl: b.runtimeBaseUrl,
  permissionTier: b.permissionTier,
  policyMode: b.policyMode,
  personaLabel: b.personaLabel,
  enabled: b.enabled,
  deliveryUrl: runtimeUrl(b.runtimeBaseUrl),
  runtimeKeyId: b.keyId,
  createdAt: iso(b.createdAt),
  updatedAt: iso(b.updatedAt),
});
const eventView = (e: AgentRuntimeEventRow) => ({ id: e.id, mailbox_id: e.mailboxId, message_id: e.messageId, kind: e.kind, detail: e.detail, data: e.data, delivery_id: e.deliveryId, created_at: iso(e.createdAt) });

export function runtimeRoutes(mailboxes: Mailboxes, db: Db, targets: TargetPolicy, mutation: MutationHooks) {
  return new Elysia({ name: "agent-runtime" })
    .get(
      "/v1/mailboxes/:mailboxId/agent-runtime-binding",
      async ({ params }) => {
        await mailboxes.get(params.mailboxId);
        const [row] = await db.select().from(agentRuntimeBindings).where(eq(agentRuntimeBindings.mailboxId, params.mailboxId)).limit(1);
        if (!row) throw notFound("agent-runtime binding of mailbox", params.mailboxId);
        return { binding: bindingView(row) };
      },
      { params: MailboxParams, response: { 200: t.Object({ binding: Binding }) }, detail: { summary: "Get the agent-runtime binding", description: "404 when the mailbox has none.", tags: ["Agent runtime"] } },
    )
    .get(
      "/v1/admin/agent-runtime-bindings",
      async () => ({ items: (await db.select().from(agentRuntimeBindings).orderBy(desc(agentRuntimeBindings.createdAt))).map(bindingView) }),
      { response: { 200: t.Object({ items: t.Array(Binding) }) }, detail: { summary: "List all agent-runtime bindings", description: "Newest first.", tags: ["Agent runtime"] } },
    )
    .get(
      "/v1/admin/agent-runtime-events",
      async ({ query }) => {
        const rows = await db
          .select()
          .from(agentRuntimeEvents)
          .where(query.mailboxId ? eq(agentRuntimeEvents.mailboxId, query.mailboxId) : undefined)
          .orderBy(desc(agentRuntimeEvents.createdAt), desc(agentRuntimeEvents.id))
          .limit(query.limit ?? 50);
        return { items: rows.map(eventView) };
      },
      {
        query: EventsQuery,
        response: { 200: t.Object({ items: t.Array(RuntimeEvent) }) },
        detail: { summary: "The routing log", description: "Newest first (default 50): each message routed or skipped, each delivery attempt's outcome, and each runtime request its policy mode held back.", tags: ["Agent runtime"] },
      },
    )
    .guard(mutation, (writes) =>
      writes
        .post(
          "/v1/mailboxes/:mailboxId/agent-runtime-binding",
          async ({ params, body, set }) => {
            const runtimeBaseUrl = body.runtimeBaseUrl === undefined ? undefined : await checkTargetUrl(body.runtimeBaseUrl, "runtimeBaseUrl", targets);
            const change = await mailboxes.setBinding(params.mailboxId, { ...body, runtimeBaseUrl });
            set.status = change.created ? 201 : 200;
            return {
              binding: bindingView(change.binding),
              ...(change.created ? { runtime_token: change.runtimeToken!, signing_secret: change.signingSecret! } : {}),
            };
          },
          {
            params: MailboxParams,
            body: BindingBody,
            response: {
              200: t.Object({ binding: Binding }),
              201: t.Object({
                binding: Binding,
                runtime_token: t.String({ description: "the runtime's API key (svc_…), shown once; its tier and mode apply to every call it makes" }),
                signing_secret: t.String({ description: "hex; signs what the runtime receives (x-service-signature), shown once" }),
              }),
            },
            detail: {
              summary: "Create or update the agent-runtime binding",
              description: "Creating needs agentId and runtimeBaseUrl; the others default (permissionTier draft, policyMode draft-first, personaLabel default, enabled true) and the answer is 201 with the runtime's key and signing secret, shown once. Updating changes the fields given (200).",
              tags: ["Agent runtime"],
            },
          },
        )
        .delete(
          "/v1/mailboxes/:mailboxId/agent-runtime-binding",
          async ({ params }) => ({ binding: bindingView(await mailboxes.removeBinding(params.mailboxId)) }),
          { params: MailboxParams, response: { 200: t.Object({ binding: Binding }) }, detail: { summary: "Remove the agent-runtime binding", description: "Revokes the runtime's key at once; returns the removed binding.", tags: ["Agent runtime"] } },
        ),
    );
}
