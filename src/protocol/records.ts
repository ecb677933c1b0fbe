/** Reading a mailbox's protocol records, and the event payload of a response: shared by the routes and the mailbox actor. */
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { messages, protocolMessages, type MessageRow, type ProtocolMessageRow, type ProtocolResponseRow } from "../../db/schema/index.ts";
import { isUuid } from "../domain/ids.ts";

export interface ProtocolMessage {
  message: MessageRow;
  protocol: ProtocolMessageRow;
}

/** A protocol message received by this mailbox, with its message row; undefined when there is none. */
export async function ownProtocolMessage(db: Pick<Db, "select">, mailboxId: string, messageId: string): Promise<ProtocolMessage | undefined> {
  if (!isUuid(messageId)) return undefined;
  const [row] = await db
    .select({ message: messages, protocol: protocolMessages })
    .from(protocolMessages)
    .innerJoin(messages, eq(messages.id, protocolMessages.messageId))
    .where(and(eq(protocolMessages.messageId, messageId), eq(protocolMessages.mailboxId, mailboxId)))
    .limit(1);
  return row;
}

/** The payload of protocol.response.created (spec section 6). */
export const responseEventPayload = (r: Omit<ProtocolResponseRow, "deliveryId">) => ({
  id: r.id,
  protocol_message_id: r.protocolMessageId,
  body: r.body,
  structured_data: r.structuredData,
  delivery_mode: r.deliveryMode,
  status: r.status,
});
