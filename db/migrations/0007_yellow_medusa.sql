ALTER TABLE "outbox" ADD COLUMN "failed_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "outbox_failed_idx" ON "outbox" USING btree ("kind") WHERE "outbox"."failed_at" is not null;