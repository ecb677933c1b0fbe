import { eq } from "drizzle-orm";
import { bodyString, type BodyText } from "../../src/domain/body-text.ts";
import { agentRuntimeBindings, agentRuntimeEvents, apiKeys, type AgentRuntimeBindingRow, type DraftRow, type PolicyMode } from "../../db/schema/index.ts";
import { issueSecret } from "../../src/auth/tokens.ts";
import { newId } from "../../src/domain/ids.ts";
import { notFound, validationError } from "../../src/errors.ts";
import { newSigningSecret } from "../../src/webhooks/signing.ts";
import type { DraftFields } from "../../src/domain/drafts.ts";
import { replyAddressing, type OutgoingFields, type ReplyFields } from "../../src/domain/outbound.ts";
import type { BindingChange, BindingFields } from "../../src/domain/runtime-binding.ts";
import { createDraft } from "./drafts.ts";
import { ownMessage } from "./outbound.ts";
import type { MailboxState, RuntimeLogEntry, WriteContext } from "./types.ts";

/** The binding, read once per activation and kept (writes go through this actor, other nodes reload). */
export async function bindingOf(state: MailboxState, deps: WriteContext["deps"]): Promise<AgentRuntimeBindingRow | null> {
  if (state.binding === undefined) {
    const [row] = await deps.db.select().from(agentRuntimeBindings).where(eq(agentRuntimeBindings.mailboxId, state.mailbox.id)).limit(1);
    state.binding = row ?? null;
  }
  return state.binding;
}

/** Create or update: a new binding gets its defaults, a key of scope `runtime` and a signing secret. */
export async function setBinding({ state, deps }: WriteContext, fields: BindingFields): Promise<BindingChange> {
  const current = await bindingOf(state, deps);
  const f = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as BindingFields;
  const now = new Date();
  if (current) {
    const [row] = await deps.db.update(agentRuntimeBindings).set({ ...f, updatedAt: now }).where(eq(agentRuntimeBindings.mailboxId, state.mailbox.id)).returning();
    state.binding = row!;
    deps.announceChanged(state.mailbox.id);
    return { binding: row!, created: false, runtimeToken: null, signingSecret: null };
  }
  const missing = (["agentId", "runtimeBaseUrl"] as const).filter((k) => f[k] === undefined);
  if (missing.length > 0) throw validationError(`${missing.join(" and ")} required to create a binding`, missing.map((path) => ({ path, message: "is required" })));
  const keyId = newId();
  const { token, digest } = issueSecret(keyId);
  const signingSecret = newSigningSecret();
  const row = await deps.db.transaction(async (tx) => {
    await tx.insert(apiKeys).values({ id: keyId, mailboxId: state.mailbox.id, name: `agent runtime ${f.agentId}`.slice(0, 200), scope: "runtime", status: "active", secretDigest: digest });
    const [inserted] = await tx
      .insert(agentRuntimeBindings)
      .values({ mailboxId: state.mailbox.id, agentId: f.agentId!, runtimeBaseUrl: f.runtimeBaseUrl!, ...f, signingSecret: deps.secrets.seal(signingSecret), keyId, createdAt: now, updatedAt: now })
      .returning();
    return inserted!;
  });
  deps.keys.invalidate(keyId);
  state.binding = row;
  deps.announceChanged(state.mailbox.id);
  return { binding: row, created: true, runtimeToken: token, signingSecret };
}

/** Removes the binding and revokes its runtime key at once, here and (by broadcast) on other nodes. */
export async function removeBinding({ state, deps }: WriteContext): Promise<AgentRuntimeBindingRow> {
  const row = await deps.db.transaction(async (tx) => {
    const [deleted] = await tx.delete(agentRuntimeBindings).where(eq(agentRuntimeBindings.mailboxId, state.mailbox.id)).returning();
    if (!deleted) throw notFound("agent-runtime binding of mailbox", state.mailbox.id);
    if (deleted.keyId) await tx.update(apiKeys).set({ status: "revoked", revokedAt: new Date() }).where(eq(apiKeys.id, deleted.keyId));
    return deleted;
  });
  if (row.keyId) {
    deps.keys.invalidate(row.keyId);
    deps.announceRevoked(row.keyId);
    state.windows.delete(row.keyId);
  }
  state.binding = null;
  deps.announceChanged(state.mailbox.id);
  return row;
}

/** A routing-log entry for something the runtime asked for that its tier or mode changed. */
export async function logRuntime({ state, deps }: WriteContext, cmd: RuntimeLogEntry): Promise<void> {
  await deps.db.insert(agentRuntimeEvents).values({ id: newId(), mailboxId: state.mailbox.id, messageId: cmd.messageId, kind: cmd.kind, detail: cmd.detail, data: cmd.data });
}

/** A policy mode that holds an agent runtime's sends instead of sending them. */
export type HoldingMode = Exclude<PolicyMode, "auto-send">;

/** What became of a held send: only logged (observe), or kept as a draft for a person to approve (draft-first). */
export type Held = { disposition: "observed" } | { disposition: "draft"; draft: DraftRow };

/** An agent runtime's send that its binding's mode holds (README "Agent-runtime binding"); logged either way. */
export async function holdSend(ctx: WriteContext, mode: HoldingMode, fields: OutgoingFields): Promise<Held> {
  return hold(ctx, mode, { ...fields, textBody: text(fields.textBody), htmlBody: text(fields.htmlBody) }, null);
}

/** An agent runtime's reply that its binding's mode holds: as a draft, it is sent as this reply once approved. */
export async function holdReply(ctx: WriteContext, mode: HoldingMode, messageId: string, fields: ReplyFields): Promise<Held> {
  const original = await ownMessage(ctx, messageId);
  if (!original) throw notFound("message", messageId);
  const { to, subject } = replyAddressing(original);
  const draft = { to, cc: fields.cc ?? [], bcc: fields.bcc ?? [], subject, textBody: text(fields.textBody), htmlBody: text(fields.htmlBody), inReplyToMessageId: messageId };
  return hold(ctx, mode, draft, messageId);
}

/** A held send becomes a draft, whose bodies are text. */
const text = (body: BodyText | null | undefined): string | null => (body === null || body === undefined ? null : bodyString(body));

async function hold(ctx: WriteContext, mode: HoldingMode, draft: DraftFields, messageId: string | null): Promise<Held> {
  if (mode === "observe") {
    await logRuntime(ctx, { messageId, kind: "send_observed", detail: "the runtime asked to send; observe mode only logs it", data: { to: draft.to ?? [], subject: draft.subject ?? null } });
    return { disposition: "observed" };
  }
  const row = await createDraft(ctx, draft);
  await logRuntime(ctx, { messageId, kind: "send_drafted", detail: `the runtime asked to send; held as draft ${row.id} for approval (draft-first)`, data: { draft_id: row.id } });
  return { disposition: "draft", draft: row };
}
