import { count, desc, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import type { Db } from "../../../db/client.ts";
import { drafts } from "../../../db/schema/index.ts";
import type { Owners } from "../../domain/owners.ts";
import { notFound } from "../../errors.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import { checkPageRange, PageQuery, Paged, paged, pageOf } from "../schemas.ts";
import { Draft, draft, DraftBody, draftFields, DraftParams } from "./model.ts";

/** Writes go to the owning mailbox's actor; reads go straight to the database. */
export function draftRoutes(mailboxes: Mailboxes, owners: Owners, db: Db, mutation: MutationHooks) {
  const ownerOf = async (draftId: string) => {
    const owner = await owners.draft(draftId);
    if (!owner) throw notFound("draft", draftId);
    return owner;
  };
  return new Elysia({ name: "drafts" })
    .get(
      "/v1/mailboxes/:mailboxId/drafts",
      async ({ params, query }) => {
        await mailboxes.get(params.mailboxId); // 404 for an unknown mailbox rather than an empty list
        const page = pageOf(query);
        const where = eq(drafts.mailboxId, params.mailboxId);
        const [rows, totals] = await Promise.all([
          db.select().from(drafts).where(where).orderBy(desc(drafts.updatedAt), desc(drafts.id)).limit(page.limit).offset(page.offset),
          db.select({ n: count() }).from(drafts).where(where),
        ]);
        return paged(rows.map(draft), totals[0]?.n ?? 0, page);
      },
      {
        params: MailboxParams,
        query: PageQuery,
        transform: checkPageRange,
        response: { 200: Paged(Draft) },
        detail: { summary: "List drafts", description: "Most recently changed first.", tags: ["Drafts"] },
      },
    )
    .get(
      "/v1/drafts/:draftId",
      async ({ params }) => {
        const [row] = await db.select().from(drafts).where(eq(drafts.id, params.draftId)).limit(1);
        if (!row) throw notFound("draft", params.draftId);
        return { draft: draft(row) };
      },
      { params: DraftParams, response: { 200: t.Object({ draft: Draft }) }, detail: { summary: "Get a draft", tags: ["Drafts"] } },
    )
    .guard(mutation, (writes) =>
      writes
        .post(
          "/v1/mailboxes/:mailboxId/drafts",
          async ({ params, body, set }) => {
            const row = await mailboxes.createDraft(params.mailboxId, draftFields(body ?? {}));
            set.status = 201;
            return { draft: draft(row) };
          },
          {
            params: MailboxParams,
            body: t.Optional(DraftBody),
            response: { 201: t.Object({ draft: Draft }) },
            detail: { summary: "Create a draft", description: "Every field is optional; addresses are checked as for sending.", tags: ["Drafts"] },
          },
        )
        .put(
          "/v1/drafts/:draftId",
          async ({ params, body }) => ({ draft: draft(await mailboxes.updateDraft(await ownerOf(params.draftId), params.draftId, draftFields(body))) }),
          {
            params: DraftParams,
            body: DraftBody,
            response: { 200: t.Object({ draft: Draft }) },
            detail: { summary: "Update a draft", description: "Replaces the fields given and keeps the others; null clears subject or a body.", tags: ["Drafts"] },
          },
        )
        .delete(
          "/v1/drafts/:draftId",
          async ({ params }) => ({ draft: draft(await mailboxes.deleteDraft(await ownerOf(params.draftId), params.draftId)) }),
          { params: DraftParams, response: { 200: t.Object({ draft: Draft }) }, detail: { summary: "Delete a draft", description: "Returns the deleted draft.", tags: ["Drafts"] } },
        ),
    );
}
