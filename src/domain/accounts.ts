import { asc, count, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { accounts, actions, mailboxes, type AccountRow, type MailboxRow } from "../../db/schema/index.ts";
import { AppError, notFound, uniqueViolation } from "../errors.ts";
import { mailboxAddresses, type Domains } from "./addresses.ts";
import { SEND_MESSAGE_ACTION } from "./default-actions.ts";
import { newId } from "./ids.ts";
import { PRIMARY_MAILBOX_SLUG, validateAccountSlug, validateMailboxSlug } from "./slugs.ts";

export type MailboxKind = "primary" | "agent";

/**
 * Accounts and the creation of mailboxes. Creating a mailbox is not a write to an existing
 * mailbox, so it happens here; every later change to a mailbox goes through its actor.
 */
export class Accounts {
  constructor(
    private readonly db: Db,
    private readonly domains: Domains,
  ) {}

  /** The account and its primary mailbox, in one transaction. */
  async create(input: { slug: string; displayName: string }): Promise<{ account: AccountRow; primary: MailboxRow }> {
    validateAccountSlug(input.slug);
    const displayName = input.displayName.trim();
    if (!displayName) throw new AppError("validation_error", "displayName must not be blank", { fields: [{ path: "displayName", message: "must not be blank" }] });
    try {
      return await this.db.transaction(async (tx) => {
        const [account] = await tx.insert(accounts).values({ id: newId(), slug: input.slug, displayName, status: "active" }).returning();
        const addr = mailboxAddresses(this.domains, input.slug, null);
        const [primary] = await tx
          .insert(mailboxes)
          .values({ id: newId(), accountId: account!.id, slug: PRIMARY_MAILBOX_SLUG, kind: "primary", ...addr, status: "active" })
          .returning();
        return { account: account!, primary: primary! };
      });
    } catch (err) {
      if (uniqueViolation(err)) throw slugTaken("account", input.slug);
      throw err;
    }
  }

  async get(id: string): Promise<AccountRow> {
    const [account] = await this.db.select().from(accounts).where(eq(accounts.id, id)).limit(1);
    if (!account) throw notFound("account", id);
    return account;
  }

  /** Every account, newest first, a page at a time (the admin's list). */
  async list(limit: number, offset: number): Promise<{ items: AccountRow[]; total: number }> {
    const [items, [total]] = await Promise.all([
      this.db.select().from(accounts).orderBy(desc(accounts.createdAt), desc(accounts.id)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(accounts),
    ]);
    return { items, total: Number(total?.n ?? 0) };
  }

  async mailboxes(accountId: string): Promise<{ account: AccountRow; mailboxes: MailboxRow[] }> {
    const account = await this.get(accountId);
    const rows = await this.db.select().from(mailboxes).where(eq(mailboxes.accountId, accountId)).orderBy(asc(mailboxes.createdAt), asc(mailboxes.id));
    return { account, mailboxes: rows };
  }

  /** An agent mailbox with the default `send_message` action, in one transaction. */
  async createMailbox(accountId: string, slug: string): Promise<MailboxRow> {
    validateMailboxSlug(slug);
    const account = await this.get(accountId);
    const addr = mailboxAddresses(this.domains, account.slug, slug);
    try {
      return await this.db.transaction(async (tx) => {
        const [mailbox] = await tx.insert(mailboxes).values({ id: newId(), accountId, slug, kind: "agent", ...addr, status: "active" }).returning();
        await tx.insert(actions).values({ id: newId(), mailboxId: mailbox!.id, ...SEND_MESSAGE_ACTION, enabled: true });
        return mailbox!;
      });
    } catch (err) {
      if (uniqueViolation(err)) throw slugTaken("mailbox", slug);
      throw err;
    }
  }
}

const slugTaken = (what: "account" | "mailbox", slug: string) =>
  new AppError("slug_taken", what === "account" ? `an account with slug "${slug}" already exists` : `this account already has a mailbox with slug "${slug}"`, { slug });
