import { sql } from "drizzle-orm";
import { boolean, check, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { timestampNow } from "./columns.ts";

/**
 * This deployment's identity: one row, made by the first node that starts against the
 * database. Every node sharing the database reads the same id (the default NATS namespace),
 * and two databases never share one, even on one PostgreSQL server.
 */
export const deployment = pgTable(
  "deployment",
  {
    singleton: boolean("singleton").primaryKey().default(true),
    id: uuid("id").notNull(),
    /** Which key sealed the stored secrets (src/crypto/secret-box.ts); null until one did. */
    secretsKeyId: text("secrets_key_id"),
    createdAt: timestampNow("created_at"),
  },
  (t) => [check("deployment_singleton", sql`${t.singleton}`)],
);
