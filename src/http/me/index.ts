import { and, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import type { Db } from "../../../db/client.ts";
import { agentRuntimeBindings, apiKeys } from "../../../db/schema/index.ts";
import { latestEventSeq } from "../../events/stream.ts";
import type { DerivedContext } from "../pipeline.ts";
import { MailboxView, mailboxView } from "../mailboxes/model.ts";
import { Uuid } from "../schemas.ts";

const Tier = t.Union([t.Literal("read-only"), t.Literal("draft"), t.Literal("send"), t.Literal("admin-lite"), t.Literal("admin")]);
const Mode = t.Union([t.Literal("draft-first"), t.Literal("auto-send"), t.Literal("observe")]);

const Me = t.Object(
  {
    principal: t.Union([t.Literal("admin"), t.Literal("key")], { description: "the admin token, or an API key of one mailbox" }),
    key: t.Union([t.Object({ id: Uuid(), name: t.String(), scope: t.Union([t.Literal("mailbox"), t.Literal("runtime")]) }, { additionalProperties: false }), t.Null()]),
    mailbox: t.Union([MailboxView, t.Null()]),
    account_id: t.Union([Uuid("the account the key's mailbox belongs to"), t.Null()]),
    latest_event_id: t.Union([t.Integer({ minimum: 0, description: "the number of the mailbox's latest event: a `since` that follows only what comes next" }), t.Null()]),
    binding: t.Union([
      t.Object(
        {
          agent_id: t.String(),
          permission_tier: Tier,
          policy_mode: Mode,
          persona_label: t.String(),
          enabled: t.Boolean(),
        },
        { additionalProperties: false, description: "the mailbox's agent-runtime binding, when it has one" },
      ),
      t.Null(),
    ]),
  },
  { additionalProperties: false },
);

/**
 * GET /v1/me: who a token is. A mailbox key does not name its mailbox (svc_{keyId}.{secret}),
 * so tools handed only a key (the CLI, the MCP server) learn here which mailbox they act on,
 * which tier a binding gives it, and where its event stream is now.
 */
export function meRoutes(mailboxes: Mailboxes, db: Db) {
  return new Elysia({ name: "me" }).get(
    "/v1/me",
    async (ctx) => {
      const { principal } = ctx as unknown as DerivedContext;
      if (principal?.kind !== "key") return { principal: "admin" as const, key: null, mailbox: null, account_id: null, latest_event_id: null, binding: null };
      const mailbox = await mailboxes.get(principal.mailboxId);
      const [key] = await db.select({ id: apiKeys.id, name: apiKeys.name, scope: apiKeys.scope }).from(apiKeys).where(and(eq(apiKeys.id, principal.keyId), eq(apiKeys.mailboxId, mailbox.id))).limit(1);
      const [binding] = await db.select().from(agentRuntimeBindings).where(eq(agentRuntimeBindings.mailboxId, mailbox.id)).limit(1);
      return {
        principal: "key" as const,
        key: key ? { id: key.id, name: key.name, scope: key.scope === "runtime" ? ("runtime" as const) : ("mailbox" as const) } : null,
        mailbox: mailboxView(mailbox),
        account_id: mailbox.accountId,
        latest_event_id: await latestEventSeq(db, mailbox.id),
        binding: binding
          ? { agent_id: binding.agentId, permission_tier: binding.permissionTier, policy_mode: binding.policyMode, persona_label: binding.personaLabel, enabled: binding.enabled }
          : null,
      };
    },
    {
      response: { 200: Me },
      detail: {
        summary: "Who this token is",
        description:
          "For a mailbox API key: the key, its mailbox and account, the mailbox's agent-runtime binding (tier and mode only; null without one) and the number of its latest event (`since` for a stream of what comes next). For the admin token, `principal: admin` and nulls.",
        tags: ["Mailboxes"],
      },
    },
  );
}
