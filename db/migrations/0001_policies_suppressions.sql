CREATE TABLE "suppressions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"address" text NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mailboxes" ADD COLUMN "allow_outbound" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "mailboxes" ADD COLUMN "allow_auto_reply" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "mailboxes" ADD COLUMN "max_outbound_per_day" integer DEFAULT 1000 NOT NULL;--> statement-breakpoint
ALTER TABLE "mailboxes" ADD COLUMN "policy_updated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "suppressions_account_address_key" ON "suppressions" USING btree ("account_id","address");