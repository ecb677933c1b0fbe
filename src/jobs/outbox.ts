import type { Db, Tx } from "../../db/client.ts";
import { CompiledRows } from "../../db/compiled.ts";
import { batched } from "../../db/tx-batch.ts";
import { outbox, type OutboxRow } from "../../db/schema/index.ts";
import { isUuid, newId } from "../domain/ids.ts";
import { JobFailed } from "./failure.ts";

export type JobKind = OutboxRow["kind"];
export type EventTopic = "message.received" | "message.processed" | "message.sent" | "protocol.response.created";

/** An outbox row as the service writes it; the rest of its columns take their defaults (seq, attempts, times; mailbox_seq from its trigger). */
export type OutboxInsert = {
  id: string;
  kind: JobKind;
  /** The event's name; empty for a job. */
  topic: string;
  mailboxId: string | null;
  payload: Record<string, unknown>;
};
const WRITTEN = ["id", "kind", "topic", "mailboxId", "payload"] as const satisfies readonly (keyof OutboxInsert & keyof typeof outbox.$inferInsert)[];

/** An outbox row for an event (several are inserted in one statement where a batch writes many). */
export const eventRow = (topic: EventTopic, mailboxId: string, payload: Record<string, unknown>): OutboxInsert => ({ id: newId(), kind: "event", topic, mailboxId, payload });

/** An outbox row for a job this service runs. */
export const jobRow = (kind: Exclude<JobKind, "event">, mailboxId: string | null, payload: Record<string, unknown>): OutboxInsert => ({ id: newId(), kind, topic: "", mailboxId, payload });

/** The insert of outbox rows, built once per number of rows (db/compiled.ts): every write of an event or a job runs it. */
const INSERT = new CompiledRows<OutboxInsert, unknown>(WRITTEN, (db, rows) => db.insert(outbox).values(rows));

/** Writes outbox rows (events and jobs, made by eventRow and jobRow) in one statement, inside the caller's transaction. */
export async function insertOutbox(tx: Db | Tx, rows: OutboxInsert[]): Promise<void> {
  // In a shared transaction, with the other mailboxes' rows (db/tx-batch.ts); each mailbox's in its order.
  if (rows.length > 0) await batched(tx, "outbox", rows, (db, all) => INSERT.run(db, all), () => undefined);
}

/** Writes an event to the outbox, inside the caller's transaction. */
export async function enqueueEvent(tx: Db | Tx, topic: EventTopic, mailboxId: string, payload: Record<string, unknown>): Promise<void> {
  await insertOutbox(tx, [eventRow(topic, mailboxId, payload)]);
}

/** Writes a job to the outbox, inside the caller's transaction; returns its id. */
export async function enqueueJob(tx: Db | Tx, kind: Exclude<JobKind, "event">, mailboxId: string | null, payload: Record<string, unknown>): Promise<string> {
  const row = jobRow(kind, mailboxId, payload);
  await insertOutbox(tx, [row]);
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
