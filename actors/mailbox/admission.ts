import type { MailboxRow } from "../../db/schema/index.ts";
import type { RuntimeAccess } from "../../src/domain/runtime-binding.ts";
import { keptMailbox } from "./mailbox-row.ts";
import { SlidingWindow, type RateDecision } from "./rate-window.ts";
import { bindingOf } from "./runtime.ts";
import type { WriteContext } from "./types.ts";

/** An API key's call: counted in its window, refused past the limit. Answers from memory (no promise). */
export function admit({ state, deps }: WriteContext, keyId: string): RateDecision {
  let window = state.windows.get(keyId);
  if (!window) {
    window = new SlidingWindow(deps.rateLimit.limit, deps.rateLimit.windowMs);
    state.windows.set(keyId, window);
  }
  return window.take(performance.now());
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
