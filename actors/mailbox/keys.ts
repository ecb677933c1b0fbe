import { and, eq } from "drizzle-orm";
import { apiKeys, type ApiKeyRow } from "../../db/schema/index.ts";
import { issueSecret } from "../../src/auth/tokens.ts";
import { newId } from "../../src/domain/ids.ts";
import { notFound } from "../../src/errors.ts";
import type { IssuedKey, WriteContext } from "./types.ts";

export async function issueKey({ state, deps }: WriteContext, name: string): Promise<IssuedKey> {
  const id = newId();
  const { token, digest } = issueSecret(id);
  const [apiKey] = await deps.db
    .insert(apiKeys)
    .values({ id, mailboxId: state.mailbox.id, name, scope: "mailbox", status: "active", secretDigest: digest })
    .returning();
  deps.keys.invalidate(id);
  return { apiKey: apiKey!, token };
}

/** Revoking is final and immediate: the local cache learns it now, other nodes by broadcast. */
export async function revokeKey({ state, deps }: WriteContext, keyId: string): Promise<ApiKeyRow> {
  const where = and(eq(apiKeys.id, keyId), eq(apiKeys.mailboxId, state.mailbox.id));
  const [current] = await deps.db.select().from(apiKeys).where(where).limit(1);
  if (!current) throw notFound("api key", keyId);
  if (current.status === "revoked") return current;
  const [revoked] = await deps.db.update(apiKeys).set({ status: "revoked", revokedAt: new Date() }).where(where).returning();
  deps.keys.invalidate(keyId, { id: revoked!.id, mailboxId: revoked!.mailboxId, status: "revoked", runtime: revoked!.scope === "runtime", digest: Buffer.from(revoked!.secretDigest, "hex") });
  deps.announceRevoked(keyId);
  state.windows.delete(keyId);
  return revoked!;
}
