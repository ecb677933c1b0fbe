import type { Tx } from "../../db/client.ts";
import { webhookDeliveries } from "../../db/schema/index.ts";
import { newId } from "../domain/ids.ts";

/** A delivery that is not an endpoint's: a protocol callback or a message for an agent runtime. */
export interface DirectDelivery {
  target: "callback" | "runtime";
  mailboxId: string;
  url: string;
  secret: string;
  signatureHeader: string;
  event: string;
  /** The exact bytes every attempt sends and signs. */
  body: string;
  /** The protocol response or message the delivery is about. */
  subjectId: string;
}

/**
 * Writes the delivery in the caller's transaction, beside the change that caused it, so it
 * cannot be lost; the caller hands the id to the transport after commit (the sweeper and
 * the in-process poll find it if that hand-over never happens). Retries, history and the
 * SSRF guard are the webhook machinery's.
 */
export async function insertDirectDelivery(tx: Tx, d: DirectDelivery): Promise<string> {
  const id = newId();
  await tx.insert(webhookDeliveries).values({
    id,
    endpointId: null,
    target: d.target,
    url: d.url,
    secret: d.secret,
    signatureHeader: d.signatureHeader,
    subjectId: d.subjectId,
    mailboxId: d.mailboxId,
    eventId: d.subjectId,
    event: d.event,
    body: d.body,
  });
  return id;
}
