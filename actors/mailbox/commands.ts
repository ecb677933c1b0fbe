/**
 * Every command of the mailbox actor, declared once: its name, its handler (whose parameters
 * after the context are the command's arguments, whose result is its reply), whether it is a
 * read or a write, and whether queued runs are batched. The message type, the dispatch
 * (./actor.ts), the typed client (./client.ts) and the wire format (./wire.ts) all derive
 * from this map; adding a command here adds it everywhere.
 *
 * Arguments and replies are plain data: a placement may carry them to another node.
 */
import type { OutgoingFields, ReplyFields } from "../../src/domain/outbound.ts";
import type { ProtocolResponseRow } from "../../db/schema/index.ts";
import type { ResponseInput } from "../../src/protocol/types.ts";
import { commandsFor, type ArgsOf, type CommandClient, type CommandMessage, type CommandName, type ReplyOf } from "../runtime/index.ts";
import { createAction, deleteAction, updateAction } from "./actions.ts";
import { admit, admitMany, admitRuntime, poll } from "./admission.ts";
import { setAutopilot } from "./autopilot.ts";
import { callbackSecret } from "./callback-secret.ts";
import { createDraft, deleteDraft, updateDraft } from "./drafts.ts";
import { applyProcessed, receive } from "./inbound.ts";
import { recordJobFailure } from "./job-failures.ts";
import { issueKey, revokeKey } from "./keys.ts";
import { createLabel, deleteLabel } from "./labels.ts";
import { forgetMailbox, getMailbox, keptMailbox } from "./mailbox-row.ts";
import { labelMessage, labelThread, setMessageState, setThreadStatus } from "./organize.ts";
import { recordDelivery, reply, send, sendDraft } from "./outbound.ts";
import { autoAct, receiveProtocol, respond } from "./protocol.ts";
import { holdReply, holdSend, logRuntime, removeBinding, setBinding } from "./runtime.ts";
import { setPolicy, setStatus } from "./settings.ts";
import type { WriteContext } from "./types.ts";

const c = commandsFor<WriteContext>();

export const mailboxCommands = {
  // The mailbox row, from memory while fresh: answered without waiting behind writes.
  get: c.read(getMailbox, keptMailbox),
  /** Another node changed the mailbox: drop what is kept. Fire and forget. */
  reload: c.tell(forgetMailbox),
  // Every request's call window; answered from memory without a promise (see admit).
  admit: c.write(admit),
  /** `count` calls of one key in one message, counted as that many `admit`s (see admitMany). */
  admitMany: c.write(admitMany),
  /** A runtime key's call: its call window, and its binding's tier and mode now. */
  admitRuntime: c.write(admitRuntime),
  /** A key's read of its mailbox: `admit`, and the row from memory, in one turn (answered without a promise). */
  poll: c.write(poll),

  setStatus: c.write(setStatus),
  setPolicy: c.write(setPolicy),
  issueKey: c.write(issueKey),
  revokeKey: c.write(revokeKey),
  /** The callback signing secret, made on first use; `rotate` replaces it. */
  callbackSecret: c.write(callbackSecret),

  createDraft: c.write(createDraft),
  updateDraft: c.write(updateDraft),
  deleteDraft: c.write(deleteDraft),
  createLabel: c.write(createLabel),
  deleteLabel: c.write(deleteLabel),
  /** Archive or review a message (idempotent). */
  setMessageState: c.write(setMessageState),
  /** Archive or reopen a thread (idempotent). */
  setThreadStatus: c.write(setThreadStatus),
  /** Apply (`apply: true`) or remove a label on a message; answers the label ids now applied. */
  labelMessage: c.write(labelMessage),
  /** Apply or remove a label on a thread; answers the label ids now applied. */
  labelThread: c.write(labelThread),

  // Arrivals, and processing results, queued behind one another are committed in one
  // transaction each: one WAL flush for many messages.
  receive: c.batched(receive),
  applyProcessed: c.batched(applyProcessed),

  // The handlers of outbound.ts and protocol.ts take one object; their commands spell the arguments out.
  send: c.write((ctx, fields: OutgoingFields) => send(ctx, { fields })),
  reply: c.write((ctx, messageId: string, fields: ReplyFields) => reply(ctx, { messageId, fields })),
  sendDraft: c.write((ctx, draftId: string) => sendDraft(ctx, { draftId })),
  recordDelivery: c.write(recordDelivery),
  /** A job about one of the mailbox's messages ended failed: the message (or protocol message) shows it. */
  recordJobFailure: c.write(recordJobFailure),

  createAction: c.write(createAction),
  updateAction: c.write(updateAction),
  deleteAction: c.write(deleteAction),
  receiveProtocol: c.write(receiveProtocol),
  respond: c.write((ctx, messageId: string, responder: ProtocolResponseRow["responder"], input: ResponseInput) => respond(ctx, { messageId, responder, input })),
  autoAct: c.write((ctx, messageId: string) => autoAct(ctx, { messageId })),
  setAutopilot: c.write(setAutopilot),

  setBinding: c.write(setBinding),
  removeBinding: c.write(removeBinding),
  logRuntime: c.write(logRuntime),
  /** An agent runtime's send held by its binding's mode (draft-first, observe). */
  holdSend: c.write(holdSend),
  /** An agent runtime's reply held by its binding's mode. */
  holdReply: c.write(holdReply),
};

export type MailboxCommands = typeof mailboxCommands;
export type MailboxCommandName = CommandName<MailboxCommands>;
export type MailboxArgs<N extends MailboxCommandName> = ArgsOf<MailboxCommands, N>;
export type MailboxReply<N extends MailboxCommandName> = ReplyOf<MailboxCommands, N>;
/** A command as a message: `{ name, args }`. */
export type MailboxMessage<N extends MailboxCommandName = MailboxCommandName> = CommandMessage<MailboxCommands, N>;
export type MailboxClient = CommandClient<MailboxCommands>;
