import type { AgentRuntimeBindingRow, PermissionTier, PolicyMode } from "../../db/schema/index.ts";

/** What a runtime key may do now: its binding's tier and policy mode (null: binding disabled or gone). */
export interface RuntimeAccess {
  tier: PermissionTier;
  mode: PolicyMode;
}

/** Binding fields as commands carry them; absent ones keep their value (update) or default (create). */
export interface BindingFields {
  agentId?: string;
  runtimeBaseUrl?: string;
  permissionTier?: PermissionTier;
  policyMode?: PolicyMode;
  personaLabel?: string;
  enabled?: boolean;
}

export interface BindingChange {
  binding: AgentRuntimeBindingRow;
  created: boolean;
  /** Shown once, when the binding is created: the runtime's API key and the secret that signs what it receives. */
  runtimeToken: string | null;
  signingSecret: string | null;
}
