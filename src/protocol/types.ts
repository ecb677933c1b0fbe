/** A protocol message as the sender wrote it, after the HTTP schema (and the callback URL check). */
export interface ProtocolInput {
  from: { agent?: string; onBehalfOf?: string; callbackUrl?: string };
  action?: string;
  parameters?: Record<string, unknown>;
  subject: string;
  body?: string;
  /** The sender's conversation id: messages of one sender with the same id share a thread. */
  threadId?: string;
  priority?: "low" | "normal" | "high" | "urgent";
  metadata?: Record<string, unknown>;
}

/** An answer as the responder wrote it. */
export interface ResponseInput {
  body?: string;
  structuredData?: Record<string, unknown>;
}

/** The action every agent mailbox has that, invoked, sends an email without the agent. */
export const AUTO_SEND_ACTION = "send_message";
