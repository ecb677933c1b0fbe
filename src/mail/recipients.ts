import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { Compiled, slot } from "../../db/compiled.ts";
import { mailboxes, replyTokens, type MailboxRow } from "../../db/schema/index.ts";
import { hashReplyToken, isWellFormedToken, REPLY_TAG, splitSubaddress } from "./reply-tokens.ts";

export interface Recipient {
  address: string;
  mailboxId: string;
  /** Set when the mail came in through a reply alias: the thread it answers. */
  replyToken: { id: string; threadId: string } | null;
}

export type RecipientProblem =
  | "not_local" // another domain: we are not a relay
  | "unknown_mailbox"
  | "mailbox_disabled"
  | "invalid_reply_token"
  | "expired_reply_token";

export type Resolution = { ok: true; recipient: Recipient } | { ok: false; problem: RecipientProblem; address: string };

/** The mailbox of an address, read for every recipient of every mail: built once (db/compiled.ts). */
const MAILBOX_BY_ADDRESS = new Compiled<{ address: string }, { id: string; status: MailboxRow["status"] }[]>((db) =>
  db.select({ id: mailboxes.id, status: mailboxes.status }).from(mailboxes).where(eq(mailboxes.emailAddress, slot<string>("address"))).limit(1),
);

/**
 * Decides whether an envelope recipient is one of ours: a mailbox address, a sub-address of
 * one (`local+anything@`), or a live reply alias of that mailbox. Read-only: the mailbox
 * actor checks the mailbox again when it stores the message.
 */
export class Recipients {
  constructor(
    private readonly db: Db,
    private readonly mailDomain: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async resolve(input: string): Promise<Resolution> {
    const address = input.trim().toLowerCase();
    const fail = (problem: RecipientProblem): Resolution => ({ ok: false, problem, address });
    const at = address.lastIndexOf("@");
    if (at <= 0 || address.slice(at + 1) !== this.mailDomain) return fail("not_local");

    const { base, tag } = splitSubaddress(address);
    const [mailbox] = await MAILBOX_BY_ADDRESS.run(this.db, { address: base });
    if (!mailbox) return fail("unknown_mailbox");

    let replyToken: Recipient["replyToken"] = null;
    if (tag !== null && tag.startsWith(REPLY_TAG.slice(1))) {
      const token = tag.slice(REPLY_TAG.length - 1);
      if (!isWellFormedToken(token)) return fail("invalid_reply_token");
      const [row] = await this.db.select().from(replyTokens).where(eq(replyTokens.tokenHash, hashReplyToken(token))).limit(1);
      // A token of another mailbox is as good as unknown: it must not reveal that it exists.
      if (!row || row.mailboxId !== mailbox.id) return fail("invalid_reply_token");
      if (row.expiresAt.getTime() <= this.now().getTime()) return fail("expired_reply_token");
      replyToken = { id: row.id, threadId: row.threadId };
    }
    if (mailbox.status === "disabled") return fail("mailbox_disabled");
    return { ok: true, recipient: { address, mailboxId: mailbox.id, replyToken } };
  }
}
