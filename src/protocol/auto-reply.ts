import type { Mailboxes } from "../../actors/mailbox/client.ts";
import type { OutboxRow } from "../../db/schema/index.ts";

/**
 * The `protocol.auto` job: the mailbox actor answers a `send_message` invocation itself
 * (README "Agent protocol"). Idempotent, so a job that runs twice sends one email.
 */
export const autoReplies =
  (mailboxes: Mailboxes) =>
  async (job: OutboxRow): Promise<void> => {
    if (!job.mailboxId) return;
    await mailboxes.autoAct(job.mailboxId, String(job.payload.message_id));
  };
