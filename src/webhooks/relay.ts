import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import { PokeLoop } from "../jobs/poke-loop.ts";
import type { Logger } from "../log.ts";

export interface NewDelivery {
  id: string;
  endpointId: string;
}

/** Event rows fanned out in one transaction; larger backlogs take several. */
const BATCH = 500;
/** Webhooks wait at most this much longer during a burst of events. */
const RELAY_GAP_MS = 20;

/**
 * Moves committed outbox events to webhook deliveries: claims a batch of undone event rows
 * (SKIP LOCKED, so every node can run a relay), creates one delivery per subscribed enabled
 * endpoint and marks the events done, all in one statement and so one commit. The new
 * deliveries then go to the transport; if this node dies before that, the sweeper finds them
 * (pending, never published) and hands them over. Events that no endpoint subscribed to when
 * they were written are done already (the outbox trigger, migration 0019) and never reach it.
 */
export class EventRelay {
  private readonly loop: PokeLoop;

  constructor(
    private readonly db: Db,
    private readonly onDeliveries: (deliveries: NewDelivery[]) => Promise<void> | void,
    private readonly log: Logger,
    private readonly pollMs = 1000,
  ) {
    this.loop = new PokeLoop(
      () => this.drain(),
      (err) => this.log.warn({ err }, "event relay: fan-out failed; will retry"),
      // Every committed event pokes: during a burst, one fan-out per gap takes all that came.
      RELAY_GAP_MS,
    );
  }

  start(): void {
    this.loop.start(this.pollMs);
  }

  /** New events were committed (a notification, or this node wrote them). */
  poke(): void {
    this.loop.poke();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async drain(): Promise<void> {
    while (!this.loop.isStopped) {
      const { events, deliveries } = await this.fanOut();
      if (deliveries.length > 0) await this.onDeliveries(deliveries);
      if (events < BATCH) return;
    }
  }

  /** One batch: returns how many events it took and the deliveries it created. */
  async fanOut(): Promise<{ events: number; deliveries: NewDelivery[] }> {
    const result = await this.db.execute(sql`
      with ev as (
        select seq, id, topic, mailbox_id, payload from outbox
        where kind = 'event' and done_at is null
        order by seq
        limit ${BATCH}
        for update skip locked
      ), done as (
        update outbox set done_at = now() where seq in (select seq from ev) returning seq
      ), ins as (
        insert into webhook_deliveries (id, endpoint_id, mailbox_id, event_id, event, body, next_attempt_at, created_at)
        select gen_random_uuid(), e.id, ev.mailbox_id, ev.id, ev.topic, ev.payload::text, now(), now()
        from ev join webhook_endpoints e on e.mailbox_id = ev.mailbox_id and e.enabled and ev.topic = any(e.events)
        order by ev.seq, e.id
        on conflict (endpoint_id, event_id) do nothing
        returning id, endpoint_id
      )
      select (select count(*) from done)::int as events, coalesce((select json_agg(json_build_object('id', id, 'endpointId', endpoint_id)) from ins), '[]'::json) as deliveries`);
    const [row] = rowsOf<{ events: number; deliveries: NewDelivery[] | string }>(result);
    const deliveries = typeof row?.deliveries === "string" ? (JSON.parse(row.deliveries) as NewDelivery[]) : (row?.deliveries ?? []);
    return { events: row?.events ?? 0, deliveries };
  }
}
