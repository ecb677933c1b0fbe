-- Hand-written (issue 16). Raw messages are stored once: attachments are read back as byte ranges of their message's raw bytes, so blobs are kept uncompressed (EXTERNAL), which also lets substring() read only the chunks of a range. Existing rows keep their compressed form until rewritten.
ALTER TABLE "blobs" ALTER COLUMN "bytes" SET STORAGE EXTERNAL;--> statement-breakpoint
ALTER TABLE "attachments" ALTER COLUMN "sha256" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "attachments" ADD COLUMN "raw_offset" integer;--> statement-breakpoint
ALTER TABLE "attachments" ADD COLUMN "raw_length" integer;--> statement-breakpoint
ALTER TABLE "attachments" ADD COLUMN "transfer_encoding" text;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_bytes_known" CHECK ("sha256" IS NOT NULL OR ("raw_offset" IS NOT NULL AND "raw_length" IS NOT NULL AND "transfer_encoding" IS NOT NULL));
