import type { Tx } from "../../db/client.ts";
import { webhookDeliveries } from "../../db/schema/index.ts";
import { newId } from "../domain/ids.ts";

/** A delivery that is not an endpoint's: a protocol callback or a message for an agent runtime. */
export interface DirectDelivery {
  target: "callback" | "runtime";
  mailboxId: string;
  url: string;
  /** Signed at each attempt with the sender's callback secret or the runtime binding's (see the executor). */
  signatureHeader: string;
  event: string;
  /** The exact bytes every attempt sends and signs. */
  body: string;
  /** The protocol response or message the delivery is about. */
  subjectId: string;
}

/**
 * Writes the deliveries in the caller's transaction, in one statement, beside the change that caused it, so it
 * cannot be lost; the caller hands the ids to the transport after commit (the sweeper and
 * the in-process poll find it if that hand-over never happens). Retries, history and the
 * SSRF guard are the webhook machinery's.
 */
export async function insertDirectDeliveries(tx: Tx, list: DirectDelivery[]): Promise<string[]> {
  if (list.length === 0) return [];
  const rows = list.map((d) => ({
    id: newId(),
    endpointId: null,
    target: d.target,
    url: d.url,
    signatureHeader: d.signatureHeader,
    subjectId: d.subjectId,
    mailboxId: d.mailboxId,
    eventId: d.subjectId,
    event: d.event,
    body: d.body,
  }));
  await tx.insert(webhookDeliveries).values(rows);
  return rows.map((r) => r.id);
}
