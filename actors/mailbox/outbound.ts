import { and, desc, eq, getTableColumns, gte, inArray, sql, type SQL } from "drizzle-orm";
import { textFromUtf8 } from "../../db/large-values.ts";
import { deliveryEvents, drafts, messages, replyTokens, suppressions, threads, type MessageRow } from "../../db/schema/index.ts";
import { newId } from "../../src/domain/ids.ts";
import { allRecipients, checkOutgoing, replyAddressing, type Dispatched, type OutgoingFields, type ReplyFields } from "../../src/domain/outbound.ts";
import { AppError, notFound } from "../../src/errors.ts";
import { enqueueJob } from "../../src/jobs/outbox.ts";
import { MESSAGE_EVENT_PAYLOAD_SQL } from "../../src/mail/events.ts";
import { dropStagedTexts, putBlobs, stagedText } from "../../src/mail/blobs.ts";
import { bodyHead, bodyString, type BodyText } from "../../src/domain/body-text.ts";
import type { Composed } from "../../src/mail/outbound/composer.ts";
import { snippetOf } from "../../src/mail/extract.ts";
import { readHead } from "../../src/mail/parse/head.ts";
import { hashReplyToken, newReplyToken, replyAlias } from "../../src/mail/reply-tokens.ts";
import { normalizeSubject, participantsKey } from "../../src/mail/threading.ts";
import { countForMailbox, refusalCounter } from "../../src/stats/counters.ts";
import { SlidingWindow } from "./rate-window.ts";
import type { DeliveryOutcome, MailboxState, WriteContext } from "./types.ts";

const HOUR_MS = 3_600_000;

// The stored row comes back without the bodies the send already holds: megabytes of text
// decoded again on the event loop for nothing.
const { textBody: _text, htmlBody: _html, ...ROW_WITHOUT_BODIES } = getTableColumns(messages);

export async function send(ctx: WriteContext, cmd: { fields: OutgoingFields }): Promise<Dispatched> {
  return dispatch(ctx, checkOutgoing(cmd.fields), { threadId: null, inReplyTo: null, references: [], draftId: null });
}

export async function sendDraft(ctx: WriteContext, cmd: { draftId: string }): Promise<Dispatched> {
  const [draft] = await ctx.deps.db
    .select()
    .from(drafts)
    .where(and(eq(drafts.id, cmd.draftId), eq(drafts.mailboxId, ctx.state.mailbox.id)))
    .limit(1);
  if (!draft) throw notFound("draft", cmd.draftId);
  const fields = checkOutgoing({ to: draft.to, cc: draft.cc, bcc: draft.bcc, subject: draft.subject ?? "", textBody: draft.textBody, htmlBody: draft.htmlBody });
  const original = draft.inReplyToMessageId ? await ownMessage(ctx, draft.inReplyToMessageId) : undefined;
  return dispatch(ctx, fields, original ? { ...replyThreading(original), draftId: draft.id } : { threadId: null, inReplyTo: null, references: [], draftId: draft.id });
}

/** Replies go to the thread of the message answered, to its Reply-To or sender (inbound) or its recipients (outbound). */
export async function reply(ctx: WriteContext, cmd: { messageId: string; fields: ReplyFields }): Promise<Dispatched> {
  const original = await ownMessage(ctx, cmd.messageId);
  if (!original) throw notFound("message", cmd.messageId);
  const { to, subject } = replyAddressing(original);
  const fields = checkOutgoing({ to, cc: cmd.fields.cc ?? [], bcc: cmd.fields.bcc ?? [], subject, textBody: cmd.fields.textBody ?? null, htmlBody: cmd.fields.htmlBody ?? null });
  return dispatch(ctx, fields, { ...replyThreading(original), draftId: null });
}

export async function ownMessage(ctx: WriteContext, messageId: string): Promise<MessageRow | undefined> {
  const [row] = await ctx.deps.db
    .select()
    .from(messages)
    .where(and(eq(messages.id, messageId), eq(messages.mailboxId, ctx.state.mailbox.id)))
    .limit(1);
  return row;
}

function replyThreading(original: MessageRow): Omit<Threading, "draftId"> {
  const references = [...original.references, ...(original.messageIdHeader ? [original.messageIdHeader] : [])].slice(-50);
  return { threadId: original.threadId, inReplyTo: original.messageIdHeader, references };
}

export interface Threading {
  threadId: string | null;
  inReplyTo: string | null;
  references: string[];
  draftId: string | null;
  /** A caller that must not send twice (a retried job) names the message id itself. */
  messageId?: string;
}

/** The checks of section 7 that may refuse a send; each throws its AppError. */
async function refuseUnlessAllowed(state: MailboxState, db: WriteContext["deps"]["db"], recipients: string[]): Promise<void> {
  const mailbox = state.mailbox;
  const [suppressed] = await db
    .select({ address: suppressions.address })
    .from(suppressions)
    .where(and(eq(suppressions.accountId, mailbox.accountId), inArray(suppressions.address, recipients)))
    .limit(1);
  if (suppressed) throw new AppError("address_suppressed", `${suppressed.address} is on the account's suppression list`, { address: suppressed.address });
  if (mailbox.status === "disabled") throw new AppError("mailbox_disabled", `mailbox ${mailbox.id} is disabled`);
  if (!mailbox.allowOutbound) throw new AppError("outbound_disabled", "the mailbox policy does not allow sending (allow_outbound is false)");
  const window = await sendWindow(state, db);
  const decision = window.take(performance.now());
  if (!decision.allowed) {
    const retry = Math.max(1, Math.ceil(decision.resetInMs / 1000));
    throw new AppError("rate_limit_exceeded", `this mailbox may send ${decision.limit} messages per hour`, { limit: decision.limit, scope: "mailbox_sends" }, { "Retry-After": String(retry) });
  }
}

/**
 * The checks after validation, in the order section 7 gives them (suppression first, so a
 * suppressed recipient is reported even when sending is off or the window is used up), then
 * the message, its thread, its reply alias and its delivery job in one transaction.
 */
export async function dispatch({ state, deps }: WriteContext, fields: OutgoingFields, threading: Threading): Promise<Dispatched> {
  const mailbox = state.mailbox;
  const recipients = allRecipients(fields);
  try {
    await refuseUnlessAllowed(state, deps.db, recipients);
  } catch (err) {
    // Refusals are counted for the mailbox metrics; a failure to count must not hide the refusal.
    const counter = err instanceof AppError ? refusalCounter(err.code) : null;
    if (counter) await countForMailbox(deps.db, mailbox.id, counter).catch(() => {});
    throw err;
  }

  const id = threading.messageId ?? newId();
  const token = newReplyToken();
  const alias = replyAlias(mailbox.emailAddress, token);
  const messageIdHeader = `<${id}@${deps.mailDomain}>`;
  // Before composing, which takes the bodies given as bytes.
  const snippet = snippetOf(bodyHead(fields.textBody ?? ""));
  const composed = await deps.composer.compose({
    from: mailbox.emailAddress,
    to: fields.to,
    cc: fields.cc,
    subject: fields.subject,
    textBody: fields.textBody,
    htmlBody: fields.htmlBody,
    messageId: messageIdHeader,
    replyTo: alias,
    inReplyTo: threading.inReplyTo,
    references: threading.references,
  });
  const { raw, sha256: rawSha256 } = composed;
  // Read before storeLarge, which may move the raw bytes to the thread that writes them.
  const rawHeaders = readHead(raw);
  const rawSize = raw.byteLength;
  const stored = await storeLarge(deps, composed);
  // The bodies as text where the row takes them as parameters (not stored apart): a body given
  // as bytes went to the composer, and its bytes came back (storeLarge alone moves them on).
  const textBody = stored.text ? null : asText(fields.textBody, composed.bodies.text);
  const htmlBody = stored.html ? null : asText(fields.htmlBody, composed.bodies.html);
  const now = new Date();
  const result = await deps.db
    .transaction(async (tx) => {
      let threadId = threading.threadId;
      if (threadId) {
        await tx.update(threads).set({ lastMessageAt: now }).where(eq(threads.id, threadId));
      } else {
        threadId = newId();
        await tx.insert(threads).values({
          id: threadId,
          mailboxId: mailbox.id,
          subject: fields.subject,
          subjectKey: normalizeSubject(fields.subject),
          participantsKey: participantsKey([...fields.to, ...fields.cc], mailbox.emailAddress),
          lastMessageAt: now,
          createdAt: now,
        });
      }
      const tokenId = newId();
      if (!deps.native) await putBlobs(tx, [{ sha256: rawSha256, bytes: raw }], { move: true });
      const [message] = await tx
        .insert(messages)
        .values({
          id,
          mailboxId: mailbox.id,
          threadId,
          transport: "smtp",
          direction: "outbound",
          status: "queued",
          fromAddress: mailbox.emailAddress,
          toAddress: fields.to.join(", "),
          cc: fields.cc,
          bcc: fields.bcc,
          replyTo: [alias],
          subject: fields.subject,
          snippet,
          messageIdHeader,
          inReplyTo: threading.inReplyTo,
          references: threading.references,
          textBody: stored.text ?? textBody,
          htmlBody: stored.html ?? htmlBody,
          headers: rawHeaders,
          riskLevel: "low",
          rawSha256,
          rawSize,
          envelope: { mailFrom: mailbox.emailAddress, rcptTo: recipients, remoteAddress: null, heloName: null },
          replyTokenId: tokenId,
          createdAt: now,
        })
        .returning(ROW_WITHOUT_BODIES);
      await tx.insert(replyTokens).values({
        id: tokenId,
        tokenHash: hashReplyToken(token),
        mailboxId: mailbox.id,
        threadId,
        messageId: id,
        expiresAt: new Date(now.getTime() + deps.replyTokenTtlMs),
      });
      await tx.insert(deliveryEvents).values({ id: newId(), messageId: id, status: "queued", detail: `to ${recipients.length} recipient(s)` });
      const jobId = await enqueueJob(tx, "mail.deliver", mailbox.id, { message_id: id });
      if (threading.draftId) await tx.delete(drafts).where(eq(drafts.id, threading.draftId));
      if (stored.staged.length > 0) await dropStagedTexts(tx, stored.staged);
      // A large body given as bytes is not made a string here: the answer splices its JSON (Dispatched.bodiesJson).
      const given = (body: BodyText | null, text: string | null) => text ?? (typeof body === "string" ? body : null);
      return { message: { ...message!, textBody: given(fields.textBody, textBody), htmlBody: given(fields.htmlBody, htmlBody) } as MessageRow, jobId };
    })
    .catch(async (err: unknown) => {
      if (stored.staged.length > 0) await dropStagedTexts(deps.db, stored.staged).catch(() => {});
      throw err;
    });
  return { ...result, replyTo: alias, bodiesJson: composed.bodiesJson };
}

const asText = (given: BodyText | null, back: Uint8Array | null): string | null => (given === null ? null : typeof given === "string" ? given : bodyString(back!));

/** Bodies from this size (both together, UTF-8) go apart from the other parameters (storeLarge). */
const STAGE_BODIES_FROM = 256 * 1024;

/**
 * On PostgreSQL, what the send's transaction would otherwise send through postgres.js as
 * parameters goes ahead of it as binary on the native client (src/mail/blobs.ts): the raw
 * message (content-addressed, so a blob whose transaction then fails is only an unreferenced
 * copy) and, for a large send, the bodies, which the transaction copies from `body_stage`.
 * The bytes are moved to the thread that writes them (src/mail/native-blobs.ts): the
 * composed raw message and bodies are not used again here. On PGlite everything stays in the
 * transaction, and a large send's bodies go to the row as the bytes the composer handed back,
 * moved to PGlite's thread and decoded there (db/large-values.ts).
 */
async function storeLarge(deps: WriteContext["deps"], composed: Composed): Promise<{ text: SQL | null; html: SQL | null; staged: string[] }> {
  const none = { text: null, html: null, staged: [] };
  const { text, html } = composed.bodies;
  const large = (text?.byteLength ?? 0) + (html?.byteLength ?? 0) >= STAGE_BODIES_FROM;
  if (!deps.native) {
    if (!large) return none;
    return { text: text && textFromUtf8(deps.db, text, true), html: html && textFromUtf8(deps.db, html, true), staged: [] };
  }
  await deps.native.write([{ sha256: composed.sha256, bytes: composed.raw }], { move: true });
  if (!large) return none;
  const staged = await deps.native.stageTexts([text, html].filter((b) => b !== null), { move: true });
  const textId = text ? staged[0]! : null;
  const htmlId = html ? staged[text ? 1 : 0]! : null;
  return { text: textId === null ? null : stagedText(textId), html: htmlId === null ? null : stagedText(htmlId), staged };
}

/**
 * The mailbox's send window: `max_outbound_per_day` sends per sliding hour (the spec's
 * limits table). Rebuilt from the stored outbound messages when the actor activates or the
 * limit changes, so a restart or passivation does not hand out a fresh hour.
 */
async function sendWindow(state: MailboxState, db: WriteContext["deps"]["db"]): Promise<SlidingWindow> {
  const limit = state.mailbox.maxOutboundPerDay;
  if (state.sendWindow && state.sendWindow.limit === limit) return state.sendWindow;
  const since = new Date(Date.now() - HOUR_MS);
  const recent = await db
    .select({ at: messages.createdAt })
    .from(messages)
    .where(and(eq(messages.mailboxId, state.mailbox.id), eq(messages.direction, "outbound"), gte(messages.createdAt, since)))
    .orderBy(desc(messages.createdAt))
    .limit(Math.max(1, limit));
  const window = new SlidingWindow(Math.max(1, limit), HOUR_MS);
  const nowPerf = performance.now();
  const nowWall = Date.now();
  for (const { at } of recent.reverse()) window.record(nowPerf - (nowWall - at.getTime()));
  state.sendWindow = window;
  return window;
}

/** A stored outbound message without its bodies (megabytes a delivery outcome never needs). */
export type MessageHead = Omit<MessageRow, "textBody" | "htmlBody">;

/**
 * The outcome of a delivery attempt, recorded by the actor that owns the message. Neither the
 * row nor the event touches the bodies in JavaScript: the row is locked and updated without
 * them, and message.sent's payload (bodies included, spec section 6) is built by the database.
 */
export async function recordDelivery({ state, deps }: WriteContext, cmd: DeliveryOutcome): Promise<MessageHead> {
  return deps.db.transaction(async (tx) => {
    const [current] = await tx
      .select(ROW_WITHOUT_BODIES)
      .from(messages)
      .where(and(eq(messages.id, cmd.messageId), eq(messages.mailboxId, state.mailbox.id)))
      .for("update")
      .limit(1);
    if (!current) throw notFound("message", cmd.messageId);
    await tx.insert(deliveryEvents).values({ id: newId(), messageId: current.id, status: cmd.outcome, detail: cmd.detail.slice(0, 2000) });
    if (cmd.outcome === "retrying" || current.status === "sent") return current;
    // A user's archive or review made while the message was queued is kept.
    const kept = current.status === "archived" || current.status === "reviewed";
    const status = kept ? current.status : cmd.outcome === "sent" ? "sent" : "failed";
    const [row] = await tx
      .update(messages)
      .set({ status, providerMessageId: cmd.providerMessageId ?? current.providerMessageId })
      .where(eq(messages.id, current.id))
      .returning(ROW_WITHOUT_BODIES);
    if (cmd.outcome === "sent") {
      await tx.execute(
        sql`insert into outbox (id, kind, topic, mailbox_id, payload) select ${newId()}::uuid, 'event', 'message.sent', m.mailbox_id, ${sql.raw(MESSAGE_EVENT_PAYLOAD_SQL)} from messages m where m.id = ${current.id}::uuid`,
      );
    }
    return row!;
  });
}
