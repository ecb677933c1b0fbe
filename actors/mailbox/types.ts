import type { Db } from "../../db/client.ts";
import type { AgentRuntimeBindingRow, ApiKeyRow, AutopilotPolicyRow, MailboxRow, PermissionTier, PolicyMode } from "../../db/schema/index.ts";
import type { ActionFields } from "../../src/domain/actions.ts";
import type { SchemaValidators } from "../../src/protocol/validation.ts";
import type { ProtocolInput, ResponseInput } from "../../src/protocol/types.ts";
import type { KeyStore } from "../../src/auth/key-store.ts";
import type { SecretBox } from "../../src/crypto/secret-box.ts";
import type { OutgoingFields } from "../../src/domain/outbound.ts";
import type { ArrivalHead } from "../../src/mail/arrival-head.ts";
import type { Composer } from "../../src/mail/outbound/composer.ts";
import type { Envelope, ProcessedMail } from "../../src/mail/types.ts";
import type { SlidingWindow } from "./rate-window.ts";

export const MAILBOX_ACTOR = "mailbox";

/** The fields of the mailbox policy a PUT may change; absent ones stay as they are. */
export interface PolicyPatch {
  allowOutbound?: boolean;
  allowAutoReply?: boolean;
  maxOutboundPerDay?: number;
}

/** Draft fields as commands carry them; absent ones are left as they are (update) or empty (create). */
export interface DraftFields {
  to?: string[];
  cc?: string[];
  bcc?: string[];
  subject?: string | null;
  textBody?: string | null;
  htmlBody?: string | null;
  /** A reply held for approval: sent, it threads as a reply to this message. Set on create only. */
  inReplyToMessageId?: string;
}

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

/** Commands are plain data so that a placement may carry them to another node. */
export type MailboxCommand =
  | { type: "get" }
  | { type: "reload" }
  | { type: "admit"; keyId: string; runtime?: boolean }
  | { type: "setStatus"; status: "active" | "disabled" }
  | { type: "setPolicy"; policy: PolicyPatch }
  | { type: "issueKey"; name: string; scope: "mailbox" }
  | { type: "revokeKey"; keyId: string }
  | { type: "createDraft"; draft: DraftFields }
  | { type: "updateDraft"; draftId: string; draft: DraftFields }
  | { type: "deleteDraft"; draftId: string }
  | { type: "createLabel"; name: string; color: string | null }
  | { type: "deleteLabel"; labelId: string }
  | { type: "setMessageState"; messageId: string; state: "archived" | "reviewed" }
  | { type: "setThreadStatus"; threadId: string; status: "open" | "archived" }
  | { type: "labelMessage"; messageId: string; labelId: string; apply: boolean }
  | { type: "labelThread"; threadId: string; labelId: string; apply: boolean }
  | {
      type: "receive";
      rawSha256: string;
      rawSize: number;
      recipient: string;
      envelope: Envelope;
      replyToken: { id: string; threadId: string } | null;
      /** The head as read cheaply at arrival: shown until processing, and what the thread is decided by. */
      head: ArrivalHead;
    }
  | { type: "createAction"; name: string; fields: ActionFields }
  | { type: "updateAction"; name: string; fields: ActionFields }
  | { type: "deleteAction"; name: string }
  | { type: "receiveProtocol"; sender: { mailboxId: string; emailAddress: string }; input: ProtocolInput; raw: unknown }
  | { type: "respond"; messageId: string; responder: "agent" | "runtime" | "auto"; input: ResponseInput }
  | { type: "autoAct"; messageId: string }
  | { type: "setAutopilot"; mode?: "observe" | "enforce"; rules?: unknown }
  | { type: "setBinding"; fields: BindingFields }
  | { type: "removeBinding" }
  | { type: "logRuntime"; messageId: string | null; kind: string; detail: string; data: Record<string, unknown> }
  | { type: "send"; fields: OutgoingFields }
  | { type: "reply"; messageId: string; fields: { textBody?: string | null; htmlBody?: string | null; cc?: string[]; bcc?: string[] } }
  | { type: "sendDraft"; draftId: string }
  | { type: "recordDelivery"; messageId: string; outcome: "sent" | "retrying" | "failed"; detail: string; providerMessageId?: string | null }
  | { type: "applyProcessed"; messageId: string; jobId: string | null; tokenThreadId: string | null; result: ProcessedMail }
  | { type: "recordJobFailure"; kind: "mail.process" | "protocol.auto"; messageId: string; reason: string };

export type CommandOf<T extends MailboxCommand["type"]> = Extract<MailboxCommand, { type: T }>;

export interface MailboxState {
  mailbox: MailboxRow;
  /** performance.now() when `mailbox` was read from the database. */
  loadedAt: number;
  /** Per API key call windows of this mailbox's keys. */
  windows: Map<string, SlidingWindow>;
  /** Sends per sliding hour; built on the first send from the stored outbound messages. */
  sendWindow?: SlidingWindow;
  /** The agent-runtime binding: undefined until first needed, null when there is none. */
  binding?: AgentRuntimeBindingRow | null;
  /** The autopilot policy, likewise. */
  autopilot?: AutopilotPolicyRow | null;
}

export interface MailboxActorDeps {
  db: Db;
  keys: KeyStore;
  /** Seals the signing secrets the actor stores (runtime binding, callback secret). */
  secrets: SecretBox;
  /** Tells the other nodes that a key was revoked (their caches drop it at once). */
  announceRevoked(keyId: string): void;
  /** Tells the other nodes that this mailbox's row changed (their copies reload). */
  announceChanged(mailboxId: string): void;
  /**
   * How long the kept row is trusted before a read reloads it. Until the NATS placement puts
   * each mailbox on exactly one node, another node may change the row; this bounds how stale
   * a read can be when the cluster broadcast is missed.
   */
  freshnessMs: number;
  rateLimit: { limit: number; windowMs: number };
  /** Domain of Message-IDs this service writes. */
  mailDomain: string;
  replyTokenTtlMs: number;
  /** Builds outgoing messages in a worker (src/mail/outbound/composer.ts). */
  composer: Composer;
  /** Compiled action schemas, shared by every mailbox of the node. */
  validators: SchemaValidators;
  /** After a commit: hands new deliveries to the transport and wakes the job runner. */
  handOver: { deliveries(ids: string[]): void; jobs(): void };
}

/** What a write command's implementation is handed: the state it may change and the deps. */
export interface WriteContext {
  state: MailboxState;
  deps: MailboxActorDeps;
}

export type IssuedKey = { apiKey: ApiKeyRow; token: string };
