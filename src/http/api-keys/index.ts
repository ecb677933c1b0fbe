import { and, asc, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import type { Db } from "../../../db/client.ts";
import { apiKeys } from "../../../db/schema/index.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import { ApiKey, apiKey, ApiKeyListItem, apiKeyListItem, ApiKeyParams, CreateApiKeyBody } from "./model.ts";

export function apiKeyRoutes(mailboxes: Mailboxes, db: Db, mutation: MutationHooks) {
  return new Elysia({ name: "api-keys" })
    .guard(mutation, (writes) =>
      writes.post(
        "/v1/mailboxes/:mailboxId/api-keys",
        async ({ params, body, set }) => {
          const issued = await mailboxes.issueKey(params.mailboxId, body.name);
          set.status = 201;
          return { api_key: apiKey(issued.apiKey), token: issued.token };
        },
        {
          params: MailboxParams,
          body: CreateApiKeyBody,
          response: { 201: t.Object({ api_key: ApiKey, token: t.String({ description: "svc_{keyId}.{secret}; shown only this once" }) }) },
          detail: { summary: "Issue an API key for a mailbox", tags: ["API keys"] },
        },
      ),
    )
    .get(
      "/v1/mailboxes/:mailboxId/api-keys",
      async ({ params }) => {
        await mailboxes.get(params.mailboxId); // 404 for an unknown mailbox rather than an empty list
        const rows = await db.select().from(apiKeys).where(and(eq(apiKeys.mailboxId, params.mailboxId), eq(apiKeys.scope, "mailbox"))).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
        return { items: rows.map(apiKeyListItem) };
      },
      {
        params: MailboxParams,
        response: { 200: t.Object({ items: t.Array(ApiKeyListItem) }) },
        detail: { summary: "List a mailbox's API keys", description: "Never includes secrets.", tags: ["API keys"] },
      },
    )
    .guard(mutation, (writes) =>
      writes.post(
        "/v1/mailboxes/:mailboxId/api-keys/:keyId/revoke",
        async ({ params }) => ({ api_key: apiKey(await mailboxes.revokeKey(params.mailboxId, params.keyId)) }),
        {
          params: ApiKeyParams,
          response: { 200: t.Object({ api_key: ApiKey }) },
          detail: {
            summary: "Revoke an API key",
            description: "Takes effect at once on every node. Revoking a revoked key returns it unchanged.",
            tags: ["API keys"],
          },
        },
      ),
    );
}
