/**
 * The mailbox placement of a node: LocalPlacement without NATS_URL; with it, NatsPlacement
 * over partition leases in the database, the actor's writes fenced by the lease and its
 * call windows made durable (see leases.ts, fence.ts, durable-windows.ts).
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { Db } from "../../db/client.ts";
import { LocalPlacement, NatsPlacement, type ActorSystem, type Placement } from "../../actors/runtime/index.ts";
import type { Logger } from "../log.ts";
import { durableWindows, CallLog, type MailboxDefinition } from "./durable-windows.ts";
import { checkLeaseFence, fencedActor, fencedDb } from "./fence.ts";
import { SharedCommit } from "../../db/shared-commit.ts";
import { PartitionLeases } from "./leases.ts";
import { RemoteReads } from "./remote-reads.ts";
import type { NatsNames } from "./nats-names.ts";
import { mailboxWireCodec } from "../../actors/mailbox/wire.ts";
import "./wire-errors.ts";

export interface MailboxPlacement {
  placement: Placement;
  /** The database the mailbox actor writes through (fenced under NATS). */
  actorDb: Db;
  /** A commit the mailbox actors share (db/shared-commit.ts), fenced like actorDb. */
  sharedCommit(): SharedCommit;
  /** Wraps the mailbox actor's definition for this placement. */
  define(def: MailboxDefinition): MailboxDefinition;
  /** Starts taking leases; call once the actor is registered. */
  start(): Promise<void>;
  /** SIGTERM: hand every mailbox to the other nodes now. */
  handOver(): Promise<void>;
  /** Last: stop the leases and the NATS connection (the actor system is closed by the placement). */
  stop(): Promise<void>;
  /** For tests: this node's lease holder. */
  leases?: PartitionLeases;
}

export interface ClusterOptions {
  natsUrl: string | undefined;
  names: NatsNames;
  nodeId: string;
  leaseMs: number;
  askTimeoutMs: number;
  drainTimeoutMs: number;
  rateLimit: { limit: number; windowMs: number };
  /** How long a node keeps the row of a mailbox another node owns (CACHE_TTL_MS; see remote-reads.ts). */
  remoteReadMs: number;
  log: Logger;
}

export async function mailboxPlacement(db: Db, system: ActorSystem, opts: ClusterOptions): Promise<MailboxPlacement> {
  if (!opts.natsUrl) {
    return { placement: new LocalPlacement(system), actorDb: db, sharedCommit: () => new SharedCommit(db), define: (def) => def, start: async () => {}, handOver: async () => {}, stop: async () => {} };
  }
  const log = opts.log.child({ component: "cluster" });
  const leases = new PartitionLeases(db, { cluster: opts.names.prefix, nodeId: opts.nodeId, leaseMs: opts.leaseMs, log, rateWindowMs: opts.rateLimit.windowMs });
  const nc: NatsConnection = await connect({ servers: opts.natsUrl, name: `mailroom-placement-${leases.self}`, maxReconnectAttempts: -1 });
  const placement = new NatsPlacement({
    nc,
    subjectPrefix: `${opts.names.prefix}.actors`,
    system,
    ownership: leases,
    codec: mailboxWireCodec,
    askTimeoutMs: opts.askTimeoutMs,
    onConnectionChange: () => leases.connectionChanged(),
    onConnectionProven: () => leases.connectionProven(),
    logger: log,
  });
  leases.setReachability(placement);
  // The node's subject is on the server before the node takes any lease (see leases.unreachable).
  await nc.flush();
  const calls = new CallLog(db, leases, log);
  leases.setHooks({
    // The calls the partition's windows counted are written before another node may rebuild them.
    drain: async (p) => {
      await placement.drain(p, opts.drainTimeoutMs);
      await calls.flush().catch((err) => log.warn({ err }, "cluster: calls not recorded before a handover"));
    },
    released: () => placement.nudge(),
  });
  return {
    placement: new RemoteReads(placement, leases, opts.remoteReadMs),
    actorDb: fencedDb(db, leases),
    sharedCommit: () => new SharedCommit(db, { finish: checkLeaseFence(leases) }),
    define: (def) => fencedActor(durableWindows(def, calls, opts.rateLimit), leases),
    start: async () => {
      await leases.start();
      log.info({ node: leases.self, partitions: leases.heldPartitions().length }, "cluster: placement started");
    },
    handOver: () => leases.handOver(),
    stop: async () => {
      await leases.stop();
      await nc.drain().catch(() => {});
    },
    leases,
  };
}
