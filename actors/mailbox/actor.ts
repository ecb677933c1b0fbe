import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { apiKeys, mailboxes, type ApiKeyRow, type MailboxRow } from "../../db/schema/index.ts";
import { notFound } from "../../src/errors.ts";
import { newId } from "../../src/domain/ids.ts";
import { issueSecret } from "../../src/auth/tokens.ts";
import type { KeyStore } from "../../src/auth/key-store.ts";
import type { ActorDefinition } from "../runtime/index.ts";
import { SlidingWindow, type RateDecision } from "./rate-window.ts";

export const MAILBOX_ACTOR = "mailbox";

/** Commands are plain data so that a placement may carry them to another node. */
export type MailboxCommand =
  | { type: "get" }
  | { type: "reload" }
  | { type: "setStatus"; status: "active" | "disabled" }
  | { type: "setPolicy"; policy: PolicyPatch }
  | { type: "issueKey"; name: string; scope: "mailbox" }
  | { type: "revokeKey"; keyId: string }
  | { type: "admit"; keyId: string };

/** The fields of the mailbox policy a PUT may change; absent ones stay as they are. */
export interface PolicyPatch {
  allowOutbound?: boolean;
  allowAutoReply?: boolean;
  maxOutboundPerDay?: number;
}

export interface MailboxState {
  mailbox: MailboxRow;
  /** performance.now() when `mailbox` was read from the database. */
  loadedAt: number;
  /** Per API key call windows of this mailbox's keys. */
  windows: Map<string, SlidingWindow>;
}

export interface MailboxActorDeps {
  db: Db;
  keys: KeyStore;
  /** Tells the other nodes that a key was revoked (their caches drop it at once). */
  announceRevoked(keyId: string): void;
  /** Tells the other nodes that this mailbox's row changed (their copies reload). */
  announceChanged(mailboxId: string): void;
  /**
   * How long the kept row is trusted before a read reloads it. Until the NATS placement puts
   * each mailbox on exactly one node, another node may change the row; this bounds how stale
   * a read can be when the cluster broadcast is missed.
   */
  freshnessMs: number;
  rateLimit: { limit: number; windowMs: number };
}

export type IssuedKey = { apiKey: ApiKeyRow; token: string };

/**
 * The single writer of a mailbox: its settings and policy, its API keys and its rate windows.
 * Reads of the mailbox itself are answered from the row it keeps, reloaded when older than
 * `freshnessMs` or when another node announces a change.
 */
export function mailboxActor(deps: MailboxActorDeps): ActorDefinition<MailboxState, MailboxCommand, unknown> {
  const { db } = deps;
  const load = async (id: string) => {
    const [mailbox] = await db.select().from(mailboxes).where(eq(mailboxes.id, id)).limit(1);
    if (!mailbox) throw notFound("mailbox", id);
    return mailbox;
  };
  const reload = async (state: MailboxState) => {
    state.mailbox = await load(state.mailbox.id);
    state.loadedAt = performance.now();
    return state.mailbox;
  };
  return {
    kind: MAILBOX_ACTOR,

    async activate(id) {
      return { mailbox: await load(id), loadedAt: performance.now(), windows: new Map() };
    },

    // Reads of a fresh row do not wait behind writes in progress (see ActorDefinition.read).
    read(state, cmd) {
      return cmd.type === "get" && performance.now() - state.loadedAt <= deps.freshnessMs ? state.mailbox : undefined;
    },

    // Not async: `get` and `admit` run on every request and answer from memory, and a plain
    // value saves the runtime a promise and a microtask turn. Commands that write await.
    handle(state, cmd) {
      switch (cmd.type) {
        case "get":
          return performance.now() - state.loadedAt > deps.freshnessMs ? reload(state) : state.mailbox;

        case "reload":
          return reload(state);

        case "admit": {
          let window = state.windows.get(cmd.keyId);
          if (!window) {
            window = new SlidingWindow(deps.rateLimit.limit, deps.rateLimit.windowMs);
            state.windows.set(cmd.keyId, window);
          }
          return window.take(performance.now()) satisfies RateDecision;
        }

        case "setStatus":
        case "setPolicy":
        case "issueKey":
        case "revokeKey":
          return write(state, cmd);

        default:
          return assertNever(cmd);
      }
    },

    // Passivating would forget the call windows and hand a key a fresh quota.
    canPassivate(state) {
      const now = performance.now();
      for (const [keyId, window] of state.windows) {
        if (window.isIdle(now)) state.windows.delete(keyId);
      }
      return state.windows.size === 0;
    },
  };

  async function write(state: MailboxState, cmd: Extract<MailboxCommand, { type: "setStatus" | "setPolicy" | "issueKey" | "revokeKey" }>) {
    switch (cmd.type) {
      case "setStatus": {
        if (state.mailbox.status === cmd.status) return state.mailbox;
        const [row] = await db
          .update(mailboxes)
          .set({ status: cmd.status, updatedAt: new Date() })
          .where(eq(mailboxes.id, state.mailbox.id))
          .returning();
        state.mailbox = row!;
        state.loadedAt = performance.now();
        deps.announceChanged(row!.id);
        return row;
      }

      case "setPolicy": {
        const now = new Date();
        const [row] = await db
          .update(mailboxes)
          .set({ ...definedOnly(cmd.policy), policyUpdatedAt: now, updatedAt: now })
          .where(eq(mailboxes.id, state.mailbox.id))
          .returning();
        state.mailbox = row!;
        state.loadedAt = performance.now();
        deps.announceChanged(row!.id);
        return row;
      }

      case "issueKey": {
        const id = newId();
        const { token, digest } = issueSecret(id);
        const [apiKey] = await db
          .insert(apiKeys)
          .values({ id, mailboxId: state.mailbox.id, name: cmd.name, scope: cmd.scope, status: "active", secretDigest: digest })
          .returning();
        deps.keys.invalidate(id);
        return { apiKey: apiKey!, token } satisfies IssuedKey;
      }

      case "revokeKey": {
        const where = and(eq(apiKeys.id, cmd.keyId), eq(apiKeys.mailboxId, state.mailbox.id));
        const [current] = await db.select().from(apiKeys).where(where).limit(1);
        if (!current) throw notFound("api key", cmd.keyId);
        if (current.status === "revoked") return current;
        const [revoked] = await db.update(apiKeys).set({ status: "revoked", revokedAt: new Date() }).where(where).returning();
        deps.keys.invalidate(cmd.keyId, {
          id: revoked!.id,
          mailboxId: revoked!.mailboxId,
          status: "revoked",
          digest: Buffer.from(revoked!.secretDigest, "hex"),
        });
        deps.announceRevoked(cmd.keyId);
        state.windows.delete(cmd.keyId);
        return revoked;
      }

      default:
        return assertNever(cmd);
    }
  }
}

/** Drops absent fields, so a PATCH-like command never writes undefined. */
function definedOnly<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function assertNever(x: never): never {
  throw new Error(`unhandled mailbox command ${JSON.stringify(x)}`);
}
