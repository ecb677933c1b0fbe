/**
 * The forwarded asks an owner ran or runs, by ask id, so that a retry of one (the forwarder
 * heard nothing in time and sent it again, or a stalled owner reads the first attempt and
 * its retries together) gets that ask's one outcome instead of running it a second time.
 *
 * Running asks are kept until they settle, however long that takes; a settled outcome is
 * kept at least `keepMs` and at most twice that: two generations of maps, the older dropped
 * whole when the newer has been filling for `keepMs` (no per-entry expiry to scan).
 */
export class AskMemory {
  /** Asks running here, with the attempts that came meanwhile (answered when it settles). */
  private readonly running = new Map<string, ((frame: string) => void)[]>();
  private recent = new Map<string, string>();
  private older = new Map<string, string>();
  private since: number;

  constructor(
    private readonly keepMs: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {
    this.since = now();
  }

  /**
   * An attempt of ask `id`: if the ask ran or runs here, `answer` gets its outcome (at once,
   * or when it settles) and true is returned; otherwise it is now running here (call `settle`).
   */
  attempt(id: string, answer: (frame: string) => void): boolean {
    const waiting = this.running.get(id);
    if (waiting) {
      waiting.push(answer);
      return true;
    }
    this.rotate();
    const frame = this.recent.get(id) ?? this.older.get(id);
    if (frame !== undefined) {
      answer(frame);
      return true;
    }
    this.running.set(id, []);
    return false;
  }

  /** The ask's outcome, for the attempts that wait and later ones; `kept` false (it ran nothing): a later attempt runs it. */
  settle(id: string, frame: string, kept: boolean): void {
    const waiting = this.running.get(id) ?? [];
    this.running.delete(id);
    if (kept) {
      this.rotate();
      this.recent.set(id, frame);
    }
    for (const answer of waiting) answer(frame);
  }

  get size(): number {
    return this.running.size + this.recent.size + this.older.size;
  }

  private rotate(): void {
    const now = this.now();
    if (now - this.since < this.keepMs) return;
    this.older = now - this.since < 2 * this.keepMs ? this.recent : new Map();
    this.recent = new Map();
    this.since = now;
  }
}
