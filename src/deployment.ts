import { createHash, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { deployment } from "../db/schema/index.ts";

export interface DeploymentIdentity {
  id: string;
  /** Which key sealed the stored secrets; null until a key did. */
  secretsKeyId: string | null;
}

/** The deployment row, made by whichever node gets there first (the others read the same one). */
export async function deploymentIdentity(db: Db): Promise<DeploymentIdentity> {
  await db.insert(deployment).values({ singleton: true, id: randomUUID() }).onConflictDoNothing();
  const [row] = await db.select({ id: deployment.id, secretsKeyId: deployment.secretsKeyId }).from(deployment).where(eq(deployment.singleton, true)).limit(1);
  return row!;
}

/**
 * The NATS namespace of a deployment that sets no NATS_PREFIX: a digest of its id, so it is
 * the same on every node of one database and different for every other database.
 */
export const defaultNatsPrefix = (deploymentId: string): string => `mailroom-${createHash("sha256").update(deploymentId).digest("hex").slice(0, 16)}`;
