import { eq } from "drizzle-orm";
import { mailboxes } from "../../db/schema/index.ts";
import { notFound } from "../../src/errors.ts";
import type { ActorDefinition, BatchOutcome } from "../runtime/index.ts";
import { createAction, deleteAction, updateAction } from "./actions.ts";
import { setAutopilot } from "./autopilot.ts";
import { createDraft, deleteDraft, updateDraft } from "./drafts.ts";
import { autoAct, receiveProtocol, respond } from "./protocol.ts";
import { bindingOf, logRuntime, removeBinding, setBinding } from "./runtime.ts";
import { applyProcessed, receive } from "./inbound.ts";
import { recordJobFailure } from "./job-failures.ts";
import { issueKey, revokeKey } from "./keys.ts";
import { recordDelivery, reply, send, sendDraft } from "./outbound.ts";
import { createLabel, deleteLabel } from "./labels.ts";
import { labelMessage, labelThread, setMessageState, setThreadStatus } from "./organize.ts";
import { SlidingWindow, type RateDecision } from "./rate-window.ts";
import { setPolicy, setStatus } from "./settings.ts";
import { MAILBOX_ACTOR, type CommandOf, type MailboxActorDeps, type MailboxCommand, type MailboxState, type RuntimeAccess } from "./types.ts";

export { MAILBOX_ACTOR };
export type { DraftFields, IssuedKey, MailboxCommand, MailboxState, PolicyPatch } from "./types.ts";

/**
 * The single writer of a mailbox: its settings and policy, its API keys, drafts and labels,
 * and its rate windows. Reads of the mailbox itself are answered from the row it keeps,
 * reloaded when older than `freshnessMs` or when another node announces a change.
 */
export function mailboxActor(deps: MailboxActorDeps): ActorDefinition<MailboxState, MailboxCommand, unknown> {
  const load = async (id: string) => {
    const [mailbox] = await deps.db.select().from(mailboxes).where(eq(mailboxes.id, id)).limit(1);
    if (!mailbox) throw notFound("mailbox", id);
    return mailbox;
  };
  const reload = async (state: MailboxState) => {
    state.mailbox = await load(state.mailbox.id);
    state.loadedAt = performance.now();
    return state.mailbox;
  };
  const fresh = (state: MailboxState) => performance.now() - state.loadedAt <= deps.freshnessMs;

  return {
    kind: MAILBOX_ACTOR,

    async activate(id) {
      return { mailbox: await load(id), loadedAt: performance.now(), windows: new Map() };
    },

    // Reads of a fresh row do not wait behind writes in progress (see ActorDefinition.read).
    read(state, cmd) {
      return cmd.type === "get" && fresh(state) ? state.mailbox : undefined;
    },

    // Not async: `get` and `admit` run on every request and answer from memory, and a plain
    // value saves the runtime a promise and a microtask turn. Commands that write await.
    handle(state, cmd) {
      const ctx = { state, deps };
      switch (cmd.type) {
        case "get":
          return fresh(state) ? state.mailbox : reload(state);
        case "reload":
          // The binding and autopilot policy are read again when next needed.
          state.binding = undefined;
          state.autopilot = undefined;
          return reload(state);
        case "admit":
          return cmd.runtime ? admitRuntime(state, deps, cmd.keyId) : admit(state, cmd.keyId, deps.rateLimit);
        case "setStatus":
          return setStatus(ctx, cmd);
        case "setPolicy":
          return setPolicy(ctx, cmd);
        case "issueKey":
          return issueKey(ctx, cmd);
        case "revokeKey":
          return revokeKey(ctx, cmd);
        case "createDraft":
          return createDraft(ctx, cmd);
        case "updateDraft":
          return updateDraft(ctx, cmd);
        case "deleteDraft":
          return deleteDraft(ctx, cmd);
        case "createLabel":
          return createLabel(ctx, cmd);
        case "deleteLabel":
          return deleteLabel(ctx, cmd);
        case "setMessageState":
          return setMessageState(ctx, cmd);
        case "setThreadStatus":
          return setThreadStatus(ctx, cmd);
        case "labelMessage":
          return labelMessage(ctx, cmd);
        case "labelThread":
          return labelThread(ctx, cmd);
        // Normally batched (handleBatch below); here only if called directly: a batch of one.
        case "receive":
          return receive(ctx, [cmd]).then(single);
        case "applyProcessed":
          return applyProcessed(ctx, [cmd]).then(single);
        case "createAction":
          return createAction(ctx, cmd);
        case "updateAction":
          return updateAction(ctx, cmd);
        case "deleteAction":
          return deleteAction(ctx, cmd);
        case "receiveProtocol":
          return receiveProtocol(ctx, cmd);
        case "respond":
          return respond(ctx, cmd);
        case "autoAct":
          return autoAct(ctx, cmd);
        case "setAutopilot":
          return setAutopilot(ctx, cmd);
        case "setBinding":
          return setBinding(ctx, cmd);
        case "removeBinding":
          return removeBinding(ctx, cmd);
        case "logRuntime":
          return logRuntime(ctx, cmd);
        case "send":
          return send(ctx, cmd);
        case "reply":
          return reply(ctx, cmd);
        case "sendDraft":
          return sendDraft(ctx, cmd);
        case "recordDelivery":
          return recordDelivery(ctx, cmd);
        case "recordJobFailure":
          return recordJobFailure(ctx, cmd);
        default:
          return assertNever(cmd);
      }
    },

    // Arrivals, and processing results, queued behind one another are committed in one
    // transaction each: one WAL flush for many messages.
    batchKey: (cmd) => (cmd.type === "receive" || cmd.type === "applyProcessed" ? cmd.type : undefined),
    handleBatch: (state, cmds) =>
      cmds[0]!.type === "receive"
        ? receive({ state, deps }, cmds as CommandOf<"receive">[])
        : applyProcessed({ state, deps }, cmds as CommandOf<"applyProcessed">[]),

    // Passivating would forget the call windows and hand a key a fresh quota.
    canPassivate(state) {
      const now = performance.now();
      for (const [keyId, window] of state.windows) {
        if (window.isIdle(now)) state.windows.delete(keyId);
      }
      return state.windows.size === 0;
    },
  };
}

function admit(state: MailboxState, keyId: string, limits: { limit: number; windowMs: number }): RateDecision {
  let window = state.windows.get(keyId);
  if (!window) {
    window = new SlidingWindow(limits.limit, limits.windowMs);
    state.windows.set(keyId, window);
  }
  return window.take(performance.now());
}

/** A runtime key's call: the same call window, plus what its binding lets it do now. */
async function admitRuntime(state: MailboxState, deps: MailboxActorDeps, keyId: string): Promise<RateDecision & { runtime: RuntimeAccess | null }> {
  const decision = admit(state, keyId, deps.rateLimit);
  const binding = await bindingOf(state, deps);
  const runtime = binding && binding.enabled && binding.keyId === keyId ? { tier: binding.permissionTier, mode: binding.policyMode } : null;
  return { ...decision, runtime };
}

function single<T>([outcome]: BatchOutcome<T>[]): T {
  if (!outcome!.ok) throw outcome!.error;
  return outcome!.value;
}

function assertNever(x: never): never {
  throw new Error(`unhandled mailbox command ${JSON.stringify(x)}`);
}
