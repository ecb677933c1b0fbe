/** The answer of a rate window to one call (actors/mailbox/rate-window.ts keeps the windows). */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the oldest counted call leaves the window (a slot frees up). */
  resetInMs: number;
}
