import { eq, sql } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Db } from "../../../db/client.ts";
import { mailboxes } from "../../../db/schema/index.ts";
import type { SecretBox } from "../../crypto/secret-box.ts";
import { notFound } from "../../errors.ts";
import { newSigningSecret } from "../../webhooks/signing.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import type { MutationHooks } from "../pipeline.ts";

/**
 * The secret that signs protocol responses POSTed to a mailbox's callback URLs
 * (x-service-callback-signature). Made on first use, by this route or the first callback.
 */
export function callbackSecretRoutes(db: Db, secrets: SecretBox, mutation: MutationHooks) {
  return new Elysia({ name: "callback-secret" }).guard(mutation, (writes) =>
    writes.post(
      "/v1/mailboxes/:mailboxId/callback-secret",
      async ({ params, body }) => {
        const fresh = secrets.seal(newSigningSecret());
        const value = body?.rotate ? sql`${fresh}` : sql`coalesce(${mailboxes.callbackSecret}, ${fresh})`;
        const [row] = await db.update(mailboxes).set({ callbackSecret: value }).where(eq(mailboxes.id, params.mailboxId)).returning({ secret: mailboxes.callbackSecret });
        if (!row) throw notFound("mailbox", params.mailboxId);
        return { callback_secret: secrets.open(row.secret!) };
      },
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
