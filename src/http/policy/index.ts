import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import { Policy, policy, PolicyPatchBody } from "./model.ts";

export function policyRoutes(mailboxes: Mailboxes, mutation: MutationHooks) {
  return new Elysia({ name: "policy" })
    .get("/v1/mailboxes/:mailboxId/policy", async ({ params }) => ({ policy: policy(await mailboxes.get(params.mailboxId)) }), {
      params: MailboxParams,
      response: { 200: t.Object({ policy: Policy }) },
      detail: { summary: "Get the mailbox policy", tags: ["Policy"] },
    })
    .guard(mutation, (writes) =>
      writes.put(
        "/v1/mailboxes/:mailboxId/policy",
        async ({ params, body }) => {
          const patch = { allowOutbound: body.allow_outbound, allowAutoReply: body.allow_auto_reply, maxOutboundPerDay: body.max_outbound_per_day };
          const changes = Object.values(patch).some((v) => v !== undefined);
          const row = changes ? await mailboxes.setPolicy(params.mailboxId, patch) : await mailboxes.get(params.mailboxId);
          return { policy: policy(row) };
        },
        {
          params: MailboxParams,
          body: PolicyPatchBody,
          response: { 200: t.Object({ policy: Policy }) },
          detail: { summary: "Change the mailbox policy", description: "Fields left out keep their value; an empty body changes nothing.", tags: ["Policy"] },
        },
      ),
    );
}
