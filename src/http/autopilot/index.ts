import { and, desc, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import type { Db } from "../../../db/client.ts";
import { autopilotDecisions, autopilotPolicies, type AutopilotDecisionRow, type AutopilotPolicyRow } from "../../../db/schema/index.ts";
import { describeRuleSchema, RULE_LIMITS } from "../../autopilot/rules.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import { iso, JsonObject, Timestamp, Uuid } from "../schemas.ts";

const Mode = t.Union([t.Literal("observe"), t.Literal("enforce")], { description: "observe: record what would happen; enforce: do it" });
// The full rule format is a JSON Schema of its own (describeRuleSchema), written into the
// description: TypeBox cannot compile a foreign schema, and the body is validated by normalizeRules.
const RuleSchema = t.Object({}, { additionalProperties: true, description: `an autopilot rule: ${JSON.stringify(describeRuleSchema())}` });
const Policy = t.Object({ mode: Mode, rules: t.Array(RuleSchema), updated_at: t.Union([Timestamp, t.Null()]) }, { additionalProperties: false });
const PutBody = t.Object(
  { mode: t.Optional(Mode), rules: t.Optional(t.Array(JsonObject("a rule (README \"Autopilot\"); validated in full, every problem reported", 16), { maxItems: RULE_LIMITS.rules, description: "rule objects (README \"Autopilot\")" })) },
  { additionalProperties: false },
);
const Decision = t.Object(
  {
    id: Uuid(),
    message_id: Uuid(),
    mode: Mode,
    matched_rules: t.Array(t.String()),
    actions: t.Array(t.Object({}, { additionalProperties: true, description: "{rule_id, action, outcome: applied | would_apply | skipped, detail?}" })),
    blocked: t.Boolean(),
    created_at: Timestamp,
  },
  { additionalProperties: false },
);
const DecisionQuery = t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: 200, default: 50 })), message_id: t.Optional(Uuid("only this message's decisions")) });

const policy = (row: AutopilotPolicyRow | undefined) => ({ mode: row?.mode ?? ("observe" as const), rules: (row?.rules ?? []) as Record<string, unknown>[], updated_at: row ? iso(row.updatedAt) : null });
const decision = (d: AutopilotDecisionRow) => ({ id: d.id, message_id: d.messageId, mode: d.mode, matched_rules: d.matchedRules, actions: d.actions, blocked: d.blocked, created_at: iso(d.createdAt) });

export function autopilotRoutes(mailboxes: Mailboxes, db: Db, mutation: MutationHooks) {
  return new Elysia({ name: "autopilot" })
    .get(
      "/v1/mailboxes/:mailboxId/autopilot",
      async ({ params }) => {
        await mailboxes.get(params.mailboxId);
        const [row] = await db.select().from(autopilotPolicies).where(eq(autopilotPolicies.mailboxId, params.mailboxId)).limit(1);
        return { autopilot: policy(row) };
      },
      { params: MailboxParams, response: { 200: t.Object({ autopilot: Policy }) }, detail: { summary: "Get the autopilot policy", description: "Until set: observe, no rules.", tags: ["Autopilot"] } },
    )
    .get(
      "/v1/mailboxes/:mailboxId/autopilot/decisions",
      async ({ params, query }) => {
        await mailboxes.get(params.mailboxId);
        const where = query.message_id ? and(eq(autopilotDecisions.mailboxId, params.mailboxId), eq(autopilotDecisions.messageId, query.message_id)) : eq(autopilotDecisions.mailboxId, params.mailboxId);
        const rows = await db.select().from(autopilotDecisions).where(where).orderBy(desc(autopilotDecisions.createdAt), desc(autopilotDecisions.id)).limit(query.limit ?? 50);
        return { items: rows.map(decision) };
      },
      {
        params: MailboxParams,
        query: DecisionQuery,
        response: { 200: t.Object({ items: t.Array(Decision) }) },
        detail: { summary: "Autopilot decisions", description: "Newest first: for each processed inbound message while the mailbox had rules, which rules matched and what became of each action.", tags: ["Autopilot"] },
      },
    )
    .guard(mutation, (writes) =>
      writes.put(
        "/v1/mailboxes/:mailboxId/autopilot",
        async ({ params, body }) => {
          const row = body.mode === undefined && body.rules === undefined ? undefined : await mailboxes.setAutopilot(params.mailboxId, { mode: body.mode, rules: body.rules });
          if (row) return { autopilot: policy(row) };
          await mailboxes.get(params.mailboxId);
          const [current] = await db.select().from(autopilotPolicies).where(eq(autopilotPolicies.mailboxId, params.mailboxId)).limit(1);
          return { autopilot: policy(current) };
        },
        {
          params: MailboxParams,
          body: PutBody,
          response: { 200: t.Object({ autopilot: Policy }) },
          detail: { summary: "Set the autopilot policy", description: "Fields left out keep their value; `rules` replaces the whole list. Rules come back with their defaults filled in (ids, names).", tags: ["Autopilot"] },
        },
      ),
    );
}
