import { Mailroom, type MailroomClientOptions } from "../../clients/typescript/src/index.ts";
import { AppError } from "../errors.ts";
import type { ToolContext } from "./tools.ts";

/** The tools' context for a caller: its identity first (GET /v1/me), as the caller. */
export async function toolContext(options: MailroomClientOptions): Promise<ToolContext> {
  const mr = new Mailroom(options);
  const me = await mr.me();
  if (me.principal !== "key" || !me.mailbox) throw new AppError("forbidden", "the MCP tools act on one mailbox: authenticate with that mailbox's API key, not the admin token");
  return { mr, me, mailboxId: me.mailbox.id, protocolHost: me.mailbox.protocol_host };
}
