-- Hand-written (issue 16). The bodies, headers and search vector a message gets at processing are compressed with lz4 instead of pglz on PostgreSQL: pglz was a quarter to a third of the backend CPU of writing a processed row with 40 KiB of text (0.25 ms of 1.1 ms for the ingest bench's text, 0.9 ms of 2.6 ms for prose; bench figures in the commit), lz4 stores prose about 1.5 times larger. Only values written from now on are affected. A server built without lz4 (PGlite) keeps pglz: the change is skipped there.
DO $$
BEGIN
	ALTER TABLE "messages"
		ALTER COLUMN "text_body" SET COMPRESSION lz4,
		ALTER COLUMN "html_body" SET COMPRESSION lz4,
		ALTER COLUMN "extracted_text" SET COMPRESSION lz4,
		ALTER COLUMN "quoted_text" SET COMPRESSION lz4,
		ALTER COLUMN "headers" SET COMPRESSION lz4,
		ALTER COLUMN "search_tsv" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
	RAISE NOTICE 'lz4 is not available: message bodies keep pglz';
END
$$;
