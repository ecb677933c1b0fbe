import type { AgentRuntimeBindingRow, MailboxRow } from "../../db/schema/index.ts";

/** Where a runtime receives messages: this path under its base URL. */
export const RUNTIME_MESSAGES_PATH = "/mailroom/messages";
export const RUNTIME_EVENT = "message.routed";

export const runtimeUrl = (base: string): string => `${base.replace(/\/+$/, "")}${RUNTIME_MESSAGES_PATH}`;

/** What an autopilot `forward_to_runtime` action adds to the routed message. */
export interface RoutingHint {
  priority: "normal" | "high";
  notes: string[];
}

/**
 * The body POSTed to the runtime for one processed inbound message: who the agent is in this
 * mailbox (persona, tier, policy mode), the message as webhooks carry it, and the autopilot's
 * hint. The runtime answers through the API with its own key.
 */
export function runtimeMessageBody(binding: AgentRuntimeBindingRow, mailbox: MailboxRow, message: Record<string, unknown>, hint: RoutingHint): string {
  return JSON.stringify({
    event: RUNTIME_EVENT,
    agent_id: binding.agentId,
    persona_label: binding.personaLabel,
    permission_tier: binding.permissionTier,
    policy_mode: binding.policyMode,
    mailbox: { id: mailbox.id, email_address: mailbox.emailAddress, protocol_host: mailbox.protocolHost },
    message,
    routing: hint,
  });
}
