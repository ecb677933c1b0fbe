import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType, type ConsumerMessages, type JetStreamClient, type JsMsg } from "@nats-io/jetstream";
import { connect, nanos, type NatsConnection } from "@nats-io/transport-node";
import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { webhookDeliveries } from "../../db/schema/index.ts";
import { isUuid } from "../domain/ids.ts";
import { isPermanent, reasonOf } from "../jobs/failure.ts";
import { LEGACY_WEBHOOK_STREAM, type NatsNames } from "../cluster/nats-names.ts";
import type { Logger } from "../log.ts";
import type { DeliveryExecutor } from "./executor.ts";

/** Same delivery id published twice within this window is stored once. */
export const DUPLICATE_WINDOW_MS = 2 * 60_000;
/**
 * Far above any delivery's schedule (WEBHOOK_RETRY_DELAYS, early duplicates): a message
 * delivered this often whose attempts still cannot be recorded is stuck, not unlucky.
 */
const MAX_DELIVERIES = 100;
/** A message not acked by then goes to another node; in-progress heartbeats keep a slow attempt's. */
const HEARTBEAT_MS = 5_000;

export interface NatsTransportOptions {
  natsUrl: string;
  nodeId: string;
  /** This deployment's stream, subject and consumer (see src/cluster/nats-names.ts). */
  names: NatsNames;
  /** Attempts in flight on this node. */
  concurrency: number;
  /** The HTTP deadline of one attempt; the ack wait is well above it. */
  attemptTimeoutMs: number;
  /** Deliveries of one message, all causes, after which an attempt that cannot be recorded is terminated. */
  maxDeliveries?: number;
}

/**
 * The transport across nodes: a work-queue stream (file storage) with one durable pull
 * consumer that every node reads from, so each delivery goes to one node at a time. A failed
 * attempt is scheduled by nak-with-delay, so no worker sleeps on a retry. PostgreSQL stays
 * the record: a message only carries a delivery id, and the sweeper re-publishes what the
 * stream may have lost.
 */
export class NatsTransport {
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly db: Db,
    private readonly executor: DeliveryExecutor,
    private readonly log: Logger,
    private readonly opts: NatsTransportOptions,
  ) {}

  /** Connects and creates or updates the stream and the consumer (idempotent: every node does it at start). */
  static async open(db: Db, executor: DeliveryExecutor, log: Logger, opts: NatsTransportOptions): Promise<NatsTransport> {
    const nc = await connect({ servers: opts.natsUrl, name: `mailroom-webhooks-${opts.nodeId}`, maxReconnectAttempts: -1 });
    try {
      const { webhookStream: STREAM, webhookSubject: SUBJECT, webhookConsumer: CONSUMER } = opts.names;
      const jsm = await jetstreamManager(nc);
      const stream = { subjects: [SUBJECT], retention: RetentionPolicy.Workqueue, storage: StorageType.File, duplicate_window: nanos(DUPLICATE_WINDOW_MS) };
      try {
        await jsm.streams.info(STREAM);
        await jsm.streams.update(STREAM, stream);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        await jsm.streams.add({ name: STREAM, ...stream }).catch((e) => {
          if (String(e).includes("already in use")) return; // another node created it between our look and our add
          if (/overlap/i.test(String(e))) {
            throw new Error(`NATS subject ${SUBJECT} already belongs to another stream (the ${LEGACY_WEBHOOK_STREAM} stream of a version before NATS_PREFIX, or another deployment's): choose another NATS_PREFIX`, { cause: e });
          }
          throw e;
        });
        // A new stream holds none of what was published before (an upgrade from the shared
        // stream, or a NATS that lost its state): the sweeper publishes every pending delivery again.
        await db.update(webhookDeliveries).set({ publishedAt: null }).where(and(eq(webhookDeliveries.state, "pending"), isNotNull(webhookDeliveries.publishedAt)));
        log.info({ stream: STREAM }, "created the webhook stream; pending deliveries will be published to it");
      }
      const consumer = {
        ack_policy: AckPolicy.Explicit,
        ack_wait: nanos(ackWaitFor(opts.attemptTimeoutMs)),
        max_deliver: -1,
        max_ack_pending: 10_000,
        filter_subject: SUBJECT,
      };
      try {
        await jsm.consumers.info(STREAM, CONSUMER);
        await jsm.consumers.update(STREAM, CONSUMER, consumer);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        await jsm.consumers.add(STREAM, { durable_name: CONSUMER, deliver_policy: DeliverPolicy.All, ...consumer }).catch(async (e) => {
          // Another node created it between our look and our add.
          if (!String(e).includes("already")) throw e;
        });
      }
      return new NatsTransport(nc, jetstream(nc), db, executor, log, opts);
    } catch (err) {
      await nc.close();
      throw err;
    }
  }

  /**
   * Publishes deliveries and notes which reached the stream. The message id is the delivery
   * id, so a second publish of the same delivery within the duplicate window is dropped by
   * JetStream; a replay that must go out again whatever was published before passes `again`.
   */
  async publish(ids: string[], again?: string): Promise<void> {
    if (ids.length === 0) return;
    const results = await Promise.allSettled(ids.map((id) => this.js.publish(this.opts.names.webhookSubject, id, { msgID: again ? `${id}.${again}` : id })));
    const published = ids.filter((_, i) => results[i]!.status === "fulfilled");
    const failed = results.find((r) => r.status === "rejected") as PromiseRejectedResult | undefined;
    if (failed) this.log.warn({ err: failed.reason, failed: ids.length - published.length }, "could not publish webhook deliveries; the sweeper will");
    if (published.length > 0) {
      await this.db.update(webhookDeliveries).set({ publishedAt: sql`now()` }).where(inArray(webhookDeliveries.id, published));
    }
  }

  /** The consumer's backlog: messages not yet delivered to any node, and delivered but not acknowledged. */
  async backlog(): Promise<{ pending: number; ackPending: number }> {
    const info = await (await this.js.consumers.get(this.opts.names.webhookStream, this.opts.names.webhookConsumer)).info();
    return { pending: info.num_pending, ackPending: info.num_ack_pending };
  }

  start(): void {
    this.loop = this.consume().catch((err) => this.log.error({ err }, "webhook consumer stopped"));
  }

  private async consume(): Promise<void> {
    const consumer = await this.js.consumers.get(this.opts.names.webhookStream, this.opts.names.webhookConsumer);
    this.messages = await consumer.consume({ max_messages: this.opts.concurrency });
    for await (const m of this.messages) {
      const p = this.handle(m).finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    }
  }

  private async handle(m: JsMsg): Promise<void> {
    const id = m.string();
    if (!isUuid(id)) {
      // Not one of our delivery ids: no redelivery can ever make it one.
      this.log.warn({ message: id.slice(0, 100), stream_seq: m.info.streamSequence, deliveries: m.info.deliveryCount }, "a message on the webhook subject is not a delivery id; terminated");
      m.term(); // no reason: nats-server 2.9 ignores a "+TERM" that carries one
      return;
    }
    const heartbeat = setInterval(() => m.working(), HEARTBEAT_MS);
    try {
      const outcome = await this.executor.deliver(id);
      if (outcome.kind === "done") m.ack();
      else m.nak(Math.max(0, outcome.at.getTime() - Date.now()));
    } catch (err) {
      const reason = reasonOf(err);
      if (isPermanent(err) || m.info.deliveryCount >= (this.opts.maxDeliveries ?? MAX_DELIVERIES)) {
        // Off the stream; the row stays the record, and the sweeper re-publishes it while it is pending.
        this.log.error({ delivery_id: id, deliveries: m.info.deliveryCount, reason }, "webhook attempt keeps failing before it is recorded; terminated on the stream");
        m.term();
        return;
      }
      // Not recorded: offer it again soon rather than wait out the ack wait.
      this.log.warn({ delivery_id: id, reason }, "webhook attempt could not be recorded; redelivering");
      m.nak(1000);
    } finally {
      clearInterval(heartbeat);
    }
  }

  async stop(): Promise<void> {
    await this.messages?.close();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
    await this.nc.drain().catch(() => this.nc.close());
  }
}

/** Longer than an attempt can take (its HTTP deadline), so only a dead node's messages time out. */
export const ackWaitFor = (attemptTimeoutMs: number) => Math.max(attemptTimeoutMs * 2, attemptTimeoutMs + 5_000);

const isNotFound = (err: unknown) => /not found/i.test(String((err as Error)?.message ?? err));
