CREATE TABLE "intel_results" (
	"kind" text NOT NULL,
	"subject_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"mailbox_id" uuid,
	"engine" text NOT NULL,
	"engine_version" text NOT NULL,
	"model" text,
	"fallback_reason" text,
	"source_version" text NOT NULL,
	"result" jsonb NOT NULL,
	"generated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "intel_results_kind_subject_id_pk" PRIMARY KEY("kind","subject_id")
);
--> statement-breakpoint
CREATE TABLE "mailbox_hourly_counters" (
	"mailbox_id" uuid NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"counter" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "mailbox_hourly_counters_mailbox_id_hour_counter_pk" PRIMARY KEY("mailbox_id","hour","counter")
);
--> statement-breakpoint
CREATE TABLE "sender_profiles" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"address" text NOT NULL,
	"display_name" text,
	"disposition" text DEFAULT 'neutral' NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"message_count" integer DEFAULT 0 NOT NULL,
	"first_seen_at" timestamp with time zone,
	"last_seen_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "attachment_names" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "intel_results" ADD CONSTRAINT "intel_results_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intel_results" ADD CONSTRAINT "intel_results_mailbox_id_mailboxes_id_fk" FOREIGN KEY ("mailbox_id") REFERENCES "public"."mailboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mailbox_hourly_counters" ADD CONSTRAINT "mailbox_hourly_counters_mailbox_id_mailboxes_id_fk" FOREIGN KEY ("mailbox_id") REFERENCES "public"."mailboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sender_profiles" ADD CONSTRAINT "sender_profiles_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sender_profiles_account_address_key" ON "sender_profiles" USING btree ("account_id","address");--> statement-breakpoint
CREATE INDEX "sender_profiles_account_seen_idx" ON "sender_profiles" USING btree ("account_id","last_seen_at");--> statement-breakpoint
CREATE INDEX "messages_from_idx" ON "messages" USING btree ("from_address","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_mailbox_finished_idx" ON "webhook_deliveries" USING btree ("mailbox_id","finished_at") WHERE "webhook_deliveries"."finished_at" is not null;--> statement-breakpoint
-- Full-text search (written by hand: the columns are not mapped in db/schema, see messages.ts).
-- Subject weighs A; addresses (whole, and split at @ and dots) and attachment names (whole, and split at - _ .) B; the new text C.
ALTER TABLE "messages" ADD COLUMN "search_tsv" tsvector GENERATED ALWAYS AS (
	setweight(to_tsvector('english', left("subject", 2000)), 'A')
	|| setweight(to_tsvector('english', left("from_address" || ' ' || "to_address" || ' ' || translate("cc"::text, '[]",', '    '), 4000)
		|| ' ' || translate(left("from_address" || ' ' || "to_address" || ' ' || "cc"::text, 4000), '@.[]",', '      ')), 'B')
	|| setweight(to_tsvector('english', left("attachment_names", 4000) || ' ' || translate(left("attachment_names", 4000), '-_.', '   ')), 'B')
	|| setweight(to_tsvector('english', left(coalesce("extracted_text", "text_body", ''), 200000)), 'C')
) STORED;--> statement-breakpoint
CREATE INDEX "messages_search_tsv_idx" ON "messages" USING gin ("search_tsv");--> statement-breakpoint
ALTER TABLE "threads" ADD COLUMN "subject_tsv" tsvector GENERATED ALWAYS AS (to_tsvector('english', left("subject", 2000))) STORED;--> statement-breakpoint
CREATE INDEX "threads_subject_tsv_idx" ON "threads" USING gin ("subject_tsv");
