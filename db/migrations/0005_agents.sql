CREATE TABLE "agent_runtime_bindings" (
	"mailbox_id" uuid PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"runtime_base_url" text NOT NULL,
	"permission_tier" text DEFAULT 'draft' NOT NULL,
	"policy_mode" text DEFAULT 'draft-first' NOT NULL,
	"persona_label" text DEFAULT 'default' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"signing_secret" text NOT NULL,
	"key_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_runtime_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"mailbox_id" uuid NOT NULL,
	"message_id" uuid,
	"kind" text NOT NULL,
	"detail" text DEFAULT '' NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"delivery_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "autopilot_decisions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"mailbox_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"mode" text NOT NULL,
	"matched_rules" jsonb NOT NULL,
	"actions" jsonb NOT NULL,
	"blocked" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "autopilot_policies" (
	"mailbox_id" uuid PRIMARY KEY NOT NULL,
	"mode" text DEFAULT 'observe' NOT NULL,
	"rules" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "protocol_messages" (
	"message_id" uuid PRIMARY KEY NOT NULL,
	"mailbox_id" uuid NOT NULL,
	"sender_mailbox_id" uuid,
	"action" text,
	"parameters" jsonb,
	"from_agent" text,
	"on_behalf_of" text,
	"callback_url" text,
	"priority" text DEFAULT 'normal' NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"conversation_id" text,
	"status" text DEFAULT 'received' NOT NULL,
	"error" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "protocol_responses" (
	"id" uuid PRIMARY KEY NOT NULL,
	"protocol_message_id" uuid NOT NULL,
	"mailbox_id" uuid NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"structured_data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"delivery_mode" text NOT NULL,
	"status" text NOT NULL,
	"responder" text NOT NULL,
	"delivery_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "webhook_attempts" ALTER COLUMN "endpoint_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ALTER COLUMN "endpoint_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "mailboxes" ADD COLUMN "callback_secret" text;--> statement-breakpoint
ALTER TABLE "drafts" ADD COLUMN "in_reply_to_message_id" uuid;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "target" text DEFAULT 'webhook' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "url" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "secret" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "signature_header" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "subject_id" uuid;--> statement-breakpoint
ALTER TABLE "agent_runtime_bindings" ADD CONSTRAINT "agent_runtime_bindings_mailbox_id_mailboxes_id_fk" FOREIGN KEY ("mailbox_id") REFERENCES "public"."mailboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_runtime_bindings" ADD CONSTRAINT "agent_runtime_bindings_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_runtime_events" ADD CONSTRAINT "agent_runtime_events_mailbox_id_mailboxes_id_fk" FOREIGN KEY ("mailbox_id") REFERENCES "public"."mailboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autopilot_decisions" ADD CONSTRAINT "autopilot_decisions_mailbox_id_mailboxes_id_fk" FOREIGN KEY ("mailbox_id") REFERENCES "public"."mailboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autopilot_decisions" ADD CONSTRAINT "autopilot_decisions_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autopilot_policies" ADD CONSTRAINT "autopilot_policies_mailbox_id_mailboxes_id_fk" FOREIGN KEY ("mailbox_id") REFERENCES "public"."mailboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "protocol_messages" ADD CONSTRAINT "protocol_messages_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "protocol_messages" ADD CONSTRAINT "protocol_messages_mailbox_id_mailboxes_id_fk" FOREIGN KEY ("mailbox_id") REFERENCES "public"."mailboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "protocol_messages" ADD CONSTRAINT "protocol_messages_sender_mailbox_id_mailboxes_id_fk" FOREIGN KEY ("sender_mailbox_id") REFERENCES "public"."mailboxes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "protocol_responses" ADD CONSTRAINT "protocol_responses_protocol_message_id_protocol_messages_message_id_fk" FOREIGN KEY ("protocol_message_id") REFERENCES "public"."protocol_messages"("message_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "protocol_responses" ADD CONSTRAINT "protocol_responses_mailbox_id_mailboxes_id_fk" FOREIGN KEY ("mailbox_id") REFERENCES "public"."mailboxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_runtime_events_created_idx" ON "agent_runtime_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "agent_runtime_events_mailbox_idx" ON "agent_runtime_events" USING btree ("mailbox_id","created_at");--> statement-breakpoint
CREATE INDEX "autopilot_decisions_mailbox_idx" ON "autopilot_decisions" USING btree ("mailbox_id","created_at");--> statement-breakpoint
CREATE INDEX "autopilot_decisions_message_idx" ON "autopilot_decisions" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "protocol_messages_sender_idx" ON "protocol_messages" USING btree ("sender_mailbox_id","created_at");--> statement-breakpoint
CREATE INDEX "protocol_messages_conversation_idx" ON "protocol_messages" USING btree ("mailbox_id","conversation_id");--> statement-breakpoint
CREATE INDEX "protocol_responses_message_idx" ON "protocol_responses" USING btree ("protocol_message_id","created_at");