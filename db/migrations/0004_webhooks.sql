CREATE TABLE "mailbox_event_counters" (
	"mailbox_id" uuid PRIMARY KEY NOT NULL,
	"last_seq" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"delivery_id" uuid NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"trigger" text NOT NULL,
	"url" text NOT NULL,
	"status_code" integer,
	"response_body" text,
	"duration_ms" integer NOT NULL,
	"success" boolean NOT NULL,
	"error" text,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"mailbox_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"event" text NOT NULL,
	"body" text NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"schedule_attempts" integer DEFAULT 0 NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone,
	"locked_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" uuid PRIMARY KEY NOT NULL,
	"mailbox_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"secret" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "mailbox_seq" bigint;--> statement-breakpoint
ALTER TABLE "mailbox_event_counters" ADD CONSTRAINT "mailbox_event_counters_mailbox_id_mailboxes_id_fk" FOREIGN KEY ("mailbox_id") REFERENCES "public"."mailboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_mailbox_id_mailboxes_id_fk" FOREIGN KEY ("mailbox_id") REFERENCES "public"."mailboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_attempts_endpoint_idx" ON "webhook_attempts" USING btree ("endpoint_id","finished_at");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_endpoint_event_key" ON "webhook_deliveries" USING btree ("endpoint_id","event_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_failed_idx" ON "webhook_deliveries" USING btree ("endpoint_id","created_at") WHERE "webhook_deliveries"."state" = 'failed';--> statement-breakpoint
CREATE INDEX "webhook_endpoints_mailbox_idx" ON "webhook_endpoints" USING btree ("mailbox_id");--> statement-breakpoint
CREATE UNIQUE INDEX "outbox_mailbox_seq_key" ON "outbox" USING btree ("mailbox_id","mailbox_seq") WHERE "outbox"."kind" = 'event';--> statement-breakpoint
CREATE INDEX "outbox_done_idx" ON "outbox" USING btree ("done_at") WHERE "outbox"."done_at" is not null;--> statement-breakpoint
-- Each event gets the next number of its mailbox. The counter row stays locked until commit,
-- so a mailbox's events commit in number order and a reader resuming after N misses nothing.
-- The notification (sent at commit) wakes the event relay and live SSE streams on every node.
CREATE FUNCTION "outbox_assign_mailbox_seq"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.kind = 'event' AND NEW.mailbox_id IS NOT NULL THEN
    INSERT INTO mailbox_event_counters (mailbox_id, last_seq) VALUES (NEW.mailbox_id, 1)
    ON CONFLICT (mailbox_id) DO UPDATE SET last_seq = mailbox_event_counters.last_seq + 1
    RETURNING last_seq INTO NEW.mailbox_seq;
    PERFORM pg_notify('mailroom_events', NEW.mailbox_id::text);
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "outbox_mailbox_seq" BEFORE INSERT ON "outbox" FOR EACH ROW EXECUTE FUNCTION "outbox_assign_mailbox_seq"();
