import { and, asc, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import type { Db } from "../../../db/client.ts";
import { actions } from "../../../db/schema/index.ts";
import { notFound, validationError } from "../../errors.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import { Action, action, actionFields, ActionParams, CreateActionBody, UpdateActionBody } from "./model.ts";

const NOTES =
  "Both schemas are checked as JSON Schema draft 2020-12 when written (400 validation_error with the reason); remote $refs are never fetched. Protocol messages naming the action are validated against `parameter_schema`, responses against `response_schema`.";

export function actionRoutes(mailboxes: Mailboxes, db: Db, mutation: MutationHooks) {
  return new Elysia({ name: "actions" })
    .get(
      "/v1/mailboxes/:mailboxId/actions",
      async ({ params }) => {
        await mailboxes.get(params.mailboxId);
        const rows = await db.select().from(actions).where(eq(actions.mailboxId, params.mailboxId)).orderBy(asc(actions.name));
        return { items: rows.map(action) };
      },
      { params: MailboxParams, response: { 200: t.Object({ items: t.Array(Action) }) }, detail: { summary: "List actions", description: "By name, disabled ones included.", tags: ["Actions"] } },
    )
    .get(
      "/v1/mailboxes/:mailboxId/actions/:actionName",
      async ({ params }) => {
        await mailboxes.get(params.mailboxId);
        const [row] = await db.select().from(actions).where(and(eq(actions.mailboxId, params.mailboxId), eq(actions.name, params.actionName))).limit(1);
        if (!row) throw notFound("action", params.actionName);
        return { action: action(row) };
      },
      { params: ActionParams, response: { 200: t.Object({ action: Action }) }, detail: { summary: "Get an action", tags: ["Actions"] } },
    )
    .guard(mutation, (writes) =>
      writes
        .post(
          "/v1/mailboxes/:mailboxId/actions",
          async ({ params, body, set }) => {
            const row = await mailboxes.createAction(params.mailboxId, body.name, actionFields(body));
            set.status = 201;
            return { action: action(row) };
          },
          {
            params: MailboxParams,
            body: CreateActionBody,
            response: { 201: t.Object({ action: Action }) },
            detail: { summary: "Create an action", description: `Names are unique per mailbox (409 action_exists). ${NOTES}`, tags: ["Actions"] },
          },
        )
        .put(
          "/v1/mailboxes/:mailboxId/actions/:actionName",
          async ({ params, body }) => {
            if (body.name !== undefined && body.name !== params.actionName) throw validationError("actions are not renamed: name must equal the name in the path", [{ path: "name", message: "must equal the name in the path" }]);
            return { action: action(await mailboxes.updateAction(params.mailboxId, params.actionName, actionFields(body))) };
          },
          {
            params: ActionParams,
            body: UpdateActionBody,
            response: { 200: t.Object({ action: Action }) },
            detail: { summary: "Change an action", description: `Fields left out keep their value; \`enabled: false\` disables it (protocol messages naming it get 400 unknown_action). ${NOTES}`, tags: ["Actions"] },
          },
        )
        .delete(
          "/v1/mailboxes/:mailboxId/actions/:actionName",
          async ({ params }) => ({ action: action(await mailboxes.deleteAction(params.mailboxId, params.actionName)) }),
          { params: ActionParams, response: { 200: t.Object({ action: Action }) }, detail: { summary: "Delete an action", description: "Returns the deleted action.", tags: ["Actions"] } },
        ),
    );
}
