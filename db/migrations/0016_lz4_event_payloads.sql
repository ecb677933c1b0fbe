-- Hand-written (issue 16). An event's payload carries the message's bodies (message.processed and message.sent: tens of KiB of text), and so does a webhook delivery's body: they are compressed with lz4 instead of pglz, as the bodies themselves are since 0013. pglz on the outbox payload was 6% of PostgreSQL's CPU in the ingest bench (158 KiB message, 20 KiB of prose). Only values written from now on are affected; a server without lz4 (PGlite) keeps pglz.
DO $$
BEGIN
	ALTER TABLE "outbox" ALTER COLUMN "payload" SET COMPRESSION lz4;
	ALTER TABLE "webhook_deliveries" ALTER COLUMN "body" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
	RAISE NOTICE 'lz4 is not available: event payloads keep pglz';
END
$$;
