import type { Db } from "../../db/client.ts";
import type { SharedCommit } from "../../db/shared-commit.ts";
import type { AgentRuntimeBindingRow, ApiKeyRow, AutopilotPolicyRow, MailboxRow } from "../../db/schema/index.ts";
import type { SchemaValidators } from "../../src/protocol/validation.ts";
import type { ProtocolInput } from "../../src/protocol/types.ts";
import type { KeyStore } from "../../src/auth/key-store.ts";
import type { SecretBox } from "../../src/crypto/secret-box.ts";
import type { ArrivalHead } from "../../src/mail/arrival-head.ts";
import type { Composer } from "../../src/mail/outbound/composer.ts";
import type { OffThreadBlobs } from "../../src/mail/native-blobs.ts";
import type { Envelope, ProcessedMail } from "../../src/mail/types.ts";
import type { SlidingWindow } from "./rate-window.ts";

export const MAILBOX_ACTOR = "mailbox";

// Moved to src/domain (src/ must not import the actor's modules); re-exported for code written before the move.
export type { DraftFields } from "../../src/domain/drafts.ts";
export type { PolicyPatch } from "../../src/domain/policy.ts";
export type { BindingFields, RuntimeAccess } from "../../src/domain/runtime-binding.ts";

// The shapes of the commands' arguments that are objects of their own. The commands themselves
// are declared once, in ./commands.ts; the message type, dispatch, client and wire format derive from there.

/** A message arrived by SMTP or HTTP; its raw bytes are already in `blobs`. */
export interface Arrival {
  rawSha256: string;
  rawSize: number;
  recipient: string;
  envelope: Envelope;
  replyToken: { id: string; threadId: string } | null;
  /** The head as read cheaply at arrival: shown until processing, and what the thread is decided by. */
  head: ArrivalHead;
  /** The raw bytes, when the arrival stores them itself (a small message: src/mail/ingest.ts INLINE_RAW_MAX); else they are stored already. */
  raw?: Uint8Array;
}

/** The parse and assessment of a received message, for the actor to apply. */
export interface ProcessedUpdate {
  messageId: string;
  jobId: string | null;
  tokenThreadId: string | null;
  result: ProcessedMail;
  /**
   * The result's content columns are stored already (src/mail/content.ts storeContent, which
   * `mail.process` runs before this command): the actor's update leaves them alone.
   */
  contentStored?: boolean;
}

/** The outcome of one delivery attempt of an outbound message. */
export interface DeliveryOutcome {
  messageId: string;
  outcome: "sent" | "retrying" | "failed";
  detail: string;
  providerMessageId?: string | null;
}

/** A job about one of the mailbox's messages that ended failed. */
export interface JobFailure {
  kind: "mail.process" | "protocol.auto";
  messageId: string;
  reason: string;
}

/** A protocol message from another mailbox, as its sender wrote it. */
export interface ProtocolArrival {
  sender: { mailboxId: string; emailAddress: string };
  input: ProtocolInput;
  raw: unknown;
}

export interface AutopilotChange {
  mode?: "observe" | "enforce";
  rules?: unknown;
}

/** A routing-log entry about something an agent runtime asked for. */
export interface RuntimeLogEntry {
  messageId: string | null;
  kind: string;
  detail: string;
  data: Record<string, unknown>;
}

export interface MailboxState {
  mailbox: MailboxRow;
  /** performance.now() when `mailbox` was read from the database. */
  loadedAt: number;
  /** A read of the row ahead of its going stale is under way (see keptMailbox). */
  refreshing?: boolean;
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
  /**
   * Commits shared with the node's other mailboxes (db/shared-commit.ts): arrivals in one,
   * processing results in another, so an arrival never waits for a commit of results.
   */
  commits: { arrivals: SharedCommit; processed: SharedCommit };
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
  /** On PostgreSQL, the client that moves large values as binary (src/mail/blobs.ts); absent on PGlite. */
  native?: OffThreadBlobs;
  /** Compiled action schemas, shared by every mailbox of the node. */
  validators: SchemaValidators;
  /** After a commit: hands new deliveries to the transport and wakes the job runner. */
  handOver: { deliveries(ids: string[]): void; jobs(): void };
}

/**
 * What every command's handler is handed: the state it may change and the deps. Built once
 * per activation (the actor's state as the runtime keeps it), so a command allocates nothing for it.
 */
export interface WriteContext {
  state: MailboxState;
  deps: MailboxActorDeps;
}

export type IssuedKey = { apiKey: ApiKeyRow; token: string };
