import { eq } from "drizzle-orm";
import { mailboxes, type MailboxRow } from "../../db/schema/index.ts";
import type { PolicyPatch } from "../../src/domain/policy.ts";
import type { WriteContext } from "./types.ts";

/** Status and policy: columns of the mailbox row, which the actor keeps and other nodes reload. */
export async function setStatus({ state, deps }: WriteContext, status: "active" | "disabled"): Promise<MailboxRow> {
  if (state.mailbox.status === status) return state.mailbox;
  return update({ state, deps }, { status, updatedAt: new Date() });
}

export async function setPolicy(ctx: WriteContext, policy: PolicyPatch): Promise<MailboxRow> {
  const now = new Date();
  return update(ctx, { ...definedOnly(policy), policyUpdatedAt: now, updatedAt: now });
}

async function update({ state, deps }: WriteContext, values: Partial<MailboxRow>): Promise<MailboxRow> {
  const [row] = await deps.db.update(mailboxes).set(values).where(eq(mailboxes.id, state.mailbox.id)).returning();
  state.mailbox = row!;
  state.loadedAt = performance.now();
  deps.announceChanged(row!.id);
  return row!;
}

/** Drops absent fields, so a partial update never writes undefined. */
export function definedOnly<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}
