import { autopilotPolicies, type AutopilotPolicyRow } from "../../db/schema/index.ts";
import { normalizeRules } from "../../src/autopilot/rules.ts";
import { validationError } from "../../src/errors.ts";
import { autopilotOf } from "./after-processing.ts";
import type { AutopilotChange, WriteContext } from "./types.ts";

/** Replaces the mode and/or the rules; rules are validated and given their defaults before they are stored. */
export async function setAutopilot({ state, deps }: WriteContext, cmd: AutopilotChange): Promise<AutopilotPolicyRow> {
  const current = await autopilotOf(state, deps);
  let rules = current?.rules ?? [];
  if (cmd.rules !== undefined) {
    const checked = normalizeRules(cmd.rules);
    if (!checked.ok) throw validationError(`invalid autopilot rules: ${checked.errors[0]!.path} ${checked.errors[0]!.message}`, checked.errors.map((e) => ({ path: `body.${e.path}`, message: e.message })));
    rules = checked.rules;
  }
  const values = { mailboxId: state.mailbox.id, mode: cmd.mode ?? current?.mode ?? "observe", rules, updatedAt: new Date() };
  const [row] = await deps.db.insert(autopilotPolicies).values(values).onConflictDoUpdate({ target: autopilotPolicies.mailboxId, set: values }).returning();
  state.autopilot = row!;
  deps.announceChanged(state.mailbox.id);
  return row!;
}
