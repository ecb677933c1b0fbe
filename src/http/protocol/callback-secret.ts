import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import type { MutationHooks } from "../pipeline.ts";

/**
 * The secret that signs protocol responses POSTed to a mailbox's callback URLs
 * (x-service-callback-signature). Made on first use, by this route or the first callback;
 * the mailbox actor keeps it (the `callbackSecret` command).
 */
export function callbackSecretRoutes(mailboxes: Mailboxes, mutation: MutationHooks) {
  return new Elysia({ name: "callback-secret" }).guard(mutation, (writes) =>
    writes.post(
      "/v1/mailboxes/:mailboxId/callback-secret",
      async ({ params, body }) => ({ callback_secret: await mailboxes.callbackSecret(params.mailboxId, body?.rotate === true) }),
      {
        params: MailboxParams,
        body: t.Optional(t.Object({ rotate: t.Optional(t.Boolean({ description: "replace the secret; it signs every callback attempt from now on, those already queued included" })) }, { additionalProperties: false })),
        response: { 200: t.Object({ callback_secret: t.String({ description: "hex; verify x-service-callback-signature (HMAC-SHA256 of the raw body) with it" }) }) },
        detail: {
          summary: "The mailbox's callback signing secret",
          description: "Responses to this mailbox's protocol messages arrive at its callback URLs signed with this secret. Returns it (made now if it did not exist); `rotate: true` replaces it.",
          tags: ["Agent protocol"],
        },
      },
    ),
  );
}
