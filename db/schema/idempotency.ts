import { index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * One row per (caller, Idempotency-Key). The row is the cross-node claim: inserting it
 * is what lets exactly one request run; `claimed_at` is a lease so a crashed node's claim
 * does not block the key forever.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    fingerprint: text("fingerprint").notNull(),
    state: text("state").notNull(), // 'running' | 'done'
    statusCode: integer("status_code"),
    responseBody: text("response_body"),
    claimedAt: timestamp("claimed_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [primaryKey({ name: "idempotency_keys_pkey", columns: [t.scope, t.key] }), index("idempotency_keys_expires_idx").on(t.expiresAt)],
);

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;
