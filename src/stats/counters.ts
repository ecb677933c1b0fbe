import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { mailboxHourlyCounters, type MailboxCounter } from "../../db/schema/index.ts";
import type { ErrorCode } from "../errors.ts";

/** The counter a refused send counts under, by the error that refused it. */
export function refusalCounter(code: ErrorCode): MailboxCounter | null {
  switch (code) {
    case "outbound_disabled":
    case "mailbox_disabled":
      return "refused_policy";
    case "address_suppressed":
      return "refused_suppression";
    case "rate_limit_exceeded":
      return "refused_rate";
    default:
      return null;
  }
}

const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);

/** Adds one to a mailbox's counter for the current hour. */
export async function countForMailbox(db: Db, mailboxId: string, counter: MailboxCounter, at = new Date()): Promise<void> {
  await db
    .insert(mailboxHourlyCounters)
    .values({ mailboxId, hour: hourOf(at), counter, count: 1 })
    .onConflictDoUpdate({ target: [mailboxHourlyCounters.mailboxId, mailboxHourlyCounters.hour, mailboxHourlyCounters.counter], set: { count: sql`${mailboxHourlyCounters.count} + 1` } });
}
