import type { RateDecision } from "../../src/domain/rate-limit.ts";

export type { RateDecision };

/**
 * Slots of one chunk of a large window (64 KiB). A window grows as one ring, doubled on demand,
 * up to this size; past it, a chunk at a time. Doubling a ring of millions of slots allocated and
 * copied them in one call: with API_KEY_RATE_LIMIT at its largest (10,000,000), the call that
 * doubled a hot key's ring to 16M slots held the event loop for 340-360 ms (bench/rate-window.ts;
 * 10-13 ms at most in chunks), and the ring held twice the slots its calls needed.
 */
export const WINDOW_CHUNK = 8192;

/**
 * An exact sliding-window log: the timestamps of the admitted calls still in the window, oldest
 * first. A call is admitted when fewer than `limit` calls fall inside the window, that is, when
 * the oldest of the last `limit` calls is at least `windowMs` old. O(1) per call, 8 bytes a slot;
 * the slots held follow the calls in the window (at most three chunks more), not the limit.
 */
export class SlidingWindow {
  /** Small windows: a ring (grown on demand: most keys never come near a large limit). */
  private ring: Float64Array;
  /** Large windows (set once the ring would outgrow WINDOW_CHUNK): full chunks in order; `head` indexes the first, `tail` counts the last. */
  private chunks: Float64Array[] | undefined;
  /** An emptied chunk kept for the next one needed, so a window sliding at a steady rate allocates nothing. */
  private spare: Float64Array | undefined;
  private head = 0; // index of the oldest entry (in the ring, or in chunks[0])
  private tail = 0; // entries in the last chunk
  private size = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {
    this.ring = new Float64Array(Math.min(limit, 64));
  }

  /** `now` must come from a monotonic clock (performance.now), so the log stays in time order. */
  take(now: number): RateDecision {
    const used = this.prune(now - this.windowMs);
    if (used >= this.limit) {
      return { allowed: false, limit: this.limit, remaining: 0, resetInMs: this.resetIn(now) };
    }
    this.push(now);
    return { allowed: true, limit: this.limit, remaining: this.limit - this.size, resetInMs: this.resetIn(now) };
  }

  /** Counts a call made at `at` (rebuilding a window from history, oldest first), limit or not. */
  record(at: number): void {
    if (this.size === this.limit) this.dropOldest();
    this.push(at);
  }

  /** Slots allocated: what the window costs in memory (8 bytes each). */
  get capacity(): number {
    return this.chunks === undefined ? this.ring.length : this.chunks.length * WINDOW_CHUNK + (this.spare === undefined ? 0 : WINDOW_CHUNK);
  }

  /**
   * Until the oldest counted call leaves the window, from its age: `oldest + windowMs - now` can come
   * out an ulp above windowMs (123.456 + 2000 - 123.456 = 2000.0000000000002), and the callers'
   * ceil() to whole seconds then reports a second more than the window.
   */
  private resetIn(now: number): number {
    return this.windowMs - (now - this.oldest());
  }

  private oldest(): number {
    return this.chunks === undefined ? this.ring[this.head]! : this.chunks[0]![this.head]!;
  }

  /** True when no counted call is still inside the window: nothing would be lost by dropping it. */
  isIdle(now: number): boolean {
    return this.prune(now - this.windowMs) === 0;
  }

  /** Drops the calls at or before `since` (they left the window); returns how many remain. */
  private prune(since: number): number {
    while (this.size > 0 && this.oldest() <= since) this.dropOldest();
    return this.size;
  }

  private push(at: number): void {
    if (this.chunks === undefined && this.size === this.ring.length) this.grow();
    const chunks = this.chunks;
    if (chunks === undefined) {
      this.ring[(this.head + this.size) % this.ring.length] = at;
    } else {
      if (this.tail === WINDOW_CHUNK) {
        chunks.push(this.spare ?? new Float64Array(WINDOW_CHUNK));
        this.spare = undefined;
        this.tail = 0;
      }
      chunks[chunks.length - 1]![this.tail++] = at;
    }
    this.size++;
  }

  private dropOldest(): void {
    this.size--;
    const chunks = this.chunks;
    if (chunks === undefined) {
      this.head = (this.head + 1) % this.ring.length;
      return;
    }
    if (++this.head < WINDOW_CHUNK && this.size > 0) return;
    // The first chunk is used up (or the window is empty): it becomes the spare.
    if (this.size === 0) {
      // Empty: keep one chunk, start it over.
      while (chunks.length > 1) this.spare = chunks.pop();
      this.head = 0;
      this.tail = 0;
      return;
    }
    this.spare = chunks.shift();
    this.head = 0;
  }

  /** The ring is full: twice the slots up to WINDOW_CHUNK (and the limit), else chunks from here on. */
  private grow(): void {
    const length = Math.min(this.limit, this.ring.length * 2);
    const chunked = length > WINDOW_CHUNK;
    const next = new Float64Array(chunked ? WINDOW_CHUNK : length);
    for (let i = 0; i < this.size; i++) next[i] = this.ring[(this.head + i) % this.ring.length]!;
    this.head = 0;
    if (!chunked) {
      this.ring = next;
      return;
    }
    this.chunks = [next];
    this.tail = this.size;
    this.ring = new Float64Array(0);
  }
}
