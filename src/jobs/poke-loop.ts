/**
 * A drain that runs when poked and on a poll, never twice at once: a poke that arrives while
 * it runs makes it run once more afterwards, so nothing poked is missed and pokes coalesce.
 * The job runner, the event relay and the local webhook queue all work this way.
 */
export class PokeLoop {
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private gap: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly drain: () => Promise<void>,
    private readonly onError: (err: unknown) => void,
    /**
     * A run poked while the previous one ran starts this long after it (0: at once), so a
     * stream of pokes makes one run per gap rather than one per poke; a poke when idle still
     * runs at once.
     */
    private readonly gapMs = 0,
  ) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  start(pollMs: number): void {
    this.timer = setInterval(() => this.poke(), pollMs);
    this.timer.unref?.();
    this.poke();
  }

  poke(): void {
    if (this.stopped || this.gap) return; // a run is already due when the gap ends
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch(this.onError)
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          if (this.gapMs <= 0) return this.poke();
          this.gap = setTimeout(() => {
            this.gap = undefined;
            this.poke();
          }, this.gapMs);
        }
      });
  }

  /** No more runs; resolves when the current one has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.gap) clearTimeout(this.gap);
    this.gap = undefined;
    await this.running;
  }
}
