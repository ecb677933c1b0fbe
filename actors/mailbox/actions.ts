import { and, count, eq } from "drizzle-orm";
import { actions, type ActionRow } from "../../db/schema/index.ts";
import { actionExists, ANY_OBJECT, type ActionFields, checkActionFields, checkActionName, MAX_ACTIONS_PER_MAILBOX } from "../../src/domain/actions.ts";
import { newId } from "../../src/domain/ids.ts";
import { AppError, notFound, uniqueViolation } from "../../src/errors.ts";
import type { WriteContext } from "./types.ts";

export async function createAction({ state, deps }: WriteContext, name: string, fields: ActionFields): Promise<ActionRow> {
  checkActionName(name);
  checkActionFields(fields);
  const [{ n } = { n: 0 }] = await deps.db.select({ n: count() }).from(actions).where(eq(actions.mailboxId, state.mailbox.id));
  if (n >= MAX_ACTIONS_PER_MAILBOX) throw new AppError("validation_error", `a mailbox has at most ${MAX_ACTIONS_PER_MAILBOX} actions`, { fields: [{ path: "name", message: "too many actions" }] });
  try {
    const [row] = await deps.db
      .insert(actions)
      .values({
        id: newId(),
        mailboxId: state.mailbox.id,
        name,
        description: fields.description ?? "",
        parameterSchema: fields.parameterSchema ?? ANY_OBJECT,
        responseSchema: fields.responseSchema ?? ANY_OBJECT,
        enabled: fields.enabled ?? true,
      })
      .returning();
    return row!;
  } catch (err) {
    if (uniqueViolation(err)) throw actionExists(name);
    throw err;
  }
}

export async function updateAction({ state, deps }: WriteContext, name: string, fields: ActionFields): Promise<ActionRow> {
  checkActionFields(fields);
  const values = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  // updated_at is the action's version: validators are compiled once per version.
  const [row] = await deps.db
    .update(actions)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(actions.mailboxId, state.mailbox.id), eq(actions.name, name)))
    .returning();
  if (!row) throw notFound("action", name);
  return row;
}

export async function deleteAction({ state, deps }: WriteContext, name: string): Promise<ActionRow> {
  const [row] = await deps.db
    .delete(actions)
    .where(and(eq(actions.mailboxId, state.mailbox.id), eq(actions.name, name)))
    .returning();
  if (!row) throw notFound("action", name);
  return row;
}
