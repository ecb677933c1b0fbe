import type { ApiKeyRow, DraftRow, LabelRow, MailboxRow } from "../../db/schema/index.ts";
import type { Placement } from "../runtime/index.ts";
import { MAILBOX_ACTOR, type DraftFields, type IssuedKey, type MailboxCommand, type PolicyPatch } from "./types.ts";
import type { RateDecision } from "./rate-window.ts";

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
