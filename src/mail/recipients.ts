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

/** At most this many addresses are kept (see ActiveMailboxes). */
const KEPT_ADDRESSES = 10_000;

/**
 * The active mailbox of an address, kept for `ttlMs` after it was read: every mail names its
 * recipient, and a burst of mail to one mailbox would otherwise read the same row once per
 * message (a statement each: about 0.4 ms of CPU for the client and the server together when
 * idle, bench/db-statements.ts).
 * Only active mailboxes are kept, so a new or re-enabled mailbox takes mail at once; a
 * mailbox this node disables, or another node announces changed, is forgotten at once. What
 * is kept can therefore be stale only for a change whose announcement was lost, and for at
 * most `ttlMs`; even then the mailbox's actor checks the mailbox again before it stores the
 * message, so a disabled mailbox never takes one (the client then gets a temporary failure
 * at DATA instead of the 550 at RCPT).
 */
class ActiveMailboxes {
  private readonly kept = new Map<string, { id: string; until: number }>();
  /** Bumped by every forget: a read that overlapped one may have read the row before its change, and is not kept. */
  version = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly clock: () => number,
  ) {}

  get(address: string): string | undefined {
    const entry = this.kept.get(address);
    if (entry === undefined) return undefined;
    if (entry.until > this.clock()) return entry.id;
    this.kept.delete(address);
    return undefined;
  }

  /** Keeps what a read begun at `version` found. */
  keep(address: string, id: string, version: number): void {
    if (this.ttlMs <= 0 || version !== this.version) return;
    // Oldest first out: a flood of distinct addresses costs a bounded map, not memory.
    if (this.kept.size >= KEPT_ADDRESSES && !this.kept.has(address)) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(address, { id, until: this.clock() + this.ttlMs });
  }

  forget(mailboxId: string): void {
    this.version++;
    for (const [address, entry] of this.kept) if (entry.id === mailboxId) this.kept.delete(address);
  }
}

export interface RecipientsOptions {
  /** How long an active mailbox's address is kept (CACHE_TTL_MS; 0 reads it for every recipient). */
  ttlMs?: number;
  now?: () => Date;
  /** Milliseconds of a monotonic clock, for what is kept. */
  clock?: () => number;
}

/**
 * Decides whether an envelope recipient is one of ours: a mailbox address, a sub-address of
 * one (`local+anything@`), or a live reply alias of that mailbox. Read-only: the mailbox
 * actor checks the mailbox again when it stores the message.
 */
export class Recipients {
  private readonly now: () => Date;
  private readonly active: ActiveMailboxes;

  constructor(
    private readonly db: Db,
    private readonly mailDomain: string,
    options: RecipientsOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.active = new ActiveMailboxes(options.ttlMs ?? 0, options.clock ?? (() => performance.now()));
  }

  /** The mailbox changed (disabled, say): its address is read again at its next recipient. */
  forget(mailboxId: string): void {
    this.active.forget(mailboxId);
  }

  async resolve(input: string): Promise<Resolution> {
    const address = input.trim().toLowerCase();
    const fail = (problem: RecipientProblem): Resolution => ({ ok: false, problem, address });
    const at = address.lastIndexOf("@");
    if (at <= 0 || address.slice(at + 1) !== this.mailDomain) return fail("not_local");

    const { base, tag } = splitSubaddress(address);
    const mailbox = await this.mailboxOf(base);
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

  private async mailboxOf(address: string): Promise<{ id: string; status: MailboxRow["status"] } | undefined> {
    const id = this.active.get(address);
    if (id !== undefined) return { id, status: "active" };
    const version = this.active.version;
    const [mailbox] = await MAILBOX_BY_ADDRESS.run(this.db, { address });
    if (mailbox?.status === "active") this.active.keep(address, mailbox.id, version);
    return mailbox;
  }
}
