import { bigint, boolean, doublePrecision, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * The nodes of a NATS cluster (src/cluster/leases.ts): each renews its row while it lives;
 * a node whose heartbeat is older than a lease is gone, and a draining one takes no new share.
 */
export const clusterNodes = pgTable(
  "cluster_nodes",
  {
    /** The cluster's NATS prefix: nodes of different prefixes cannot forward to one another. */
    cluster: text("cluster").notNull().default(""),
    nodeId: text("node_id").notNull(),
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true }).notNull(),
    draining: boolean("draining").notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.cluster, t.nodeId] })],
);

/**
 * Mailboxes hashed to a fixed number of partitions, each leased to one node at a time.
 * `epoch` grows with every change of owner: an actor's write commits only in a transaction
 * that still reads its own node and epoch here (the fence).
 */
export const clusterPartitions = pgTable(
  "cluster_partitions",
  {
    cluster: text("cluster").notNull().default(""),
    partition: integer("partition").notNull(),
    owner: text("owner"),
    epoch: bigint("epoch", { mode: "number" }).notNull().default(0),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull().default(new Date(0)),
  },
  (t) => [primaryKey({ columns: [t.cluster, t.partition] })],
);

/**
 * The calls each API key made inside its rate window, written by the mailbox's owner within
 * 50 ms of admitting them, so the window survives a change of owner (a new owner rebuilds it
 * from here). A row is `n` calls, the last of them at `at` (src/cluster/durable-windows.ts).
 */
export const apiKeyCalls = pgTable(
  "api_key_calls",
  {
    mailboxId: uuid("mailbox_id").notNull(),
    keyId: uuid("key_id").notNull(),
    /** Epoch milliseconds of the owner's clock. */
    at: doublePrecision("at").notNull(),
    /** How many calls the row stands for (migration 0015). */
    n: integer("n").notNull().default(1),
  },
  (t) => [index("api_key_calls_mailbox_at_idx").on(t.mailboxId, t.at), index("api_key_calls_at_idx").on(t.at)],
);
