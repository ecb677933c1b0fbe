import { eq, sql } from "drizzle-orm";
import { mailboxes } from "../../db/schema/index.ts";
import { notFound } from "../../src/errors.ts";
import { newSigningSecret } from "../../src/webhooks/signing.ts";
import type { WriteContext } from "./types.ts";

/**
 * The secret that signs protocol responses POSTed to this mailbox's callback URLs, opened:
 * made now if there is none (the first callback may have made it already), replaced on `rotate`.
 */
export async function callbackSecret({ state, deps }: WriteContext, rotate: boolean): Promise<string> {
  const fresh = deps.secrets.seal(newSigningSecret());
  const value = rotate ? sql`${fresh}` : sql`coalesce(${mailboxes.callbackSecret}, ${fresh})`;
  const [row] = await deps.db.update(mailboxes).set({ callbackSecret: value }).where(eq(mailboxes.id, state.mailbox.id)).returning();
  if (!row) throw notFound("mailbox", state.mailbox.id);
  // The row came back whole: the kept copy is refreshed for free. Nothing else reads the secret from it.
  state.mailbox = row;
  state.loadedAt = performance.now();
  return deps.secrets.open(row.callbackSecret!);
}
