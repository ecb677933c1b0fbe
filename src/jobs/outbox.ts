import type { Db, Tx } from "../../db/client.ts";
import { outbox, type OutboxRow } from "../../db/schema/index.ts";
import { newId } from "../domain/ids.ts";

export type JobKind = OutboxRow["kind"];
export type EventTopic = "message.received" | "message.processed" | "message.sent";

/** Writes an event to the outbox, inside the caller's transaction. */
export async function enqueueEvent(tx: Db | Tx, topic: EventTopic, mailboxId: string, payload: Record<string, unknown>): Promise<void> {
  await tx.insert(outbox).values({ id: newId(), kind: "event", topic, mailboxId, payload });
}

/** Writes a job to the outbox, inside the caller's transaction; returns its id. */
export async function enqueueJob(tx: Db | Tx, kind: Exclude<JobKind, "event">, mailboxId: string | null, payload: Record<string, unknown>): Promise<string> {
  const id = newId();
  await tx.insert(outbox).values({ id, kind, mailboxId, payload });
  return id;
}
