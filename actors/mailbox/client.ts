import type { ApiKeyRow, MailboxRow } from "../../db/schema/index.ts";
import { AppError } from "../../src/errors.ts";
import { ActorActivationError, type Placement } from "../runtime/index.ts";
import { MAILBOX_ACTOR, type IssuedKey, type MailboxCommand } from "./actor.ts";
import type { RateDecision } from "./rate-window.ts";

/**
 * The typed face of the mailbox actor for the rest of the code. Callers never build
 * commands by hand, and typed domain errors come out as they went in.
 */
export class Mailboxes {
  constructor(private readonly placement: Placement) {}

  get(id: string) {
    return this.ask<MailboxRow>(id, { type: "get" });
  }
  setStatus(id: string, status: "active" | "disabled") {
    return this.ask<MailboxRow>(id, { type: "setStatus", status });
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
  admit(id: string, keyId: string) {
    return this.ask<RateDecision>(id, { type: "admit", keyId });
  }

  private async ask<R>(id: string, cmd: MailboxCommand): Promise<R> {
    try {
      // Mailbox ids are UUIDs, which the database compares case-insensitively: one spelling, one actor.
      return await this.placement.ask<R>(MAILBOX_ACTOR, id.toLowerCase(), cmd);
    } catch (err) {
      // "mailbox not found" surfaces as a failed activation; give callers the 404 itself.
      if (err instanceof ActorActivationError && err.cause instanceof AppError) throw err.cause;
      throw err;
    }
  }
}
