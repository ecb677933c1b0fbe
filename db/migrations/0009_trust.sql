-- Hand-written: what extracted_text leaves out (quoted history, signature), kept next to it (src/mail/extract.ts splitReply).
ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "quoted_text" text;
