import { eq, getTableColumns } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Held, HoldingMode, Mailboxes } from "../../../actors/mailbox/client.ts";
import type { Db } from "../../../db/client.ts";
import { messages } from "../../../db/schema/index.ts";
import { DRAFT_LIMITS } from "../../domain/drafts.ts";
import type { Owners } from "../../domain/owners.ts";
import { AppError, notFound } from "../../errors.ts";
import type { Dispatched } from "../../domain/outbound.ts";
import { Draft, draft as draftView } from "../drafts/model.ts";
import type { DerivedContext } from "../pipeline.ts";
import type { JobRunner } from "../../jobs/runner.ts";
import { Addresses, DraftParams } from "../drafts/model.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import { fullMessage, Message, MessageParams } from "../messages/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import { splicedJson } from "../spliced-json.ts";

const { textBody: _text, htmlBody: _html, ...HEAD_COLUMNS } = getTableColumns(messages);

/** Answers with bodies from this size (JSON, together) are spliced rather than serialised here. */
const SPLICE_FROM = 256 * 1024;

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

const Held = t.Object(
  {
    disposition: t.Union([t.Literal("draft"), t.Literal("observed")], { description: "draft: held for approval (draft-first); observed: only logged (observe)" }),
    draft: t.Optional(Draft),
  },
  { additionalProperties: false },
);
const RUNTIME_NOTES =
  "Called with an agent runtime's key, the binding's policy mode decides: auto-send sends; draft-first answers 202 with a draft to approve (a reply's draft threads as a reply when sent); observe answers 202 and only logs. Each is in the routing log.";

const SEND_NOTES =
  "Checks, in order: validation (400), suppression list (409 address_suppressed), mailbox disabled (403 mailbox_disabled), policy allow_outbound (403 outbound_disabled), the mailbox's sends per sliding hour (429). The first delivery attempt runs before the answer: status is `sent`, or `queued` while a relay failure is retried, or `failed`; GET …/delivery has the history.";

/**
 * The body fields of send and reply that the JSON worker hands over as UTF-8 bytes when large
 * (src/http/json-intake.ts); the handlers read them from the context's `texts`.
 */
export const SEND_TEXT_FIELDS: Record<string, readonly string[]> = {
  "POST /v1/mailboxes/:mailboxId/send": ["textBody", "htmlBody"],
  "POST /v1/messages/:messageId/reply": ["textBody", "htmlBody"],
};

/** Send, reply and draft send: one path through the mailbox actor, then the first delivery attempt. */
export function sendRoutes(mailboxes: Mailboxes, owners: Owners, db: Db, runner: JobRunner, mutation: MutationHooks) {
  const answer = async (dispatched: Dispatched, set: { status?: number | string }) => {
    await runner.runNow(dispatched.jobId);
    // The status the delivery left, without the bodies: the send holds them already, and a
    // large send's are megabytes to decode again on the event loop.
    const [row] = await db.select(HEAD_COLUMNS).from(messages).where(eq(messages.id, dispatched.message.id)).limit(1);
    const message = row ? { ...row, textBody: dispatched.message.textBody, htmlBody: dispatched.message.htmlBody } : dispatched.message;
    set.status = 201;
    const view = fullMessage(message, []);
    const answer = { message: view, provider_message_id: message.providerMessageId, reply_to: dispatched.replyTo };
    // A large send's bodies come back as the JSON its composer thread wrote.
    const json = dispatched.bodiesJson;
    const size = (json?.text?.byteLength ?? 0) + (json?.html?.byteLength ?? 0);
    if (!json || size < SPLICE_FROM) return answer;
    const slots: Record<string, Uint8Array> = {};
    // A body's JSON exists when the body was given (a staged body given as bytes is null in the row).
    if (json.text) slots.text_body = json.text;
    if (json.html) slots.html_body = json.html;
    return splicedJson(answer, view, slots, 201) as unknown as typeof answer;
  };
  const ownerOr404 = async (kind: "message" | "draft", id: string) => {
    const owner = await owners[kind](id);
    if (!owner) throw notFound(kind, id);
    return owner;
  };

  // What an agent runtime's send becomes when its policy mode holds it: the mailbox actor decides (README "Agent-runtime binding").
  const heldAnswer = (held: Held, set: { status?: number | string }) => {
    set.status = 202;
    return held.disposition === "draft" ? { disposition: "draft" as const, draft: draftView(held.draft) } : { disposition: "observed" as const };
  };
  const holding = (ctx: unknown): HoldingMode | null => {
    const runtime = (ctx as DerivedContext).runtime;
    return runtime && runtime.mode !== "auto-send" ? runtime.mode : null;
  };

  return new Elysia({ name: "send" }).guard(mutation, (writes) =>
    writes
      .post(
        "/v1/mailboxes/:mailboxId/send",
        async (ctx) => {
          const { params, body, set } = ctx;
          const texts = (ctx as unknown as DerivedContext).texts;
          const fields = { to: body.to, cc: body.cc ?? [], bcc: body.bcc ?? [], subject: body.subject, textBody: texts?.textBody ?? body.textBody ?? null, htmlBody: texts?.htmlBody ?? body.htmlBody ?? null };
          const mode = holding(ctx);
          return mode ? heldAnswer(await mailboxes.holdSend(params.mailboxId, mode, fields), set) : answer(await mailboxes.send(params.mailboxId, fields), set);
        },
        { params: MailboxParams, body: SendBody, response: { 201: Sent, 202: Held }, detail: { summary: "Send an email", description: `${SEND_NOTES} ${RUNTIME_NOTES}`, tags: ["Messages"] } },
      )
      .post(
        "/v1/messages/:messageId/reply",
        async (ctx) => {
          const { params, body, set } = ctx;
          const owner = await ownerOr404("message", params.messageId);
          const mode = holding(ctx);
          const texts = (ctx as unknown as DerivedContext).texts;
          const fields = texts ? { ...body, ...texts } : (body ?? {});
          // Held, a reply becomes a draft that, once approved, is sent as this reply.
          if (mode) return heldAnswer(await mailboxes.holdReply(owner, mode, params.messageId, fields), set);
          return answer(await mailboxes.reply(owner, params.messageId, fields), set);
        },
        {
          params: MessageParams,
          body: t.Optional(ReplyBody),
          response: { 201: Sent, 202: Held },
          detail: {
            summary: "Reply to a message",
            description: `Goes to the message's Reply-To or sender (inbound) or its recipients (outbound), in its thread, with In-Reply-To and References. 400 reply_not_supported for a message with no one to answer or an agent protocol message. ${SEND_NOTES}`,
            tags: ["Messages"],
          },
        },
      )
      .post(
        "/v1/drafts/:draftId/send",
        async (ctx) => {
          const { params, set } = ctx;
          const owner = await ownerOr404("draft", params.draftId);
          const runtime = (ctx as unknown as DerivedContext).runtime;
          if (runtime?.mode === "draft-first") throw new AppError("approval_required", "in draft-first mode a person approves drafts: send it with a mailbox key or the admin token");
          if (runtime?.mode === "observe") {
            await mailboxes.logRuntime(owner, { messageId: null, kind: "send_observed", detail: `the runtime asked to send draft ${params.draftId}; observe mode only logs it`, data: { draft_id: params.draftId } });
            set.status = 202;
            return { disposition: "observed" as const };
          }
          return answer(await mailboxes.sendDraft(owner, params.draftId), set);
        },
        {
          params: DraftParams,
          response: { 201: Sent, 202: Held },
          detail: { summary: "Send a draft", description: `The same checks as send; the draft is deleted in the transaction that queues the message. ${SEND_NOTES}`, tags: ["Drafts"] },
        },
      ),
  );
}
