CREATE TABLE "deployment" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"id" uuid NOT NULL,
	"secrets_key_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "deployment_singleton" CHECK ("deployment"."singleton")
);
--> statement-breakpoint
DROP INDEX "messages_mailbox_msgid_idx";--> statement-breakpoint
DROP INDEX "threads_mailbox_subject_idx";--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "failed_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "messages_mailbox_msgid_md5_idx" ON "messages" USING btree ("mailbox_id",md5("message_id_header"));--> statement-breakpoint
CREATE INDEX "outbox_failed_idx" ON "outbox" USING btree ("kind") WHERE "outbox"."failed_at" is not null;--> statement-breakpoint
CREATE INDEX "threads_mailbox_match_idx" ON "threads" USING btree ("mailbox_id",md5("subject_key"),md5("participants_key"));--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP COLUMN "secret";--> statement-breakpoint
-- Hand-written: participants keys past 1,000 characters are now kept as their SHA-256 (src/mail/threading.ts participantsKey), so existing long keys keep matching new mail.
UPDATE "threads" SET "participants_key" = 'sha256:' || encode(sha256(convert_to("participants_key", 'UTF8')), 'hex') WHERE length("participants_key") > 1000;
