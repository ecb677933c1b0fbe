import { installCommands, type AskOptions, type CommandTarget, type Placement } from "../runtime/index.ts";
import { mailboxCommands, type MailboxClient } from "./commands.ts";
import { MAILBOX_ACTOR } from "./types.ts";
import type { PollReply } from "./admission.ts";
import type { MailboxRow } from "../../db/schema/index.ts";

export type { MailboxArgs, MailboxCommandName, MailboxMessage, MailboxReply } from "./commands.ts";
export type { Held, HoldingMode } from "./runtime.ts";
export { MAILBOX_ACTOR } from "./types.ts";
export type { IssuedKey } from "./types.ts";
export type { PollReply } from "./admission.ts";

/**
 * The typed face of the mailbox actor for the rest of the code: one method per command of
 * ./commands.ts, `name(mailboxId, ...args)`, derived from the map (the methods are installed
 * below). Callers never build messages by hand; errors a command throws come out as they went in.
 */
// The interface half of the class: the derived methods, typed from the command map.
export interface Mailboxes extends MailboxClient {}

export class Mailboxes implements CommandTarget {
  private followUpClient: Mailboxes | undefined;

  constructor(
    readonly placement: Placement,
    readonly askOptions?: AskOptions,
  ) {}

  /**
   * The same client for commands a caller sends after one of its writes has committed: they
   * wait their turn however long it takes instead of being dropped unrun at the ask deadline,
   * since a 503 then would invite a retry that repeats the write already done.
   */
  get followUp(): Mailboxes {
    return (this.followUpClient ??= new Mailboxes(this.placement, { timeoutMs: 0 }));
  }

  /**
   * The hot path of a read request (src/http/fast-read.ts): `poll` run at once when this
   * node holds the mailbox's actor in memory and it is idle, with no promise; undefined when
   * it cannot be (nothing was counted; ask). `mailboxId` must be lower-case.
   */
  pollNow(mailboxId: string, keyId: string): PollReply | undefined {
    return this.placement.runNow?.(MAILBOX_ACTOR, mailboxId, { name: "poll", args: [keyId] })?.value as PollReply | undefined;
  }

  /**
   * The mailbox's row when this node can give it at once, with no promise (a row another
   * node's mailbox sent here and is still kept: src/cluster/remote-reads.ts); undefined: ask
   * `get`. `mailboxId` must be lower-case.
   */
  getNow(mailboxId: string): MailboxRow | undefined {
    return this.placement.readNow?.(MAILBOX_ACTOR, mailboxId, GET)?.value as MailboxRow | undefined;
  }
}

const GET = Object.freeze({ name: "get", args: Object.freeze([]) });

// Mailbox ids are UUIDs, which the database compares case-insensitively: one spelling, one actor.
// A "mailbox not found" from activation arrives as ActorActivationError with the 404 as its
// cause; the HTTP error renderer unwraps it (no extra promise per ask on the hot path).
installCommands(Mailboxes.prototype, MAILBOX_ACTOR, mailboxCommands, (id) => id.toLowerCase());
