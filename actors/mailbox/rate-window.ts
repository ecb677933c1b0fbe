import type { RateDecision } from "../../src/domain/rate-limit.ts";

export type { RateDecision };

/**
 * An exact sliding-window log: the timestamps of the admitted calls still in the window, in a ring.
 * A call is admitted when fewer than `limit` calls fall inside the window, that is, when the
 * oldest of the last `limit` calls is at least `windowMs` old. O(1) per call, 8 bytes a slot.
 */
export class SlidingWindow {
  private ring: Float64Array;
  private head = 0; // index of the oldest entry
  private size = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {
    // Grown on demand: most keys never come near a large limit.
    this.ring = new Float64Array(Math.min(limit, 64));
  }

  /** `now` must come from a monotonic clock (performance.now), so the ring stays in time order. */
  take(now: number): RateDecision {
    const used = this.prune(now - this.windowMs);
    if (used >= this.limit) {
      return { allowed: false, limit: this.limit, remaining: 0, resetInMs: this.resetIn(now) };
    }
    if (this.size === this.ring.length) this.grow();
    this.ring[(this.head + this.size) % this.ring.length] = now;
    this.size++;
    return { allowed: true, limit: this.limit, remaining: this.limit - this.size, resetInMs: this.resetIn(now) };
  }

  /** Counts a call made at `at` (rebuilding a window from history, oldest first), limit or not. */
  record(at: number): void {
    if (this.size === this.limit) {
      this.head = (this.head + 1) % this.ring.length;
      this.size--;
    }
    if (this.size === this.ring.length) this.grow();
    this.ring[(this.head + this.size) % this.ring.length] = at;
    this.size++;
  }

  /**
   * Until the oldest counted call leaves the window, from its age: `oldest + windowMs - now` can come
   * out an ulp above windowMs (123.456 + 2000 - 123.456 = 2000.0000000000002), and the callers'
   * ceil() to whole seconds then reports a second more than the window.
   */
  private resetIn(now: number): number {
    return this.windowMs - (now - this.ring[this.head]!);
  }

  /** True when no counted call is still inside the window: nothing would be lost by dropping it. */
  isIdle(now: number): boolean {
    return this.prune(now - this.windowMs) === 0;
  }

  /** Drops the calls at or before `since` (they left the window); returns how many remain. */
  private prune(since: number): number {
    while (this.size > 0 && this.ring[this.head]! <= since) {
      this.head = (this.head + 1) % this.ring.length;
      this.size--;
    }
    return this.size;
  }

  private grow(): void {
    const next = new Float64Array(Math.min(this.limit, this.ring.length * 2));
    for (let i = 0; i < this.size; i++) next[i] = this.ring[(this.head + i) % this.ring.length]!;
    this.ring = next;
    this.head = 0;
  }
}
