import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "../log.ts";

const REVOKED_SUBJECT = "mailroom.auth.key-revoked";

/**
 * What nodes of one cluster tell each other outside the database. Today: "this API key was
 * revoked", so every node's key cache drops it at once instead of within its one-second TTL.
 * Without NATS there is one node and nothing to tell.
 */
export interface ClusterBus {
  readonly mode: "nats" | "in-process";
  announceRevoked(keyId: string): void;
  close(): Promise<void>;
}

export interface BusHandlers {
  onKeyRevoked(keyId: string): void;
}

export async function connectBus(natsUrl: string | undefined, nodeId: string, handlers: BusHandlers, log: Logger): Promise<ClusterBus> {
  if (!natsUrl) {
    return { mode: "in-process", announceRevoked: () => {}, close: async () => {} };
  }
  const nc: NatsConnection = await connect({ servers: natsUrl, name: `mailroom-${nodeId}`, maxReconnectAttempts: -1 });
  const sub = nc.subscribe(REVOKED_SUBJECT, {
    callback: (err, msg) => {
      if (err) return log.warn({ err }, "key revocation subscription error");
      const keyId = msg.string();
      if (keyId) handlers.onKeyRevoked(keyId);
    },
  });
  return {
    mode: "nats",
    announceRevoked(keyId) {
      try {
        nc.publish(REVOKED_SUBJECT, keyId);
      } catch (err) {
        // The cache TTL still bounds staleness to a second; losing the broadcast is not fatal.
        log.warn({ err, keyId }, "could not broadcast key revocation");
      }
    },
    async close() {
      sub.unsubscribe();
      await nc.drain();
    },
  };
}
