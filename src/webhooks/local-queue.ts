import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import { PokeLoop } from "../jobs/poke-loop.ts";
import type { Logger } from "../log.ts";
import type { DeliveryExecutor } from "./executor.ts";

/** A claim outlives the attempt it is for (its HTTP deadline) by this much before another node may take it. */
const LEASE_MARGIN_MS = 5_000;

/**
 * The transport without NATS: due deliveries are claimed straight from the database (SKIP
 * LOCKED, with a lease a dead node's claims return from) and attempted here. The schedule is
 * the rows' next_attempt_at; a timer wakes the queue when the earliest retry falls due.
 */
export class LocalDeliveryQueue {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly loop: PokeLoop;
  private wake: { timer: ReturnType<typeof setTimeout>; at: number } | undefined;

  constructor(
    private readonly db: Db,
    private readonly executor: DeliveryExecutor,
    private readonly log: Logger,
    private readonly opts: { concurrency: number; pollMs: number; attemptTimeoutMs: number },
  ) {
    this.loop = new PokeLoop(
      () => this.drain(),
      (err) => this.log.warn({ err }, "webhook queue: claiming deliveries failed"),
    );
  }

  start(): void {
    this.loop.start(this.opts.pollMs);
  }

  poke(): void {
    this.loop.poke();
  }

  async stop(): Promise<void> {
    if (this.wake) clearTimeout(this.wake.timer);
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  private async drain(): Promise<void> {
    while (!this.loop.isStopped) {
      const room = this.opts.concurrency - this.inFlight.size;
      if (room <= 0) return; // a finishing attempt pokes again
      const ids = await this.claim(room);
      for (const id of ids) {
        const p = this.run(id).finally(() => {
          this.inFlight.delete(p);
          this.poke();
        });
        this.inFlight.add(p);
      }
      if (ids.length < room) return;
    }
  }

  private async run(id: string): Promise<void> {
    try {
      const outcome = await this.executor.deliver(id);
      if (outcome.kind !== "done") this.wakeAt(outcome.at);
    } catch (err) {
      // Not recorded: the lease runs out and the delivery is claimed again.
      this.log.warn({ err, delivery_id: id }, "webhook attempt could not be recorded; it will be retried");
    }
  }

  private async claim(limit: number): Promise<string[]> {
    const rows = rowsOf<{ id: string }>(
      await this.db.execute(sql`
        update webhook_deliveries set locked_until = now() + make_interval(secs => ${(this.opts.attemptTimeoutMs + LEASE_MARGIN_MS) / 1000})
        where id in (
          select id from webhook_deliveries
          where state = 'pending' and next_attempt_at <= now() and (locked_until is null or locked_until < now())
          order by next_attempt_at
          limit ${limit}
          for update skip locked)
        returning id`),
    );
    return rows.map((r) => r.id);
  }

  /** Look again when a retry falls due (the poll would find it too, only later). */
  private wakeAt(at: Date): void {
    const when = at.getTime();
    if (this.loop.isStopped || (this.wake && this.wake.at <= when)) return;
    if (this.wake) clearTimeout(this.wake.timer);
    const timer = setTimeout(() => {
      this.wake = undefined;
      this.poke();
    }, Math.max(0, when - Date.now()) + 5);
    timer.unref?.();
    this.wake = { timer, at: when };
  }
}
