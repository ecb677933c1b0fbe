import type { ActionRow, AgentRuntimeBindingRow, ApiKeyRow, AutopilotPolicyRow, DraftRow, LabelRow, MailboxRow, MessageRow, ProtocolResponseRow, ThreadRow } from "../../db/schema/index.ts";
import type { ActionFields } from "../../src/domain/actions.ts";
import type { ProtocolMessage } from "./protocol.ts";
import type { BindingChange } from "./runtime.ts";
import type { AskOptions, Placement } from "../runtime/index.ts";
import { MAILBOX_ACTOR, type BindingFields, type CommandOf, type DraftFields, type IssuedKey, type MailboxCommand, type PolicyPatch, type RuntimeAccess } from "./types.ts";
import type { RateDecision } from "./rate-window.ts";
import type { Dispatched } from "./outbound.ts";

/**
 * The typed face of the mailbox actor for the rest of the code. Callers never build
 * commands by hand; errors a command throws come out as they went in.
 */
export class Mailboxes {
  private followUpClient: Mailboxes | undefined;

  constructor(
    private readonly placement: Placement,
    private readonly askOptions?: AskOptions,
  ) {}

  /**
   * The same client for commands a caller sends after one of its writes has committed: they
   * wait their turn however long it takes instead of being dropped unrun at the ask deadline,
   * since a 503 then would invite a retry that repeats the write already done.
   */
  get followUp(): Mailboxes {
    return (this.followUpClient ??= new Mailboxes(this.placement, { timeoutMs: 0 }));
  }

  get(id: string) {
    return this.placement.read<MailboxRow>(MAILBOX_ACTOR, id.toLowerCase(), { type: "get" } satisfies MailboxCommand);
  }
  setStatus(id: string, status: "active" | "disabled") {
    return this.ask<MailboxRow>(id, { type: "setStatus", status });
  }
  setPolicy(id: string, policy: PolicyPatch) {
    return this.ask<MailboxRow>(id, { type: "setPolicy", policy });
  }
  issueKey(id: string, name: string) {
    return this.ask<IssuedKey>(id, { type: "issueKey", name, scope: "mailbox" });
  }
  revokeKey(id: string, keyId: string) {
    return this.ask<ApiKeyRow>(id, { type: "revokeKey", keyId });
  }
  /** Another node changed the mailbox: drop the kept row. Fire and forget. */
  reload(id: string) {
    this.placement.tell(MAILBOX_ACTOR, id.toLowerCase(), { type: "reload" } satisfies MailboxCommand);
  }
  createDraft(id: string, draft: DraftFields) {
    return this.ask<DraftRow>(id, { type: "createDraft", draft });
  }
  updateDraft(id: string, draftId: string, draft: DraftFields) {
    return this.ask<DraftRow>(id, { type: "updateDraft", draftId, draft });
  }
  deleteDraft(id: string, draftId: string) {
    return this.ask<DraftRow>(id, { type: "deleteDraft", draftId });
  }
  createLabel(id: string, name: string, color: string | null) {
    return this.ask<LabelRow>(id, { type: "createLabel", name, color });
  }
  deleteLabel(id: string, labelId: string) {
    return this.ask<LabelRow>(id, { type: "deleteLabel", labelId });
  }
  /** Archive or review a message (idempotent). */
  setMessageState(id: string, messageId: string, state: "archived" | "reviewed") {
    return this.ask<MessageRow>(id, { type: "setMessageState", messageId, state });
  }
  /** Archive or reopen a thread (idempotent). */
  setThreadStatus(id: string, threadId: string, status: "open" | "archived") {
    return this.ask<ThreadRow>(id, { type: "setThreadStatus", threadId, status });
  }
  /** Apply (`apply: true`) or remove a label on a message; resolves to the label ids now applied. */
  labelMessage(id: string, messageId: string, labelId: string, apply: boolean) {
    return this.ask<string[]>(id, { type: "labelMessage", messageId, labelId, apply });
  }
  /** Apply or remove a label on a thread; resolves to the label ids now applied. */
  labelThread(id: string, threadId: string, labelId: string, apply: boolean) {
    return this.ask<string[]>(id, { type: "labelThread", threadId, labelId, apply });
  }
  receive(id: string, arrival: Omit<CommandOf<"receive">, "type">) {
    return this.ask<{ id: string }>(id, { type: "receive", ...arrival });
  }
  applyProcessed(id: string, update: Omit<CommandOf<"applyProcessed">, "type">) {
    return this.ask<MessageRow>(id, { type: "applyProcessed", ...update });
  }
  send(id: string, fields: CommandOf<"send">["fields"]) {
    return this.ask<Dispatched>(id, { type: "send", fields });
  }
  reply(id: string, messageId: string, fields: CommandOf<"reply">["fields"]) {
    return this.ask<Dispatched>(id, { type: "reply", messageId, fields });
  }
  sendDraft(id: string, draftId: string) {
    return this.ask<Dispatched>(id, { type: "sendDraft", draftId });
  }
  recordDelivery(id: string, outcome: Omit<CommandOf<"recordDelivery">, "type">) {
    return this.ask<MessageRow>(id, { type: "recordDelivery", ...outcome });
  }
  /** A job about one of the mailbox's messages ended failed: the message (or protocol message) shows it. */
  recordJobFailure(id: string, failure: Omit<CommandOf<"recordJobFailure">, "type">) {
    return this.ask<MessageRow | null>(id, { type: "recordJobFailure", ...failure });
  }
  admit(id: string, keyId: string) {
    return this.ask<RateDecision>(id, { type: "admit", keyId });
  }
  /** A runtime key's call: its call window, and its binding's tier and mode now. */
  admitRuntime(id: string, keyId: string) {
    return this.ask<RateDecision & { runtime: RuntimeAccess | null }>(id, { type: "admit", keyId, runtime: true });
  }
  createAction(id: string, name: string, fields: ActionFields) {
    return this.ask<ActionRow>(id, { type: "createAction", name, fields });
  }
  updateAction(id: string, name: string, fields: ActionFields) {
    return this.ask<ActionRow>(id, { type: "updateAction", name, fields });
  }
  deleteAction(id: string, name: string) {
    return this.ask<ActionRow>(id, { type: "deleteAction", name });
  }
  receiveProtocol(id: string, arrival: Omit<CommandOf<"receiveProtocol">, "type">) {
    return this.ask<ProtocolMessage>(id, { type: "receiveProtocol", ...arrival });
  }
  respond(id: string, messageId: string, responder: CommandOf<"respond">["responder"], input: CommandOf<"respond">["input"]) {
    return this.ask<ProtocolResponseRow>(id, { type: "respond", messageId, responder, input });
  }
  autoAct(id: string, messageId: string) {
    return this.ask<ProtocolResponseRow | null>(id, { type: "autoAct", messageId });
  }
  setAutopilot(id: string, change: { mode?: "observe" | "enforce"; rules?: unknown }) {
    return this.ask<AutopilotPolicyRow>(id, { type: "setAutopilot", ...change });
  }
  setBinding(id: string, fields: BindingFields) {
    return this.ask<BindingChange>(id, { type: "setBinding", fields });
  }
  removeBinding(id: string) {
    return this.ask<AgentRuntimeBindingRow>(id, { type: "removeBinding" });
  }
  logRuntime(id: string, entry: Omit<CommandOf<"logRuntime">, "type">) {
    return this.ask<void>(id, { type: "logRuntime", ...entry });
  }

  private ask<R>(id: string, cmd: MailboxCommand): Promise<R> {
    // Mailbox ids are UUIDs, which the database compares case-insensitively: one spelling, one actor.
    // A "mailbox not found" from activation arrives as ActorActivationError with the 404 as
    // its cause; the HTTP error renderer unwraps it (no extra promise per ask on the hot path).
    return this.placement.ask<R>(MAILBOX_ACTOR, id.toLowerCase(), cmd, this.askOptions);
  }
}
