import { eventFrame, gapFrame, type StoredEvent } from "./frames.ts";

/** What a tail reads with: the stored events after a number, and the mailbox's latest number. */
export interface TailSource {
  eventsAfter(after: number, limit: number): Promise<StoredEvent[]>;
  latestSeq(): Promise<number>;
}

/** What a tail keeps at most: the events a slow stream has not taken yet are read again by it. */
export const TAIL_LIMITS = { entries: 500, bytes: 1 << 20 };

/** An event as a stream is sent it. */
export interface Entry {
  seq: number;
  frame: Uint8Array;
}

/** When a read is recent enough for a stream: begun after wake number `gen`, and not before `at` (ms). */
export interface Freshness {
  gen: number;
  at: number;
}

const encoder = new TextEncoder();

export const entryOf = (e: StoredEvent): Entry => ({ seq: e.seq, frame: encoder.encode(eventFrame(e)) });

/**
 * A page of the stored events after `after`, and the number it takes a reader to: the last
 * event's, or, when nothing is stored after `after` but the mailbox's counter is past it, the
 * counter's (the rows in between were deleted by retention). Before taking the counter's, the
 * events are read again, so that one committed between the two reads is not taken for deleted.
 */
export async function readPage(source: TailSource, after: number, limit: number): Promise<{ rows: StoredEvent[]; upTo: number }> {
  let rows = await source.eventsAfter(after, limit);
  if (rows.length === 0) {
    const last = await source.latestSeq();
    if (last <= after) return { rows, upTo: after };
    rows = await source.eventsAfter(after, limit);
    if (rows.length === 0) return { rows, upTo: last };
  }
  return { rows, upTo: rows[rows.length - 1]!.seq };
}

/**
 * The frames that take a stream from `cursor` through `entries` (from index `start`, in
 * order) to `upTo`: each event once, and a gap frame for every run of numbers with no stored
 * event (deleted), among them those up to `upTo` past the last event.
 */
export function framesFrom(cursor: number, entries: readonly Entry[], start: number, upTo: number): { frames: Uint8Array[]; cursor: number } {
  const frames: Uint8Array[] = [];
  let at = cursor;
  for (let i = start; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.seq <= at) continue; // never send one twice
    if (e.seq > at + 1) frames.push(encoder.encode(gapFrame(at + 1, e.seq - 1)));
    frames.push(e.frame);
    at = e.seq;
  }
  if (upTo > at) {
    frames.push(encoder.encode(gapFrame(at + 1, upTo)));
    at = upTo;
  }
  return { frames, cursor: at };
}

/**
 * The newest events of one mailbox, read once for every stream of it on this node.
 *
 * Each commit of a mailbox's events wakes all of its open streams, and each used to read the
 * outbox by itself: one query per stream per commit (and per poll), so a key holder that kept
 * a thousand streams open on one mailbox made every message cost the database a thousand
 * reads. A stream whose cursor the tail covers asks it instead; the wakes of one commit are
 * answered by one read, and the polls of all streams by about one a second. The frames are
 * built and encoded once too, and handed to every stream as the same bytes.
 *
 * Invariant: every stored event numbered in (floor, upTo] is in `entries`, in order; a number
 * in that range with no entry was deleted (retention), as the outbox commits a mailbox's
 * numbers densely and in order. Streams further behind (a replay, a slow client the window
 * moved past) read for themselves, as before, until they catch up with it.
 */
export class EventTail {
  private entries: Entry[] = [];
  private bytes = 0;
  /** Unset until the first stream places the tail at its cursor. */
  private floor = -1;
  private upTo = -1;
  /** Bumped on every wake: a read begun at or after a wake's number sees what woke it. */
  private gen = 0;
  private done: Freshness = { gen: -1, at: -Infinity };
  /** The last read filled a page: there may be more stored already. */
  private more = false;
  private reading: { promise: Promise<void> } | null = null;
  /** Reads from the database so far (for tests). */
  reads = 0;

  constructor(
    private readonly source: TailSource,
    private readonly pageSize: number,
    private readonly limits = TAIL_LIMITS,
  ) {}

  /** Something committed: reads begun from now on see it. */
  woken(): void {
    this.gen++;
  }

  /** What a stream woken now needs: a read begun after the wakes so far. */
  get sinceWake(): Freshness {
    return { gen: this.gen, at: -Infinity };
  }

  /** What a poll needs: a read begun within the last `ms`. */
  recentWithin(ms: number): Freshness {
    return { gen: -Infinity, at: performance.now() - ms };
  }

  /**
   * Whether the tail serves a stream at `cursor`. The first stream to ask places it at its
   * cursor, and so does a stream more than a page ahead of it: the tail follows the newest
   * events, and a stream that replays from far back reads for itself rather than walking the
   * tail through the history a page at a time. A stream less than a page ahead (one that read
   * past it alone) has the tail read up to it, which keeps the window the others are in.
   */
  covers(cursor: number): boolean {
    if (this.floor < 0 || cursor > this.upTo + this.pageSize) this.place(cursor);
    return cursor >= this.floor;
  }

  private place(cursor: number): void {
    this.entries = [];
    this.bytes = 0;
    this.floor = this.upTo = cursor;
    this.more = false;
    this.done = { gen: -1, at: -Infinity };
  }

  /**
   * The frames after `cursor` once a read as fresh as `need` has been made, and the cursor they
   * take the stream to; null when the tail no longer covers the cursor (the stream reads for
   * itself). `more`: there may be more to send at once. A failed read rejects every stream
   * that waited on it, which ends them as a failed read of their own did.
   */
  async after(cursor: number, need: Freshness): Promise<{ frames: Uint8Array[]; cursor: number; more: boolean } | null> {
    const enough = (f: Freshness) => f.gen >= need.gen && f.at >= need.at;
    // A read is due unless one as fresh has been made, the stream has not taken all the tail
    // holds while the last read left more in the database, and the stream is not ahead of it.
    let readHere = false;
    while (!enough(this.done) || (this.more && cursor >= this.upTo) || cursor > this.upTo) {
      const current = this.reading;
      if (current) {
        await current.promise; // whenever it began: then look again
        continue;
      }
      // Read (by this call) up to the database's newest and still behind the stream: nothing
      // stored lies between them (a cursor the mailbox's counter gave), so the tail can stand
      // where the stream does.
      if (readHere && cursor > this.upTo && enough(this.done) && !this.more) {
        const done = this.done;
        this.place(cursor);
        this.done = done;
        break;
      }
      readHere = true;
      const promise: Promise<void> = this.readOnce({ gen: this.gen, at: performance.now() }).finally(() => {
        if (this.reading?.promise === promise) this.reading = null;
      });
      this.reading = { promise };
      await promise;
    }
    if (cursor < this.floor) return null;
    return { ...framesFrom(cursor, this.entries, this.firstAfter(cursor), this.upTo), more: this.more };
  }

  private async readOnce(started: Freshness): Promise<void> {
    this.reads++;
    const { rows, upTo } = await readPage(this.source, this.upTo, this.pageSize);
    for (const row of rows) {
      if (row.seq <= this.upTo) continue; // a stream placed the tail further on meanwhile
      const entry = entryOf(row);
      this.entries.push(entry);
      this.bytes += entry.frame.byteLength;
      this.upTo = row.seq;
    }
    // Past the last event when the rows up to the counter were deleted (compared, as above).
    if (upTo > this.upTo) this.upTo = upTo;
    this.more = rows.length >= this.pageSize;
    // The window: the newest events, within bounds, and always the newest one.
    let drop = 0;
    while (this.entries.length - drop > 1 && (this.entries.length - drop > this.limits.entries || this.bytes > this.limits.bytes)) {
      this.bytes -= this.entries[drop]!.frame.byteLength;
      drop++;
    }
    if (drop > 0) {
      this.floor = this.entries[drop - 1]!.seq;
      this.entries = this.entries.slice(drop);
    }
    if (started.gen >= this.done.gen && started.at >= this.done.at) this.done = started;
  }

  /** The index of the first entry numbered after `cursor`. */
  private firstAfter(cursor: number): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid]!.seq <= cursor) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
