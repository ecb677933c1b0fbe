import type { Db, Tx } from "../../db/client.ts";
import { outbox, type OutboxRow } from "../../db/schema/index.ts";
import { isUuid, newId } from "../domain/ids.ts";
import { JobFailed } from "./failure.ts";

export type JobKind = OutboxRow["kind"];
export type EventTopic = "message.received" | "message.processed" | "message.sent" | "protocol.response.created";

type OutboxInsert = typeof outbox.$inferInsert & { id: string };

/** An outbox row for an event (several are inserted in one statement where a batch writes many). */
export const eventRow = (topic: EventTopic, mailboxId: string, payload: Record<string, unknown>): OutboxInsert => ({ id: newId(), kind: "event", topic, mailboxId, payload });

/** An outbox row for a job this service runs. */
export const jobRow = (kind: Exclude<JobKind, "event">, mailboxId: string | null, payload: Record<string, unknown>): OutboxInsert => ({ id: newId(), kind, mailboxId, payload });

/** Writes an event to the outbox, inside the caller's transaction. */
export async function enqueueEvent(tx: Db | Tx, topic: EventTopic, mailboxId: string, payload: Record<string, unknown>): Promise<void> {
  await tx.insert(outbox).values(eventRow(topic, mailboxId, payload));
}

/** Writes a job to the outbox, inside the caller's transaction; returns its id. */
export async function enqueueJob(tx: Db | Tx, kind: Exclude<JobKind, "event">, mailboxId: string | null, payload: Record<string, unknown>): Promise<string> {
  const row = jobRow(kind, mailboxId, payload);
  await tx.insert(outbox).values(row);
  return row.id;
}

/**
 * The message a job is about (`payload.message_id`). A payload without one can never be
 * run: JobFailed, unless a fallback is given (a failure hook has nothing to mark then).
 */
export function messageIdOf(job: Pick<OutboxRow, "payload">): string;
export function messageIdOf(job: Pick<OutboxRow, "payload">, fallback: null): string | null;
export function messageIdOf(job: Pick<OutboxRow, "payload">, fallback?: null): string | null {
  const id = job.payload.message_id;
  if (typeof id === "string" && isUuid(id)) return id;
  if (fallback === null) return null;
  throw new JobFailed(`the job's payload names no message (message_id ${String(JSON.stringify(id)).slice(0, 100)})`);
}
