import type { Mailboxes } from "../../actors/mailbox/client.ts";
import type { OutboxRow } from "../../db/schema/index.ts";
import { isPermanent } from "../jobs/failure.ts";
import { messageIdOf } from "../jobs/outbox.ts";
import type { JobSpec } from "../jobs/runner.ts";

/**
 * The `protocol.auto` job: the mailbox actor answers a `send_message` invocation itself
 * (README "Agent protocol"). Idempotent, so a job that runs twice sends one email. A job
 * that ends failed marks the protocol message `failed` with the reason.
 */
export const autoReplies = (mailboxes: Mailboxes): JobSpec => ({
  run: async (job: OutboxRow): Promise<void> => {
    if (!job.mailboxId) return;
    await mailboxes.autoAct(job.mailboxId, messageIdOf(job));
  },
  failed: async (job: OutboxRow, reason: string): Promise<void> => {
    const messageId = messageIdOf(job, null);
    if (!job.mailboxId || !messageId) return;
    try {
      await mailboxes.recordJobFailure(job.mailboxId, { kind: "protocol.auto", messageId, reason });
    } catch (err) {
      if (!isPermanent(err)) throw err; // the mailbox is gone
    }
  },
});
