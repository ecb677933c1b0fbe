import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "../log.ts";
import type { NatsNames } from "./nats-names.ts";

/**
 * What nodes of one cluster tell each other outside the database, so that what a node keeps
 * in memory follows a change made on another node at once instead of within its one-second
 * freshness bound: "this API key was revoked", "this mailbox's settings changed".
 * Without NATS there is one node and nothing to tell.
 */
export interface ClusterBus {
  readonly mode: "nats" | "in-process";
  announceRevoked(keyId: string): void;
  announceMailboxChanged(mailboxId: string): void;
  close(): Promise<void>;
}

export interface BusHandlers {
  onKeyRevoked(keyId: string): void;
  onMailboxChanged(mailboxId: string): void;
}

/** Subjects are the deployment's own (`names`), so deployments sharing a NATS never hear each other. */
export async function connectBus(natsUrl: string | undefined, names: NatsNames, nodeId: string, handlers: BusHandlers, log: Logger): Promise<ClusterBus> {
  if (!natsUrl) {
    return { mode: "in-process", announceRevoked: () => {}, announceMailboxChanged: () => {}, close: async () => {} };
  }
  const nc: NatsConnection = await connect({ servers: natsUrl, name: `mailroom-${nodeId}`, maxReconnectAttempts: -1 });
  // Payload "{nodeId} {id}": a node ignores its own announcements; it already knows.
  const listen = (subject: string, handler: (id: string) => void) =>
    nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return log.warn({ err, subject }, "cluster bus subscription error");
        const [from, id] = msg.string().split(" ");
        if (id && from !== nodeId) handler(id);
      },
    });
  const subs = [listen(names.keyRevoked, handlers.onKeyRevoked), listen(names.mailboxChanged, handlers.onMailboxChanged)];
  const announce = (subject: string, id: string) => {
    try {
      nc.publish(subject, `${nodeId} ${id}`);
    } catch (err) {
      // The freshness bound still holds without the broadcast; losing it is not fatal.
      log.warn({ err, subject, id }, "could not broadcast to the cluster");
    }
  };
  return {
    mode: "nats",
    announceRevoked: (keyId) => announce(names.keyRevoked, keyId),
    announceMailboxChanged: (mailboxId) => announce(names.mailboxChanged, mailboxId),
    async close() {
      for (const sub of subs) sub.unsubscribe();
      await nc.drain();
    },
  };
}
