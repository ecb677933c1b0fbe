import { eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import type { Dispatched } from "../../../actors/mailbox/outbound.ts";
import type { Db } from "../../../db/client.ts";
import { messages } from "../../../db/schema/index.ts";
import { DRAFT_LIMITS } from "../../domain/drafts.ts";
import type { Owners } from "../../domain/owners.ts";
import { notFound } from "../../errors.ts";
import type { JobRunner } from "../../jobs/runner.ts";
import { Addresses, DraftParams } from "../drafts/model.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import { fullMessage, Message, MessageParams } from "../messages/model.ts";
import type { MutationHooks } from "../pipeline.ts";

const Body = t.String({ maxLength: DRAFT_LIMITS.body });

const SendBody = t.Object(
  {
    to: t.Array(t.String({ maxLength: 254 }), { minItems: 1, maxItems: DRAFT_LIMITS.recipients }),
    cc: t.Optional(Addresses),
    bcc: t.Optional(Addresses),
    subject: t.String({ maxLength: DRAFT_LIMITS.subject }),
    textBody: t.Optional(Body),
    htmlBody: t.Optional(Body),
  },
  { additionalProperties: false },
);
const ReplyBody = t.Object(
  { textBody: t.Optional(Body), htmlBody: t.Optional(Body), cc: t.Optional(Addresses), bcc: t.Optional(Addresses) },
  { additionalProperties: false },
);
const Sent = t.Object({
  message: Message,
  provider_message_id: t.Union([t.String(), t.Null()]),
  reply_to: t.String({ description: "The reply alias {localPart}+reply-{token}@{domain} set as Reply-To" }),
});

const SEND_NOTES =
  "Checks, in order: validation (400), suppression list (409 address_suppressed), mailbox disabled (403 mailbox_disabled), policy allow_outbound (403 outbound_disabled), the mailbox's sends per sliding hour (429). The first delivery attempt runs before the answer: status is `sent`, or `queued` while a relay failure is retried, or `failed`; GET …/delivery has the history.";

/** Send, reply and draft send: one path through the mailbox actor, then the first delivery attempt. */
export function sendRoutes(mailboxes: Mailboxes, owners: Owners, db: Db, runner: JobRunner, mutation: MutationHooks) {
  const answer = async (dispatched: Dispatched, set: { status?: number | string }) => {
    await runner.runNow(dispatched.jobId);
    const [row] = await db.select().from(messages).where(eq(messages.id, dispatched.message.id)).limit(1);
    const message = row ?? dispatched.message;
    set.status = 201;
    return { message: fullMessage(message, []), provider_message_id: message.providerMessageId, reply_to: dispatched.replyTo };
  };
  const ownerOr404 = async (kind: "message" | "draft", id: string) => {
    const owner = await owners[kind](id);
    if (!owner) throw notFound(kind, id);
    return owner;
  };

  return new Elysia({ name: "send" }).guard(mutation, (writes) =>
    writes
      .post(
        "/v1/mailboxes/:mailboxId/send",
        async ({ params, body, set }) =>
          answer(
            await mailboxes.send(params.mailboxId, {
              to: body.to,
              cc: body.cc ?? [],
              bcc: body.bcc ?? [],
              subject: body.subject,
              textBody: body.textBody ?? null,
              htmlBody: body.htmlBody ?? null,
            }),
            set,
          ),
        { params: MailboxParams, body: SendBody, response: { 201: Sent }, detail: { summary: "Send an email", description: SEND_NOTES, tags: ["Messages"] } },
      )
      .post(
        "/v1/messages/:messageId/reply",
        async ({ params, body, set }) => answer(await mailboxes.reply(await ownerOr404("message", params.messageId), params.messageId, body ?? {}), set),
        {
          params: MessageParams,
          body: t.Optional(ReplyBody),
          response: { 201: Sent },
          detail: {
            summary: "Reply to a message",
            description: `Goes to the message's Reply-To or sender (inbound) or its recipients (outbound), in its thread, with In-Reply-To and References. 400 reply_not_supported for a message with no one to answer or an agent protocol message. ${SEND_NOTES}`,
            tags: ["Messages"],
          },
        },
      )
      .post(
        "/v1/drafts/:draftId/send",
        async ({ params, set }) => answer(await mailboxes.sendDraft(await ownerOr404("draft", params.draftId), params.draftId), set),
        {
          params: DraftParams,
          response: { 201: Sent },
          detail: { summary: "Send a draft", description: `The same checks as send; the draft is deleted in the transaction that queues the message. ${SEND_NOTES}`, tags: ["Drafts"] },
        },
      ),
  );
}
