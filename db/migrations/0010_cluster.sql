CREATE TABLE "cluster_nodes" (
	"node_id" text PRIMARY KEY NOT NULL,
	"heartbeat_at" timestamp with time zone NOT NULL,
	"draining" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cluster_partitions" (
	"partition" integer PRIMARY KEY NOT NULL,
	"owner" text,
	"epoch" bigint DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone DEFAULT '1970-01-01 00:00:00+00' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_key_calls" (
	"mailbox_id" uuid NOT NULL,
	"key_id" uuid NOT NULL,
	"at" double precision NOT NULL
);
--> statement-breakpoint
CREATE INDEX "api_key_calls_mailbox_at_idx" ON "api_key_calls" USING btree ("mailbox_id","at");
--> statement-breakpoint
CREATE INDEX "api_key_calls_at_idx" ON "api_key_calls" USING btree ("at");
--> statement-breakpoint
CREATE INDEX "api_keys_revoked_at_idx" ON "api_keys" USING btree ("revoked_at") WHERE "api_keys"."revoked_at" is not null;
--> statement-breakpoint
-- Hand-written: the fixed set of partitions (src/cluster/leases.ts PARTITIONS).
INSERT INTO "cluster_partitions" ("partition") SELECT generate_series(0, 63);
