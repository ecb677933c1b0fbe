import { and, eq, inArray } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import {
  agentRuntimeEvents,
  autopilotDecisions,
  autopilotPolicies,
  drafts,
  labels,
  messageLabels,
  messages,
  protocolMessages,
  type AgentRuntimeBindingRow,
  type AttachmentRow,
  type AutopilotPolicyRow,
  type MailboxRow,
  type MessageRow,
  type ProtocolMessageRow,
} from "../../db/schema/index.ts";
import { decide, type Rule, type RuleAction } from "../../src/autopilot/rules.ts";
import { newId } from "../../src/domain/ids.ts";
import { checkLabel } from "../../src/domain/labels.ts";
import { AppError } from "../../src/errors.ts";
import { insertOutbox, jobRow } from "../../src/jobs/outbox.ts";
import { AUTO_SEND_ACTION } from "../../src/protocol/types.ts";
import { RUNTIME_EVENT, runtimeMessageBody, runtimeUrl, type RoutingHint } from "../../src/runtime/payload.ts";
import { messageEventPayload } from "../../src/mail/events.ts";
import { insertDirectDeliveries, type DirectDelivery } from "../../src/webhooks/direct.ts";
import { replyAddressing } from "../../src/domain/outbound.ts";
import { bindingOf } from "./runtime.ts";
import type { MailboxState, WriteContext } from "./types.ts";

/** A message that processing just completed, as the event will describe it. */
export interface Processed {
  row: MessageRow;
  attachments: AttachmentRow[];
  protocol?: ProtocolMessageRow;
}

/** The mailbox's autopilot policy and runtime binding, read before the transaction (they are kept by the actor). */
export interface Settings {
  policy: AutopilotPolicyRow | null;
  binding: Awaited<ReturnType<typeof bindingOf>>;
}

export async function processingSettings(state: MailboxState, deps: WriteContext["deps"]): Promise<Settings> {
  return { policy: await autopilotOf(state, deps), binding: await bindingOf(state, deps) };
}

/** The autopilot policy, read once per activation and kept (writes go through this actor). */
export async function autopilotOf(state: MailboxState, deps: WriteContext["deps"]): Promise<AutopilotPolicyRow | null> {
  if (state.autopilot === undefined) {
    const [row] = await deps.db.select().from(autopilotPolicies).where(eq(autopilotPolicies.mailboxId, state.mailbox.id)).limit(1);
    state.autopilot = row ?? null;
  }
  return state.autopilot;
}

/**
 * What happens to processed inbound messages, inside the transaction that marks them
 * processed (so none of it is lost or done twice): the autopilot's decision (recorded; carried
 * out in `enforce` mode), routing to the agent runtime, and the `send_message` auto-reply
 * job. Rows are updated in place so that `message.processed` describes the outcome.
 * Returns the deliveries to hand to the transport after commit.
 */
export async function afterProcessing(tx: Tx, { state }: WriteContext, settings: Settings, processed: Processed[]): Promise<{ deliveryIds: string[]; jobs: number }> {
  const inbound = processed.filter((p) => p.row.direction === "inbound");
  if (inbound.length === 0) return { deliveryIds: [], jobs: 0 };
  // Only an agent protocol message has a protocol row (actors/mailbox/protocol.ts writes both
  // together): a batch of mail needs no look-up, and the actor one round trip less.
  const agentJson = inbound.filter((p) => p.row.transport === "agent-json").map((p) => p.row.id);
  const protocolRows = agentJson.length > 0 ? await tx.select().from(protocolMessages).where(inArray(protocolMessages.messageId, agentJson)) : [];
  for (const p of inbound) p.protocol = protocolRows.find((r) => r.messageId === p.row.id);

  const { policy, binding } = settings;
  const rules = (policy?.rules ?? []) as Rule[];
  const routed = binding?.enabled ? binding : null;
  const toRoute: { p: Processed; hint: RoutingHint }[] = [];
  const runtimeEvents: (typeof agentRuntimeEvents.$inferInsert)[] = [];
  const decisions: (typeof autopilotDecisions.$inferInsert)[] = [];
  const jobs: ReturnType<typeof jobRow>[] = [];

  for (const p of inbound) {
    let blocked = false;
    const hint: RoutingHint = { priority: p.protocol?.priority === "high" || p.protocol?.priority === "urgent" ? "high" : "normal", notes: [] };
    if (policy && rules.length > 0) {
      const decision = decide(rules, {
        from: p.row.fromAddress,
        subject: p.row.subject,
        triageLabel: p.row.triageLabel,
        riskLevel: p.row.riskLevel,
        action: p.protocol?.action ?? null,
        transport: p.row.transport,
      });
      const enforce = policy.mode === "enforce";
      const outcomes: Record<string, unknown>[] = [];
      for (const planned of decision.actions) {
        const outcome = enforce ? await carryOut(tx, state, p, planned.action, routed !== null) : { outcome: "would_apply" };
        outcomes.push({ rule_id: planned.rule_id, action: planned.action, ...outcome });
        if (enforce && planned.action.type === "forward_to_runtime" && outcome.outcome === "applied") {
          if (planned.action.priority === "high") hint.priority = "high";
          if (planned.action.note) hint.notes.push(planned.action.note);
        }
      }
      blocked = enforce && decision.blocked;
      decisions.push({ id: newId(), mailboxId: state.mailbox.id, messageId: p.row.id, mode: policy.mode, matchedRules: decision.matched_rules, actions: outcomes, blocked: decision.blocked });
    }

    if (routed && blocked) {
      runtimeEvents.push({ id: newId(), mailboxId: state.mailbox.id, messageId: p.row.id, kind: "skipped", detail: "blocked by an autopilot rule; not routed to the runtime" });
    } else if (routed) {
      toRoute.push({ p, hint });
      if (p.protocol && p.protocol.status === "received") {
        await tx.update(protocolMessages).set({ status: "routed", updatedAt: new Date() }).where(eq(protocolMessages.messageId, p.row.id));
        p.protocol = { ...p.protocol, status: "routed" };
      }
    }

    if (p.protocol?.action === AUTO_SEND_ACTION) {
      const refusal = blocked
        ? { code: "blocked_by_autopilot", message: "an autopilot rule blocked this message; no auto-reply" }
        : !state.mailbox.allowAutoReply
          ? { code: "auto_reply_disabled", message: "the mailbox policy does not allow auto-replies (allow_auto_reply is false); the message waits for the agent" }
          : null;
      if (refusal) {
        await tx.update(protocolMessages).set({ error: refusal, updatedAt: new Date() }).where(eq(protocolMessages.messageId, p.row.id));
      } else {
        jobs.push(jobRow("protocol.auto", state.mailbox.id, { message_id: p.row.id }));
      }
    }
  }

  // The batch's decisions, runtime deliveries, routing-log entries and jobs, one statement each.
  if (decisions.length > 0) await tx.insert(autopilotDecisions).values(decisions);
  const deliveryIds = routed ? await insertDirectDeliveries(tx, toRoute.map(({ p, hint }) => runtimeDelivery(routed, state.mailbox, p, hint))) : [];
  toRoute.forEach(({ p, hint }, i) => runtimeEvents.push(routedEvent(routed!, p.row, hint, deliveryIds[i]!)));
  if (runtimeEvents.length > 0) await tx.insert(agentRuntimeEvents).values(runtimeEvents);
  await insertOutbox(tx, jobs);
  return { deliveryIds, jobs: jobs.length };
}

function runtimeDelivery(binding: AgentRuntimeBindingRow, mailbox: MailboxRow, p: Processed, hint: RoutingHint): DirectDelivery {
  return {
    target: "runtime",
    mailboxId: mailbox.id,
    url: runtimeUrl(binding.runtimeBaseUrl),
    signatureHeader: "x-service-signature",
    event: RUNTIME_EVENT,
    body: runtimeMessageBody(binding, mailbox, messageEventPayload(p.row, p.attachments, p.protocol), hint),
    subjectId: p.row.id,
  };
}

function routedEvent(binding: AgentRuntimeBindingRow, row: MessageRow, hint: RoutingHint, deliveryId: string): typeof agentRuntimeEvents.$inferInsert {
  return {
    id: newId(),
    mailboxId: row.mailboxId,
    messageId: row.id,
    kind: "routed",
    detail: `queued for agent ${binding.agentId} (${binding.personaLabel}, tier ${binding.permissionTier}, ${binding.policyMode})`,
    data: { agent_id: binding.agentId, persona_label: binding.personaLabel, permission_tier: binding.permissionTier, policy_mode: binding.policyMode, priority: hint.priority, url: runtimeUrl(binding.runtimeBaseUrl) },
    deliveryId,
  };
}

type Carried = { outcome: "applied" | "skipped"; detail?: string; [k: string]: unknown };

/** One autopilot action in `enforce` mode. A skipped action says why. */
async function carryOut(tx: Tx, state: MailboxState, p: Processed, action: RuleAction, hasRuntime: boolean): Promise<Carried> {
  const mailboxId = state.mailbox.id;
  switch (action.type) {
    case "label": {
      const { name, nameKey } = checkLabel(action.label, null);
      await tx.insert(labels).values({ id: newId(), mailboxId, name, nameKey, color: null }).onConflictDoNothing();
      const [label] = await tx.select({ id: labels.id }).from(labels).where(and(eq(labels.mailboxId, mailboxId), eq(labels.nameKey, nameKey))).limit(1);
      await tx.insert(messageLabels).values({ messageId: p.row.id, labelId: label!.id }).onConflictDoNothing();
      return { outcome: "applied", label_id: label!.id };
    }
    case "archive": {
      const [row] = await tx.update(messages).set({ status: "archived", archivedAt: new Date() }).where(eq(messages.id, p.row.id)).returning();
      p.row = row!;
      return { outcome: "applied" };
    }
    case "draft_reply": {
      let addressing;
      try {
        addressing = replyAddressing(p.row);
      } catch (err) {
        if (err instanceof AppError) return { outcome: "skipped", detail: err.message };
        throw err;
      }
      const id = newId();
      await tx.insert(drafts).values({ id, mailboxId, to: addressing.to, subject: addressing.subject, textBody: action.text, inReplyToMessageId: p.row.id });
      return { outcome: "applied", draft_id: id };
    }
    case "forward_to_runtime":
      return hasRuntime ? { outcome: "applied" } : { outcome: "skipped", detail: "the mailbox has no enabled agent-runtime binding" };
    case "block": {
      const signals = [...new Set([...p.row.suspiciousSignals, "autopilot_blocked"])].sort();
      const [row] = await tx.update(messages).set({ triageLabel: "spam", suspiciousSignals: signals, autoReplyBlocked: true }).where(eq(messages.id, p.row.id)).returning();
      p.row = row!;
      return { outcome: "applied" };
    }
  }
}
