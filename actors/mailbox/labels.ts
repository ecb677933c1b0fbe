import { and, eq } from "drizzle-orm";
import { labels, type LabelRow } from "../../db/schema/index.ts";
import { newId } from "../../src/domain/ids.ts";
import { checkLabel } from "../../src/domain/labels.ts";
import { AppError, notFound, uniqueViolation } from "../../src/errors.ts";
import type { WriteContext } from "./types.ts";

export async function createLabel({ state, deps }: WriteContext, name: string, color: string | null): Promise<LabelRow> {
  const label = checkLabel(name, color);
  try {
    const [row] = await deps.db.insert(labels).values({ id: newId(), mailboxId: state.mailbox.id, ...label }).returning();
    return row!;
  } catch (err) {
    if (uniqueViolation(err)) throw new AppError("label_exists", `this mailbox already has a label named "${label.name}"`, { name: label.name });
    throw err;
  }
}

export async function deleteLabel({ state, deps }: WriteContext, labelId: string): Promise<LabelRow> {
  const [row] = await deps.db
    .delete(labels)
    .where(and(eq(labels.id, labelId), eq(labels.mailboxId, state.mailbox.id)))
    .returning();
  if (!row) throw notFound("label", labelId);
  return row;
}
