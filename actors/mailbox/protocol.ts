import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import type { SecretBox } from "../../src/crypto/secret-box.ts";
import {
  actions,
  mailboxes,
  messages,
  protocolMessages,
  protocolResponses,
  threads,
  type ActionRow,
  type MessageRow,
  type ProtocolMessageRow,
  type ProtocolResponseRow,
} from "../../db/schema/index.ts";
import { isUuid, newId } from "../../src/domain/ids.ts";
import { checkOutgoing } from "../../src/domain/outbound.ts";
import { AppError, notFound, validationError } from "../../src/errors.ts";
import { eventRow, insertOutbox, jobRow } from "../../src/jobs/outbox.ts";
import { putBlob } from "../../src/mail/blobs.ts";
import { messageEventPayload } from "../../src/mail/events.ts";
import { snippetOf } from "../../src/mail/extract.ts";
import { normalizeSubject } from "../../src/mail/threading.ts";
import { CALLBACK_SIGNATURE_HEADER } from "../../src/protocol/discovery.ts";
import { AUTO_SEND_ACTION, type ResponseInput } from "../../src/protocol/types.ts";
import { insertDirectDeliveries } from "../../src/webhooks/direct.ts";
import { newSigningSecret } from "../../src/webhooks/signing.ts";
import { ownProtocolMessage, responseEventPayload, type ProtocolMessage } from "../../src/protocol/records.ts";
import { dispatch } from "./outbound.ts";
import type { ProtocolArrival, WriteContext } from "./types.ts";

/**
 * A protocol message arrives. The checks, in order (README "Agent protocol"): the mailbox
 * takes messages; an action, when named, exists and is enabled (unknown_action); its
 * parameters match the action's schema (schema_validation_failed); a message without an
 * action is free-form and needs a body. Then the message, its protocol record, its thread,
 * `message.received` and the processing job are one commit.
 */
export async function receiveProtocol({ state, deps }: WriteContext, cmd: ProtocolArrival): Promise<ProtocolMessage> {
  const mailbox = state.mailbox;
  const input = cmd.input;
  if (mailbox.status === "disabled") throw new AppError("mailbox_disabled", `mailbox ${mailbox.id} is disabled and does not accept messages`);
  if (input.action === undefined) {
    if (input.parameters !== undefined) throw validationError("parameters need an action", [{ path: "parameters", message: "is only allowed together with action" }]);
    if (!input.body || input.body.trim() === "") throw validationError("a message without an action needs a body", [{ path: "body", message: "must not be empty when no action is given" }]);
  } else {
    const action = await enabledAction(deps, mailbox.id, input.action);
    await matchSchema(deps, action, "parameters", input.parameters ?? {});
  }

  const id = newId();
  const now = new Date();
  const raw = new TextEncoder().encode(JSON.stringify(cmd.raw));
  return deps.db.transaction(async (tx) => {
    const threadId = (await conversationThread(tx, mailbox.id, cmd.sender.mailboxId, input.threadId)) ?? (await newThread(tx, mailbox.id, input.subject, cmd.sender.emailAddress, now));
    if (input.threadId) await tx.update(threads).set({ lastMessageAt: now, status: "open" }).where(eq(threads.id, threadId));
    const rawSha256 = await putBlob(tx, raw);
    const [message] = await tx
      .insert(messages)
      .values({
        id,
        mailboxId: mailbox.id,
        threadId,
        transport: "agent-json",
        direction: "inbound",
        status: "received",
        fromAddress: cmd.sender.emailAddress,
        toAddress: mailbox.emailAddress,
        subject: input.subject,
        snippet: snippetOf(input.body ?? ""),
        textBody: input.body ?? null,
        rawSha256,
        rawSize: raw.byteLength,
        createdAt: now,
      })
      .returning();
    const [protocol] = await tx
      .insert(protocolMessages)
      .values({
        messageId: id,
        mailboxId: mailbox.id,
        senderMailboxId: cmd.sender.mailboxId,
        action: input.action ?? null,
        parameters: input.action === undefined ? null : (input.parameters ?? {}),
        fromAgent: input.from.agent ?? null,
        onBehalfOf: input.from.onBehalfOf ?? null,
        callbackUrl: input.from.callbackUrl ?? null,
        priority: input.priority ?? "normal",
        metadata: input.metadata ?? {},
        conversationId: input.threadId ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await insertOutbox(tx, [
      eventRow("message.received", mailbox.id, messageEventPayload(message!, [], protocol!)),
      jobRow("mail.process", mailbox.id, { message_id: id, token_thread_id: threadId }),
    ]);
    return { message: message!, protocol: protocol! };
  });
}

/**
 * An answer to a protocol message this mailbox received. With a callback URL the response
 * is POSTed to it (signed with the sender mailbox's callback secret) through the delivery
 * machinery; otherwise it waits to be polled. One commit: the response, its delivery, the
 * message's new status and `protocol.response.created`.
 */
export async function respond({ state, deps }: WriteContext, cmd: { messageId: string; responder: ProtocolResponseRow["responder"]; input: ResponseInput }): Promise<ProtocolResponseRow> {
  const found = await ownProtocolMessage(deps.db, state.mailbox.id, cmd.messageId);
  if (!found) throw notFound("protocol message", cmd.messageId);
  const { message, protocol } = found;
  const input = cmd.input;
  if ((input.body === undefined || input.body.trim() === "") && input.structuredData === undefined) {
    throw validationError("a response needs a body or structured_data", [{ path: "body", message: "give body, structured_data or both" }]);
  }
  if (protocol.action) {
    const [action] = await deps.db.select().from(actions).where(and(eq(actions.mailboxId, state.mailbox.id), eq(actions.name, protocol.action))).limit(1);
    // An action deleted since the message arrived has no schema left to hold the answer to.
    if (action) {
      await matchSchema(deps, action, "response", input.structuredData ?? {});
    }
  }

  return commitResponse({ state, deps }, found, input, cmd.responder);
}

/**
 * The `protocol.auto` job: a `send_message` invocation answered without the agent, when the
 * policy allows auto-replies. The email's id is derived from the protocol message's, so a
 * job that runs twice finds the email it sent and does not send it again.
 */
export async function autoAct(ctx: WriteContext, cmd: { messageId: string }): Promise<ProtocolResponseRow | null> {
  const { state, deps } = ctx;
  const found = await ownProtocolMessage(deps.db, state.mailbox.id, cmd.messageId);
  if (!found || found.protocol.action !== AUTO_SEND_ACTION) return null;
  const { message, protocol } = found;
  const [answered] = await deps.db.select().from(protocolResponses).where(and(eq(protocolResponses.protocolMessageId, message.id), eq(protocolResponses.responder, "auto"))).limit(1);
  if (answered) return answered;
  const emailId = derivedId(`auto-send:${message.id}`);
  // An email an earlier run sent is answered for, whatever the policy says now.
  const [already] = await deps.db.select({ id: messages.id, status: messages.status }).from(messages).where(eq(messages.id, emailId)).limit(1);
  let sent = already;
  if (!sent && !state.mailbox.allowAutoReply) {
    await noteError(deps.db, message.id, { code: "auto_reply_disabled", message: "the mailbox policy does not allow auto-replies (allow_auto_reply is false); the message waits for the agent" }, false);
    return null;
  }
  if (!sent) {
    const p = (protocol.parameters ?? {}) as { to?: string[]; subject?: string; text?: string };
    try {
      const fields = checkOutgoing({ to: p.to ?? [], cc: [], bcc: [], subject: p.subject ?? "", textBody: p.text ?? null, htmlBody: null });
      const dispatched = await dispatch(ctx, fields, { threadId: null, inReplyTo: null, references: [], draftId: null, messageId: emailId });
      deps.handOver.jobs();
      sent = { id: dispatched.message.id, status: dispatched.message.status };
    } catch (err) {
      if (!(err instanceof AppError) || !err.isPublic) throw err; // a fault: the job retries
      await noteError(deps.db, message.id, { code: err.code, message: err.message }, true);
      return null;
    }
  }
  const input = { body: `Email ${sent.id} to ${(protocol.parameters as { to?: string[] } | null)?.to?.join(", ") ?? ""} is ${sent.status}.`, structuredData: { message_id: sent.id, status: sent.status } };
  return commitResponse(ctx, found, input, "auto");
}

/** Commits a response, then hands its callback (if any) to the transport. */
async function commitResponse({ state, deps }: WriteContext, found: ProtocolMessage, input: ResponseInput, responder: ProtocolResponseRow["responder"]): Promise<ProtocolResponseRow> {
  const response = await deps.db.transaction((tx) => insertResponse(tx, deps.secrets, state.mailbox, found.message, found.protocol, input, responder));
  if (response.deliveryId) deps.handOver.deliveries([response.deliveryId]);
  return response;
}

async function insertResponse(
  tx: Tx,
  secrets: SecretBox,
  mailbox: { id: string; emailAddress: string; protocolHost: string },
  message: MessageRow,
  protocol: ProtocolMessageRow,
  input: ResponseInput,
  responder: ProtocolResponseRow["responder"],
): Promise<ProtocolResponseRow> {
  const id = newId();
  const now = new Date();
  // A sender mailbox deleted since has nobody to sign for: the answer waits to be polled.
  const signed = protocol.callbackUrl && protocol.senderMailboxId ? await ensureCallbackSecret(tx, protocol.senderMailboxId, secrets) : false;
  const mode: ProtocolResponseRow["deliveryMode"] = signed ? "callback" : "poll";
  let deliveryId: string | undefined;
  const values = {
    id,
    protocolMessageId: message.id,
    mailboxId: mailbox.id,
    body: input.body ?? "",
    structuredData: input.structuredData ?? {},
    deliveryMode: mode,
    status: mode === "poll" ? ("delivered" as const) : ("pending" as const),
    responder,
    createdAt: now,
    deliveredAt: mode === "poll" ? now : null,
  };
  if (signed) {
    [deliveryId] = await insertDirectDeliveries(tx, [{
      target: "callback",
      mailboxId: mailbox.id,
      url: protocol.callbackUrl!,
      signatureHeader: CALLBACK_SIGNATURE_HEADER,
      event: "protocol.response.created",
      body: JSON.stringify(callbackBody(values, message, protocol, mailbox)),
      subjectId: id,
    }]);
  }
  const [row] = await tx.insert(protocolResponses).values({ ...values, deliveryId: deliveryId ?? null }).returning();
  await tx.update(protocolMessages).set({ status: "responded", updatedAt: now }).where(eq(protocolMessages.messageId, message.id));
  await insertOutbox(tx, [eventRow("protocol.response.created", mailbox.id, responseEventPayload(row!))]);
  return row!;
}

/** What the sender's callback URL receives: the response, and which message it answers. */
function callbackBody(r: Omit<ProtocolResponseRow, "deliveryId">, message: MessageRow, protocol: ProtocolMessageRow, mailbox: { emailAddress: string; protocolHost: string }) {
  return {
    event: "protocol.response.created",
    // The body is what a successful delivery delivers: from the receiver's side, delivered.
    response: { ...responseEventPayload(r), status: "delivered", responder: r.responder, created_at: r.createdAt.toISOString() },
    message: { id: message.id, action: protocol.action, subject: message.subject, thread_id: protocol.conversationId, metadata: protocol.metadata },
    from: { address: mailbox.emailAddress, protocol_host: mailbox.protocolHost },
  };
}

/** Whether the sender mailbox (still) exists, with a callback secret made now if it had none; the delivery signs with it at each attempt. */
async function ensureCallbackSecret(tx: Tx, senderMailboxId: string, secrets: SecretBox): Promise<boolean> {
  // Set once, by whichever answer needs it first; only this column of the sender's row is written.
  const [row] = await tx
    .update(mailboxes)
    .set({ callbackSecret: sql`coalesce(${mailboxes.callbackSecret}, ${secrets.seal(newSigningSecret())})` })
    .where(eq(mailboxes.id, senderMailboxId))
    .returning({ id: mailboxes.id });
  return row !== undefined;
}

/**
 * Validates a value against one of the action's schemas (src/protocol/validation.ts): a
 * mismatch, a value over the size bound or a validation over its time budget is
 * schema_validation_failed, with `reason` telling them apart.
 */
async function matchSchema(deps: WriteContext["deps"], action: ActionRow, which: "parameters" | "response", value: unknown): Promise<void> {
  const schema = (which === "parameters" ? action.parameterSchema : action.responseSchema) as object;
  const what = which === "parameters" ? "parameters" : "structured_data";
  const against = which === "parameters" ? `the schema of action "${action.name}"` : `the response schema of action "${action.name}"`;
  const checked = await deps.validators.validate(action.id, action.updatedAt.getTime(), which, schema, value);
  if (!checked.ok) {
    if (checked.reason === "unavailable") throw new AppError("service_unavailable", `${what} ${checked.message}`, {}, { "Retry-After": "5" });
    throw new AppError("schema_validation_failed", `${what} ${checked.message}`, { action: action.name, reason: checked.reason, errors: [] });
  }
  const issues = checked.issues;
  if (issues.length > 0) {
    throw new AppError("schema_validation_failed", `${what} do${which === "parameters" ? "" : "es"} not match ${against}: ${issues[0]!.path} ${issues[0]!.message}`, { action: action.name, reason: "mismatch", errors: issues });
  }
}

async function enabledAction(deps: WriteContext["deps"], mailboxId: string, name: string): Promise<ActionRow> {
  const [action] = await deps.db.select().from(actions).where(and(eq(actions.mailboxId, mailboxId), eq(actions.name, name))).limit(1);
  if (action?.enabled) return action;
  // Only a refusal needs the list of what is there.
  const enabled = await deps.db.select({ name: actions.name }).from(actions).where(and(eq(actions.mailboxId, mailboxId), eq(actions.enabled, true))).orderBy(asc(actions.name));
  throw new AppError("unknown_action", `this mailbox has no enabled action "${name}"`, { action: name, available: enabled.map((a) => a.name) });
}

/**
 * The thread a protocol message names with `thread_id`, or null for a new one. A sender's
 * earlier message with the same conversation id gives its thread. Otherwise the id may be one
 * of our own thread ids, and the sender may name it only if it takes part in that thread:
 * the thread holds a protocol message from the sender's mailbox (we answered it with this id),
 * or this mailbox sent the sender a protocol message naming it. Only protocol messages count,
 * whose sender an API key proves; addresses in mail headers prove nothing. A thread of ours
 * the sender takes no part in is refused as not found, as if it did not exist, so a sender
 * can neither append to a private email thread nor learn that it exists.
 */
async function conversationThread(tx: Tx, mailboxId: string, senderMailboxId: string, conversationId: string | undefined): Promise<string | null> {
  if (!conversationId) return null;
  const [earlier] = await tx
    .select({ threadId: messages.threadId })
    .from(protocolMessages)
    .innerJoin(messages, eq(messages.id, protocolMessages.messageId))
    .where(and(eq(protocolMessages.mailboxId, mailboxId), eq(protocolMessages.senderMailboxId, senderMailboxId), eq(protocolMessages.conversationId, conversationId)))
    .orderBy(desc(protocolMessages.createdAt))
    .limit(1);
  if (earlier?.threadId) return earlier.threadId;
  if (!isUuid(conversationId)) return null;
  const [own] = await tx.select({ id: threads.id }).from(threads).where(and(eq(threads.id, conversationId), eq(threads.mailboxId, mailboxId))).limit(1);
  // Not a thread of ours: the sender's own conversation id, which opens a thread.
  if (!own) return null;
  const [fromSender] = await tx
    .select({ id: protocolMessages.messageId })
    .from(protocolMessages)
    .innerJoin(messages, eq(messages.id, protocolMessages.messageId))
    .where(and(eq(protocolMessages.mailboxId, mailboxId), eq(protocolMessages.senderMailboxId, senderMailboxId), eq(messages.threadId, own.id)))
    .limit(1);
  if (fromSender) return own.id;
  const [namedToSender] = await tx
    .select({ id: protocolMessages.messageId })
    .from(protocolMessages)
    .where(and(eq(protocolMessages.mailboxId, senderMailboxId), eq(protocolMessages.senderMailboxId, mailboxId), eq(protocolMessages.conversationId, own.id)))
    .limit(1);
  if (namedToSender) return own.id;
  throw notFound("thread", conversationId);
}

async function newThread(tx: Tx, mailboxId: string, subject: string, sender: string, at: Date): Promise<string> {
  const id = newId();
  await tx.insert(threads).values({ id, mailboxId, subject, subjectKey: normalizeSubject(subject), participantsKey: sender.toLowerCase(), lastMessageAt: at, createdAt: at });
  return id;
}

async function noteError(db: WriteContext["deps"]["db"], messageId: string, error: { code: string; message: string }, failed: boolean): Promise<void> {
  await db
    .update(protocolMessages)
    .set({ error, updatedAt: new Date(), ...(failed ? { status: "failed" as const } : {}) })
    .where(eq(protocolMessages.messageId, messageId));
}

/** A UUID (version 8, RFC 9562) derived from a name: the same name, the same id. */
function derivedId(name: string): string {
  const h = new Bun.CryptoHasher("sha256").update(name).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = Buffer.from(h.subarray(0, 16)).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
