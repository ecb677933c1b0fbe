import { and, desc, eq, getTableColumns, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { webhookAttempts, webhookDeliveries, type WebhookAttemptRow } from "../../db/schema/index.ts";
import { notFound } from "../errors.ts";
import type { NatsNames } from "../cluster/nats-names.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { Logger } from "../log.ts";
import type { Lookup } from "../net/ssrf.ts";
import { WebhookEndpoints } from "./endpoints.ts";
import { DeliveryExecutor } from "./executor.ts";
import { LocalDeliveryQueue } from "./local-queue.ts";
import { ackWaitFor, DUPLICATE_WINDOW_MS, NatsTransport } from "./nats-transport.ts";
import { AttemptRecorder } from "./recorder.ts";
import { EventRelay, type NewDelivery } from "./relay.ts";
import { Sweeper } from "./sweeper.ts";

export interface WebhookSettings {
  natsUrl: string | undefined;
  natsNames: NatsNames;
  /** Seals and opens every stored signing secret. */
  secrets: SecretBox;
  nodeId: string;
  retryDelaysSeconds: number[];
  timeoutMs: number;
  concurrency: number;
  /** Every event fans out to each subscribed endpoint of its mailbox: this bounds that fan-out. */
  maxEndpointsPerMailbox: number;
  allowPrivateTargets: boolean;
  sweepSeconds: number;
  eventRetentionDays: number;
  pollMs: number;
  /** Replaces the system resolver for webhook targets (tests). */
  lookup?: Lookup;
}

/**
 * Events to webhooks: outbox → relay → deliveries → transport (JetStream, or the database
 * itself without NATS) → signed attempts → recorded history. See README "Events and webhooks".
 */
export class WebhookSystem {
  readonly endpoints: WebhookEndpoints;
  readonly secrets: SecretBox;

  private constructor(
    private readonly db: Db,
    private readonly executor: DeliveryExecutor,
    private readonly recorder: AttemptRecorder,
    private readonly relay: EventRelay,
    private readonly transport: { kind: "nats"; nats: NatsTransport } | { kind: "local"; queue: LocalDeliveryQueue },
    private readonly sweeper: Sweeper,
    settings: WebhookSettings,
  ) {
    this.secrets = settings.secrets;
    this.endpoints = new WebhookEndpoints(db, settings.secrets, { allowPrivate: settings.allowPrivateTargets, lookup: settings.lookup }, settings.maxEndpointsPerMailbox);
  }

  static async start(db: Db, settings: WebhookSettings, log: Logger): Promise<WebhookSystem> {
    const recorder = new AttemptRecorder(db, settings.retryDelaysSeconds);
    const executor = new DeliveryExecutor(db, recorder, settings.secrets, { timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivateTargets, lookup: settings.lookup });
    let transport: { kind: "nats"; nats: NatsTransport } | { kind: "local"; queue: LocalDeliveryQueue };
    if (settings.natsUrl) {
      const nats = await NatsTransport.open(db, executor, log, { natsUrl: settings.natsUrl, names: settings.natsNames, nodeId: settings.nodeId, concurrency: settings.concurrency, attemptTimeoutMs: settings.timeoutMs });
      transport = { kind: "nats", nats };
    } else {
      transport = { kind: "local", queue: new LocalDeliveryQueue(db, executor, log, { concurrency: settings.concurrency, pollMs: settings.pollMs, attemptTimeoutMs: settings.timeoutMs }) };
    }
    const handOver = (deliveries: NewDelivery[]) =>
      transport.kind === "nats" ? transport.nats.publish(deliveries.map((d) => d.id)) : transport.queue.poke();
    const relay = new EventRelay(db, handOver, log, settings.pollMs);
    const ackWaitMs = ackWaitFor(settings.timeoutMs);
    const sweeper = new Sweeper(db, log, {
      intervalMs: settings.sweepSeconds * 1000,
      eventRetentionDays: settings.eventRetentionDays,
      republish: transport.kind === "nats" ? (ids) => transport.nats.publish(ids) : undefined,
      overdueMs: ackWaitMs + DUPLICATE_WINDOW_MS + 30_000,
    });
    const system = new WebhookSystem(db, executor, recorder, relay, transport, sweeper, settings);
    if (transport.kind === "nats") transport.nats.start();
    else transport.queue.start();
    relay.start();
    sweeper.start();
    return system;
  }

  /** JetStream's backlog of deliveries; null in-process, where the database is the queue. */
  async jetstreamBacklog(): Promise<{ pending: number; ackPending: number } | null> {
    return this.transport.kind === "nats" ? this.transport.nats.backlog() : null;
  }

  get mode(): "nats" | "in-process" {
    return this.transport.kind === "nats" ? "nats" : "in-process";
  }

  /**
   * Fan out now: events that an endpoint subscribes to were committed. The service calls it on
   * every relay notification (src/events/feed.ts), so whichever node is free fans them out at
   * once; the relay's poll covers a lost notification.
   */
  poke(): void {
    this.relay.poke();
  }

  /** Deliveries committed outside the relay (protocol callbacks, runtime messages): send them now. */
  handOver(ids: string[]): void {
    if (ids.length === 0) return;
    // A failed publish is not lost: the sweeper publishes what was committed but never published.
    if (this.transport.kind === "nats") this.transport.nats.publish(ids).catch(() => undefined);
    else this.transport.queue.poke();
  }

  /**
   * The attempts, newest first, each with what its delivery sent: the event, the request body
   * (its first 16 KiB: a page of 100 attempts stays small) and the delivery's state.
   */
  async history(endpointId: string, limit: number): Promise<(WebhookAttemptRow & { event: string | null; requestBody: string | null; deliveryStatus: string | null })[]> {
    await this.endpoints.get(endpointId);
    return this.db
      .select({
        ...getTableColumns(webhookAttempts),
        event: webhookDeliveries.event,
        requestBody: sql<string | null>`left(${webhookDeliveries.body}, 16384)`,
        deliveryStatus: webhookDeliveries.state,
      })
      .from(webhookAttempts)
      .leftJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
      .where(eq(webhookAttempts.endpointId, endpointId))
      .orderBy(desc(webhookAttempts.finishedAt), desc(webhookAttempts.attempt))
      .limit(limit);
  }

  /** Sends a delivery again now, as a new attempt, and returns that attempt. */
  async replay(endpointId: string, deliveryId: string): Promise<WebhookAttemptRow> {
    const [delivery] = await this.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpointId)))
      .limit(1);
    if (!delivery) throw notFound("webhook delivery", deliveryId);
    const replayed = await this.executor.replay(deliveryId);
    if (!replayed?.recorded) throw notFound("webhook delivery", deliveryId);
    const [attempt] = await this.db
      .select()
      .from(webhookAttempts)
      .where(and(eq(webhookAttempts.deliveryId, deliveryId), eq(webhookAttempts.attempt, replayed.recorded.attempt)))
      .limit(1);
    return attempt!;
  }

  /** Puts failed deliveries (since `since`) on a fresh retry schedule; returns how many. */
  async replayFailed(endpointId: string, since: Date | undefined): Promise<number> {
    const ids = await this.endpoints.reopenFailed(endpointId, since);
    if (this.transport.kind === "nats") await this.transport.nats.publish(ids, `replay-${Date.now()}`);
    else this.transport.queue.poke();
    return ids.length;
  }

  /** Test and tool hook: one sweep now. */
  sweep() {
    return this.sweeper.sweep();
  }

  async stop(): Promise<void> {
    await this.relay.stop();
    await this.sweeper.stop();
    if (this.transport.kind === "nats") await this.transport.nats.stop();
    else await this.transport.queue.stop();
    await this.recorder.idle();
  }
}
