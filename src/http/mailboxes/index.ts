import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import type { MutationHooks } from "../pipeline.ts";
import { MailboxParams, MailboxStatus, MailboxView, mailboxStatus, mailboxView } from "./model.ts";

export function mailboxRoutes(mailboxes: Mailboxes, mutation: MutationHooks) {
  return new Elysia({ name: "mailboxes" })
    .get("/v1/mailboxes/:mailboxId", async ({ params }) => ({ mailbox: mailboxView(await mailboxes.get(params.mailboxId)) }), {
      params: MailboxParams,
      response: { 200: t.Object({ mailbox: MailboxView }) },
      detail: { summary: "Get a mailbox", tags: ["Mailboxes"] },
    })
    .guard(mutation, (writes) =>
      writes
        .post("/v1/mailboxes/:mailboxId/disable", async ({ params }) => ({ mailbox: mailboxStatus(await mailboxes.setStatus(params.mailboxId, "disabled")) }), {
          params: MailboxParams,
          response: { 200: t.Object({ mailbox: MailboxStatus }) },
          detail: { summary: "Disable a mailbox", description: "A disabled mailbox refuses sends and inbound mail; reads keep working. Repeating it is harmless.", tags: ["Mailboxes"] },
        })
        .post("/v1/mailboxes/:mailboxId/enable", async ({ params }) => ({ mailbox: mailboxStatus(await mailboxes.setStatus(params.mailboxId, "active")) }), {
          params: MailboxParams,
          response: { 200: t.Object({ mailbox: MailboxStatus }) },
          detail: { summary: "Enable a mailbox", description: "Sets the status back to `active`.", tags: ["Mailboxes"] },
        }),
    );
}
