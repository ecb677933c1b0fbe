import { and, eq, sql } from "drizzle-orm";
import { drafts, type DraftRow } from "../../db/schema/index.ts";
import { checkDraftFields, type DraftFields } from "../../src/domain/drafts.ts";
import { newId } from "../../src/domain/ids.ts";
import { notFound } from "../../src/errors.ts";
import { definedOnly } from "./settings.ts";
import type { WriteContext } from "./types.ts";

export async function createDraft({ state, deps }: WriteContext, draft: DraftFields): Promise<DraftRow> {
  const fields = checkDraftFields(draft);
  const [row] = await deps.db
    .insert(drafts)
    .values({ id: newId(), mailboxId: state.mailbox.id, ...definedOnly(fields) })
    .returning();
  return row!;
}

/** Replaces the fields given and keeps the others. */
export async function updateDraft({ state, deps }: WriteContext, draftId: string, draft: DraftFields): Promise<DraftRow> {
  const fields = checkDraftFields(draft);
  const [row] = await deps.db
    .update(drafts)
    // The database's clock, like created_at's default: one clock orders a draft's times.
    .set({ ...definedOnly(fields), updatedAt: sql`now()` })
    .where(and(eq(drafts.id, draftId), eq(drafts.mailboxId, state.mailbox.id)))
    .returning();
  if (!row) throw notFound("draft", draftId);
  return row;
}

export async function deleteDraft({ state, deps }: WriteContext, draftId: string): Promise<DraftRow> {
  const [row] = await deps.db
    .delete(drafts)
    .where(and(eq(drafts.id, draftId), eq(drafts.mailboxId, state.mailbox.id)))
    .returning();
  if (!row) throw notFound("draft", draftId);
  return row;
}
