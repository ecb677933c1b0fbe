import { and, count, eq } from "drizzle-orm";
import { actions, type ActionRow } from "../../db/schema/index.ts";
import { actionExists, ANY_OBJECT, checkActionFields, checkActionName, MAX_ACTIONS_PER_MAILBOX } from "../../src/domain/actions.ts";
import { newId } from "../../src/domain/ids.ts";
import { AppError, notFound, uniqueViolation } from "../../src/errors.ts";
import type { CommandOf, WriteContext } from "./types.ts";

export async function createAction({ state, deps }: WriteContext, cmd: CommandOf<"createAction">): Promise<ActionRow> {
  checkActionName(cmd.name);
  checkActionFields(cmd.fields);
  const [{ n } = { n: 0 }] = await deps.db.select({ n: count() }).from(actions).where(eq(actions.mailboxId, state.mailbox.id));
  if (n >= MAX_ACTIONS_PER_MAILBOX) throw new AppError("validation_error", `a mailbox has at most ${MAX_ACTIONS_PER_MAILBOX} actions`, { fields: [{ path: "name", message: "too many actions" }] });
  try {
    const [row] = await deps.db
      .insert(actions)
      .values({
        id: newId(),
        mailboxId: state.mailbox.id,
        name: cmd.name,
        description: cmd.fields.description ?? "",
        parameterSchema: cmd.fields.parameterSchema ?? ANY_OBJECT,
        responseSchema: cmd.fields.responseSchema ?? ANY_OBJECT,
        enabled: cmd.fields.enabled ?? true,
      })
      .returning();
    return row!;
  } catch (err) {
    if (uniqueViolation(err)) throw actionExists(cmd.name);
    throw err;
  }
}

export async function updateAction({ state, deps }: WriteContext, cmd: CommandOf<"updateAction">): Promise<ActionRow> {
  checkActionFields(cmd.fields);
  const values = Object.fromEntries(Object.entries(cmd.fields).filter(([, v]) => v !== undefined));
  // updated_at is the action's version: validators are compiled once per version.
  const [row] = await deps.db
    .update(actions)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(actions.mailboxId, state.mailbox.id), eq(actions.name, cmd.name)))
    .returning();
  if (!row) throw notFound("action", cmd.name);
  return row;
}

export async function deleteAction({ state, deps }: WriteContext, cmd: CommandOf<"deleteAction">): Promise<ActionRow> {
  const [row] = await deps.db
    .delete(actions)
    .where(and(eq(actions.mailboxId, state.mailbox.id), eq(actions.name, cmd.name)))
    .returning();
  if (!row) throw notFound("action", cmd.name);
  return row;
}
