-- Hand-written (issue 14). A row of api_key_calls stands for `n` calls of one key, made by the time in `at` (the last of them): the owner writes one row per key and flush instead of one per call (src/cluster/durable-windows.ts). Rows written before stand for one call each.
ALTER TABLE "api_key_calls" ADD COLUMN "n" integer DEFAULT 1 NOT NULL;
