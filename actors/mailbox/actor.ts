import { commandActor, type ActorDefinition, type CommandMessage } from "../runtime/index.ts";
import { windowsIdle } from "./admission.ts";
import { mailboxCommands, type MailboxCommands } from "./commands.ts";
import { activateMailbox } from "./mailbox-row.ts";
import { MAILBOX_ACTOR, type MailboxActorDeps, type WriteContext } from "./types.ts";

export { MAILBOX_ACTOR };

/**
 * The single writer of a mailbox: its settings and policy, its API keys, drafts and labels,
 * its messages' state, and its rate windows. Its commands are ./commands.ts; reads of the
 * mailbox itself are answered from the row it keeps (./mailbox-row.ts).
 */
export function mailboxActor(deps: MailboxActorDeps): ActorDefinition<WriteContext, CommandMessage<MailboxCommands>, unknown> {
  return commandActor({
    kind: MAILBOX_ACTOR,
    commands: mailboxCommands,
    activate: async (id) => ({ state: await activateMailbox(deps.db, id), deps }),
    // Passivating would forget the call windows and hand a key a fresh quota.
    canPassivate: windowsIdle,
    // Arrivals and processing results commute: a result is sent only once its arrival committed,
    // and an arrival reads no row a result decides (threads are decided at arrival, processing keeps them). Gathered
    // past one another, a burst of mail makes a few large transactions instead of many of one.
    batchesCommute: true,
  });
}
