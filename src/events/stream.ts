import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { Compiled, slot } from "../../db/compiled.ts";
import { mailboxEventCounters, outbox } from "../../db/schema/index.ts";
import type { Logger } from "../log.ts";
import type { EventFeed } from "./feed.ts";
import type { StoredEvent } from "./frames.ts";
import { EventTail, entryOf, framesFrom, readPage, type TailSource } from "./tail.ts";

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
  const source: TailSource = { eventsAfter: (after, limit) => eventsAfter(db, mailboxId, after, limit), latestSeq: () => latestEventSeq(db, mailboxId) };
  /** The reads this stream shares with the mailbox's other streams on this node. */
  let tail: { value: EventTail; release(): void } | undefined;

  const wakeUp = () => {
    const w = waiter;
    waiter = undefined;
    w?.();
  };
  const wake = () => {
    dirty = true;
    tail?.value.woken();
    wakeUp();
  };
  const finish = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    tail?.release();
    signal?.removeEventListener("abort", finish);
    try {
      controller?.close(); // what is queued still goes out first
    } catch {
      // already closed or cancelled
    }
    wakeUp();
  };
  const write = (c: ReadableStreamDefaultController<Uint8Array>, chunk: string | Uint8Array) => {
    c.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
    lastWrite = Date.now();
  };

  /**
   * The frames of what is new after the cursor (advancing it), empty when there is nothing:
   * from the mailbox's shared tail while it covers the cursor, else a page read by this stream
   * alone (a replay, or a stream the tail's window has moved past). `polled`: no wake asked for it.
   */
  const readMore = async (polled: boolean): Promise<Uint8Array> => {
    const shared = tail?.value;
    let got = shared?.covers(cursor) ? await shared.after(cursor, polled ? shared.recentWithin(pollMs / 2) : shared.sinceWake) : null;
    if (!got) {
      const page = await readPage(source, cursor, pageSize);
      got = { ...framesFrom(cursor, page.rows.map(entryOf), 0, page.upTo), more: page.rows.length === pageSize };
    }
    if (got.more) dirty = true; // more to send: read again without waiting
    cursor = got.cursor;
    return got.frames.length === 1 ? got.frames[0]! : Buffer.concat(got.frames);
  };

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      write(c, `retry: ${retryMs}\n\n`);
      tail = feed.share(mailboxId, () => new EventTail(source, pageSize));
      unsubscribe = feed.subscribe(mailboxId, wake, finish);
      if (signal?.aborted) finish();
      else signal?.addEventListener("abort", finish, { once: true });
    },
    async pull(c) {
      while (!closed) {
        if (dirty || Date.now() - lastRead >= pollMs) {
          const polled = !dirty;
          dirty = false;
          lastRead = Date.now();
          let bytes: Uint8Array;
          try {
            bytes = await readMore(polled);
          } catch (err) {
            // The client reconnects (after `retry`) and resumes from the last id it got.
            if (!closed) log?.warn({ err, mailboxId }, "event stream read failed; closing the stream");
            finish();
            return;
          }
          if (closed) return;
          if (bytes.byteLength > 0) return write(c, bytes);
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
