import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { drafts, labels, messages, threads } from "../../db/schema/index.ts";
import { isUuid } from "./ids.ts";

/**
 * Which mailbox a resource addressed by its own id belongs to (a draft, a label; later
 * messages and threads): what the auth table needs to scope a mailbox key, and what handlers
 * need to send the write to the right mailbox actor. undefined when there is no such resource.
 */
export class Owners {
  constructor(private readonly db: Db) {}

  async draft(id: string | undefined): Promise<string | undefined> {
    if (!id || !isUuid(id)) return undefined;
    const [row] = await this.db.select({ mailboxId: drafts.mailboxId }).from(drafts).where(eq(drafts.id, id)).limit(1);
    return row?.mailboxId;
  }

  async label(id: string | undefined): Promise<string | undefined> {
    if (!id || !isUuid(id)) return undefined;
    const [row] = await this.db.select({ mailboxId: labels.mailboxId }).from(labels).where(eq(labels.id, id)).limit(1);
    return row?.mailboxId;
  }

  async message(id: string | undefined): Promise<string | undefined> {
    if (!id || !isUuid(id)) return undefined;
    const [row] = await this.db.select({ mailboxId: messages.mailboxId }).from(messages).where(eq(messages.id, id)).limit(1);
    return row?.mailboxId;
  }

  async thread(id: string | undefined): Promise<string | undefined> {
    if (!id || !isUuid(id)) return undefined;
    const [row] = await this.db.select({ mailboxId: threads.mailboxId }).from(threads).where(eq(threads.id, id)).limit(1);
    return row?.mailboxId;
  }
}
