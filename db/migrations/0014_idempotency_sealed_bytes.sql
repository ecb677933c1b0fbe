-- Hand-written (issue 13). A large stored answer (a send's, with megabytes of body) is kept as sealed bytes, written and read by Bun's client on a worker thread (src/mail/native-sql.ts), instead of base64 text through postgres.js, which held the event loop 70-170 ms framing and parsing it. Ciphertext does not compress: stored out of line as it is.
ALTER TABLE "idempotency_keys" ADD COLUMN "response_sealed" bytea;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ALTER COLUMN "response_sealed" SET STORAGE EXTERNAL;
