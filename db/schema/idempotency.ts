import { index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { bytea } from "./bytea.ts";

/**
 * One row per (caller, Idempotency-Key). The row is the cross-node claim: inserting it
 * is what lets exactly one request run; `claimed_at` is a lease so a crashed node's claim
 * does not block the key forever. The key itself is not stored, only its digest, and the
 * response is encrypted under a key derived from it: a stored response can hold a secret
 * shown once (an API key token), which a database dump must not reveal.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    scope: text("scope").notNull(),
    keyDigest: text("key_digest").notNull(),
    fingerprint: text("fingerprint").notNull(),
    state: text("state").notNull(), // 'running' | 'done'
    statusCode: integer("status_code"),
    /** base64(iv ‖ AES-256-GCM ciphertext ‖ tag) of the JSON response body. */
    responseBody: text("response_body"),
    /**
     * A large answer instead (migration 0014): iv ‖ ciphertext ‖ tag as bytes, written and read
     * off the event loop (src/http/idempotency.ts). Never selected with the row.
     */
    responseSealed: bytea("response_sealed"),
    claimedAt: timestamp("claimed_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [primaryKey({ name: "idempotency_keys_pkey", columns: [t.scope, t.keyDigest] }), index("idempotency_keys_expires_idx").on(t.expiresAt)],
);

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;
