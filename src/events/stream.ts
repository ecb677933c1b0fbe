import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { Compiled, slot } from "../../db/compiled.ts";
import { mailboxEventCounters, outbox } from "../../db/schema/index.ts";
import type { Logger } from "../log.ts";
import type { EventFeed } from "./feed.ts";

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
} as const;

export const STREAM_DEFAULTS = {
  /** Rows read per query while replaying. */
  pageSize: 500,
  /** Fallback poll, in case a notification was missed. */
  pollMs: 2_000,
  /** A comment line after this long without a write (Bun.serve's idleTimeout is 60 s). */
  keepAliveMs: 15_000,
  /** The reconnection delay the client is told (`retry:`). */
  retryMs: 2_000,
};

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

/** The last event number handed out for the mailbox; 0 when it has had none. */
export async function latestEventSeq(db: Db, mailboxId: string): Promise<number> {
  const [row] = await db.select({ last: mailboxEventCounters.lastSeq }).from(mailboxEventCounters).where(eq(mailboxEventCounters.mailboxId, mailboxId)).limit(1);
  return Number(row?.last ?? 0);
}

/** The read of every stream's every wake-up: built once (db/compiled.ts). */
const EVENTS_AFTER = new Compiled<{ mailboxId: string; after: number; limit: number }, { seq: number | null; topic: string; payloadJson: string; createdAt: Date }[]>((db) =>
  db
    .select({ seq: outbox.mailboxSeq, topic: outbox.topic, payloadJson: sql<string>`${outbox.payload}::text`, createdAt: outbox.createdAt })
    .from(outbox)
    .where(and(eq(outbox.kind, "event"), eq(outbox.mailboxId, slot<string>("mailboxId")), gt(outbox.mailboxSeq, slot<number>("after"))))
    .orderBy(asc(outbox.mailboxSeq))
    .limit(slot<number>("limit")),
);

/** Up to `limit` stored events of the mailbox after `after`, in order. */
export async function eventsAfter(db: Db, mailboxId: string, after: number, limit: number): Promise<StoredEvent[]> {
  const rows = await EVENTS_AFTER.run(db, { mailboxId, after, limit });
  return rows.map((r) => ({ seq: Number(r.seq), topic: r.topic, payloadJson: r.payloadJson, createdAt: r.createdAt }));
}

export interface EventStreamOptions {
  db: Db;
  feed: EventFeed;
  /** Canonical (lower-case) mailbox id. */
  mailboxId: string;
  /** The resume point: events with a greater number are sent. */
  after: number;
  /** Aborted when the client goes away (the request's signal). */
  signal?: AbortSignal;
  log?: Logger;
  pageSize?: number;
  pollMs?: number;
  keepAliveMs?: number;
  retryMs?: number;
}

/**
 * The SSE body of one mailbox's events after `after`: the stored ones first, a page per
 * read, then new ones as they commit (woken by the feed, or by the fallback poll).
 *
 * Numbers are dense and commit in order (the outbox trigger holds the mailbox's counter row
 * until commit), so reading `mailbox_seq > cursor` in order never skips or repeats an event;
 * a hole in the numbers can only be rows deleted by retention, and is reported as a `gap`
 * event before what follows it. The body is pulled: nothing is read from the database while
 * the client has not taken the previous chunk.
 */
export function openEventStream(opts: EventStreamOptions): ReadableStream<Uint8Array> {
  const { db, feed, mailboxId, signal, log } = opts;
  const pageSize = opts.pageSize ?? STREAM_DEFAULTS.pageSize;
  const pollMs = opts.pollMs ?? STREAM_DEFAULTS.pollMs;
  const keepAliveMs = opts.keepAliveMs ?? STREAM_DEFAULTS.keepAliveMs;
  const retryMs = opts.retryMs ?? STREAM_DEFAULTS.retryMs;
  const encoder = new TextEncoder();

  let cursor = opts.after;
  let closed = false;
  /** Something may have committed since the last read. */
  let dirty = true;
  let lastRead = 0;
  let lastWrite = Date.now();
  let waiter: (() => void) | undefined;
  let unsubscribe: () => void = () => {};
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;

  const wakeUp = () => {
    const w = waiter;
    waiter = undefined;
    w?.();
  };
  const wake = () => {
    dirty = true;
    wakeUp();
  };
  const finish = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    signal?.removeEventListener("abort", finish);
    try {
      controller?.close(); // what is queued still goes out first
    } catch {
      // already closed or cancelled
    }
    wakeUp();
  };
  const write = (c: ReadableStreamDefaultController<Uint8Array>, text: string) => {
    c.enqueue(encoder.encode(text));
    lastWrite = Date.now();
  };

  /** The frames of what is new after the cursor (advancing it), or "" when there is nothing. */
  const readMore = async (): Promise<string> => {
    let rows = await eventsAfter(db, mailboxId, cursor, pageSize);
    if (rows.length === 0) {
      // Nothing stored after the cursor. If the counter is past it anyway, the rows in between
      // were deleted (retention); read again after the counter, so that an event committed
      // between the two reads is not mistaken for a deleted one.
      const last = await latestEventSeq(db, mailboxId);
      if (last <= cursor) return "";
      rows = await eventsAfter(db, mailboxId, cursor, pageSize);
      if (rows.length === 0) {
        const gap = gapFrame(cursor + 1, last);
        cursor = last;
        return gap;
      }
    }
    if (rows.length === pageSize) dirty = true; // more to replay: read again without waiting
    let out = "";
    for (const row of rows) {
      if (row.seq <= cursor) continue; // cannot happen (the query says >), but never send one twice
      if (row.seq > cursor + 1) out += gapFrame(cursor + 1, row.seq - 1);
      out += eventFrame(row);
      cursor = row.seq;
    }
    return out;
  };

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      write(c, `retry: ${retryMs}\n\n`);
      unsubscribe = feed.subscribe(mailboxId, wake, finish);
      if (signal?.aborted) finish();
      else signal?.addEventListener("abort", finish, { once: true });
    },
    async pull(c) {
      while (!closed) {
        if (dirty || Date.now() - lastRead >= pollMs) {
          dirty = false;
          lastRead = Date.now();
          let text: string;
          try {
            text = await readMore();
          } catch (err) {
            // The client reconnects (after `retry`) and resumes from the last id it got.
            if (!closed) log?.warn({ err, mailboxId }, "event stream read failed; closing the stream");
            finish();
            return;
          }
          if (closed) return;
          if (text) return write(c, text);
        }
        const now = Date.now();
        if (now - lastWrite >= keepAliveMs) return write(c, ": keep-alive\n\n");
        if (dirty) continue; // woken while reading
        const delay = Math.max(0, Math.min(lastRead + pollMs, lastWrite + keepAliveMs) - now);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, delay);
          function done() {
            clearTimeout(timer);
            if (waiter === done) waiter = undefined;
            resolve();
          }
          waiter = done;
        });
      }
    },
    cancel() {
      finish();
    },
  });
}
