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

/** The row when memory may answer (see CommandSpec.peek), else undefined. */
export function keptMailbox(ctx: WriteContext): MailboxRow | undefined {
  return isFresh(ctx) ? ctx.state.mailbox : undefined;
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
