/** The frames of a mailbox's SSE event stream (src/events/stream.ts, tail.ts). */

export interface StoredEvent {
  seq: number;
  topic: string;
  /** The payload as the database writes jsonb out: JSON text on one line. */
  payloadJson: string;
  createdAt: Date;
}

/**
 * One SSE message: `id`, `event`, and the event as JSON on one `data` line. The payload goes in
 * as the database wrote it: a message's events carry its bodies (tens of KiB), which were
 * parsed into objects only to be serialised again, per event and per stream.
 */
export function eventFrame(e: StoredEvent): string {
  const data = `{"id":${e.seq},"event":${JSON.stringify(e.topic)},"created_at":${JSON.stringify(e.createdAt.toISOString())},"payload":${e.payloadJson}}`;
  return `id: ${e.seq}\nevent: ${e.topic}\ndata: ${data}\n\n`;
}

/** Events `from`..`to` (inclusive) are no longer stored (retention): the reader missed them. */
export const gapFrame = (from: number, to: number): string => `event: gap\ndata: ${JSON.stringify({ from, to })}\n\n`;
