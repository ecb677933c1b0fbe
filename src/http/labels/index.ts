import { asc, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import type { Db } from "../../../db/client.ts";
import { labels } from "../../../db/schema/index.ts";
import type { Owners } from "../../domain/owners.ts";
import { notFound } from "../../errors.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import { CreateLabelBody, Label, label, LabelParams } from "./model.ts";

export function labelRoutes(mailboxes: Mailboxes, owners: Owners, db: Db, mutation: MutationHooks) {
  return new Elysia({ name: "labels" })
    .get(
      "/v1/mailboxes/:mailboxId/labels",
      async ({ params }) => {
        await mailboxes.get(params.mailboxId);
        const rows = await db.select().from(labels).where(eq(labels.mailboxId, params.mailboxId)).orderBy(asc(labels.nameKey));
        return { items: rows.map(label) };
      },
      { params: MailboxParams, response: { 200: t.Object({ items: t.Array(Label) }) }, detail: { summary: "List labels", description: "By name.", tags: ["Labels"] } },
    )
    .guard(mutation, (writes) =>
      writes
        .post(
          "/v1/mailboxes/:mailboxId/labels",
          async ({ params, body, set }) => {
            const row = await mailboxes.createLabel(params.mailboxId, body.name, body.color ?? null);
            set.status = 201;
            return { label: label(row) };
          },
          {
            params: MailboxParams,
            body: CreateLabelBody,
            response: { 201: t.Object({ label: Label }) },
            detail: { summary: "Create a label", description: "Names are unique per mailbox regardless of case (409 label_exists).", tags: ["Labels"] },
          },
        )
        .delete(
          "/v1/labels/:labelId",
          async ({ params }) => {
            const owner = await owners.label(params.labelId);
            if (!owner) throw notFound("label", params.labelId);
            return { label: label(await mailboxes.deleteLabel(owner, params.labelId)) };
          },
          { params: LabelParams, response: { 200: t.Object({ label: Label }) }, detail: { summary: "Delete a label", description: "Returns the deleted label.", tags: ["Labels"] } },
        ),
    );
}
