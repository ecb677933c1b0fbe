import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { mailboxes, type MailboxRow } from "../../db/schema/index.ts";
import { notFound } from "../../src/errors.ts";
import type { MailboxState, WriteContext } from "./types.ts";

/**
 * The mailbox row the actor keeps, answering reads of the mailbox from memory. It is reloaded
 * when older than `freshnessMs` or when another node announces a change.
 */

export async function loadMailbox(db: Db, id: string): Promise<MailboxRow> {
  const [mailbox] = await db.select().from(mailboxes).where(eq(mailboxes.id, id)).limit(1);
  if (!mailbox) throw notFound("mailbox", id);
  return mailbox;
}

export async function activateMailbox(db: Db, id: string): Promise<MailboxState> {
  return { mailbox: await loadMailbox(db, id), loadedAt: performance.now(), windows: new Map() };
}

const isFresh = ({ state, deps }: WriteContext) => performance.now() - state.loadedAt <= deps.freshnessMs;
/** Past this share of `freshnessMs`, a read from memory also queues a read of the row. */
const REFRESH_AHEAD = 0.75;
/**
 * Background reads of rows under way on this node at most: mailboxes activated together (a
 * fleet of agents starting) come due together, and thousands of reads at once would take the
 * database pool from the requests and the revocation watch. One not started now is tried by a
 * later read, and the row is still fresh meanwhile.
 */
const MAX_REFRESHING = 4;
let refreshing = 0;

/**
 * The row when memory may answer (see CommandSpec.peek), else undefined. A row answered late
 * in its freshness is read again in the background (once at a time), so that a mailbox
 * polled steadily never makes a request wait for the database: before, the request that found
 * the row stale waited for that read, and every command queued behind it (the call window's
 * `admit` of every other request) too: a tail of the many-agents poll bench, every mailbox
 * once a minute under NATS.
 */
export function keptMailbox(ctx: WriteContext): MailboxRow | undefined {
  const { state, deps } = ctx;
  const age = performance.now() - state.loadedAt;
  if (age > deps.freshnessMs) return undefined;
  if (age > deps.freshnessMs * REFRESH_AHEAD && !state.refreshing && refreshing < MAX_REFRESHING) refreshAhead(ctx);
  return state.mailbox;
}

/**
 * Reads the row outside the actor's turns (nothing waits for it, no command queues behind
 * it) and keeps what it read only if nothing replaced the row meanwhile: a write or a reload
 * that replaced it knows better, so the read is dropped. Kept, it is as fresh as when the
 * read started, which is what `loadedAt` says.
 */
function refreshAhead({ state, deps }: WriteContext): void {
  state.refreshing = true;
  refreshing++;
  const before = state.mailbox;
  const startedAt = performance.now();
  loadMailbox(deps.db, before.id)
    .then(
      (row) => {
        if (state.mailbox !== before) return;
        state.mailbox = row;
        state.loadedAt = startedAt;
      },
      // Not found or the database is away: the row goes stale, and the read that finds it so says why.
      () => {},
    )
    .finally(() => {
      state.refreshing = false;
      refreshing--;
    });
}

export function getMailbox(ctx: WriteContext): MailboxRow | Promise<MailboxRow> {
  return isFresh(ctx) ? ctx.state.mailbox : reloadRow(ctx);
}

/** Another node changed the mailbox: read the row again; the binding and autopilot policy are read again when next needed. */
export function forgetMailbox(ctx: WriteContext): Promise<MailboxRow> {
  ctx.state.binding = undefined;
  ctx.state.autopilot = undefined;
  return reloadRow(ctx);
}

async function reloadRow({ state, deps }: WriteContext): Promise<MailboxRow> {
  state.mailbox = await loadMailbox(deps.db, state.mailbox.id);
  state.loadedAt = performance.now();
  return state.mailbox;
}
