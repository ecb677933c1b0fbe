-- Hand-written (issue 13). A large send's bodies reach PostgreSQL as binary through a client of their own and are copied into the message row inside the sending transaction (src/mail/blobs.ts stageTexts): sent as text parameters by postgres.js they held the event loop for tens of milliseconds per MiB. Rows live for one transaction; a crash's leftovers are removed by the next large send.
CREATE TABLE "body_stage" (
	"id" uuid PRIMARY KEY NOT NULL,
	"bytes" bytea NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
ALTER TABLE "body_stage" ALTER COLUMN "bytes" SET STORAGE EXTERNAL;
