import type { MailboxRow } from "../../db/schema/index.ts";
import type { RuntimeAccess } from "../../src/domain/runtime-binding.ts";
import { keptMailbox } from "./mailbox-row.ts";
import { SlidingWindow, type RateDecision } from "./rate-window.ts";
import { bindingOf } from "./runtime.ts";
import type { WriteContext } from "./types.ts";

/** An API key's call: counted in its window, refused past the limit. Answers from memory (no promise). */
export function admit(ctx: WriteContext, keyId: string): RateDecision {
  return windowOf(ctx, keyId).take(performance.now());
}

function windowOf({ state, deps }: WriteContext, keyId: string): SlidingWindow {
  let window = state.windows.get(keyId);
  if (!window) {
    window = new SlidingWindow(deps.rateLimit.limit, deps.rateLimit.windowMs);
    state.windows.set(keyId, window);
  }
  return window;
}

/** Calls one `admitMany` may carry: the calls of one key waiting on one node, which are few. */
export const MAX_ADMITS = 1024;

/**
 * What `admitMany` answers: how many of the calls were admitted (the first `granted`, in
 * order; the rest refused), and the window after the last of them, as `admit` would answer it.
 */
export interface ManyAdmitted {
  granted: number;
  limit: number;
  remaining: number;
  resetInMs: number;
}

/**
 * `count` calls of one key at once, exactly as that many `admit`s in a row would count them:
 * the calls of a key that another node holds, waiting there together, asked for in one
 * message (src/cluster/coalesced-admits.ts) instead of one each.
 */
export function admitMany(ctx: WriteContext, keyId: string, count: number): ManyAdmitted {
  if (!Number.isInteger(count) || count < 1 || count > MAX_ADMITS) throw new RangeError(`admitMany takes 1 to ${MAX_ADMITS} calls, got ${count}`);
  const window = windowOf(ctx, keyId);
  const now = performance.now();
  let last = window.take(now);
  let granted = last.allowed ? 1 : 0;
  while (last.allowed && granted < count) {
    last = window.take(now);
    if (last.allowed) granted++;
  }
  return { granted, limit: last.limit, remaining: last.remaining, resetInMs: last.resetInMs };
}

/** What `poll` answers: the call's decision, and the row when the call was admitted and memory may answer. */
export type PollReply = RateDecision & { row: MailboxRow | undefined };

/**
 * A key reading its mailbox (GET /v1/mailboxes/{id}, every agent's poll): the call counted
 * as `admit` counts it, and the row from memory in the same turn, so the hottest request
 * goes through the placement, the lease and the actor once instead of twice. `row` is
 * undefined when the call was refused or the row must be read again (`get`).
 */
export function poll(ctx: WriteContext, keyId: string): PollReply {
  const decision = admit(ctx, keyId);
  return { ...decision, row: decision.allowed ? keptMailbox(ctx) : undefined };
}

/** A runtime key's call: the same call window, plus what its binding lets it do now. */
export async function admitRuntime(ctx: WriteContext, keyId: string): Promise<RateDecision & { runtime: RuntimeAccess | null }> {
  const decision = admit(ctx, keyId);
  const binding = await bindingOf(ctx.state, ctx.deps);
  const runtime = binding && binding.enabled && binding.keyId === keyId ? { tier: binding.permissionTier, mode: binding.policyMode } : null;
  return { ...decision, runtime };
}

/** Passivating would forget the call windows and hand a key a fresh quota: only once every window is idle. */
export function windowsIdle({ state }: WriteContext): boolean {
  const now = performance.now();
  for (const [keyId, window] of state.windows) {
    if (window.isIdle(now)) state.windows.delete(keyId);
  }
  return state.windows.size === 0;
}
