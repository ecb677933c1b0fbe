import type { ApiKeyRow, DraftRow, LabelRow, MailboxRow, MessageRow, ThreadRow } from "../../db/schema/index.ts";
import type { Placement } from "../runtime/index.ts";
import { MAILBOX_ACTOR, type CommandOf, type DraftFields, type IssuedKey, type MailboxCommand, type PolicyPatch } from "./types.ts";
import type { RateDecision } from "./rate-window.ts";
import type { Dispatched } from "./outbound.ts";

/**
 * The typed face of the mailbox actor for the rest of the code. Callers never build
 * commands by hand; errors a command throws come out as they went in.
 */
export class Mailboxes {
  constructor(private readonly placement: Placement) {}

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
  admit(id: string, keyId: string) {
    return this.ask<RateDecision>(id, { type: "admit", keyId });
  }

  private ask<R>(id: string, cmd: MailboxCommand): Promise<R> {
    // Mailbox ids are UUIDs, which the database compares case-insensitively: one spelling, one actor.
    // A "mailbox not found" from activation arrives as ActorActivationError with the 404 as
    // its cause; the HTTP error renderer unwraps it (no extra promise per ask on the hot path).
    return this.placement.ask<R>(MAILBOX_ACTOR, id.toLowerCase(), cmd);
  }
}
