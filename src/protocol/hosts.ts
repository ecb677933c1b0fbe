import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { mailboxes } from "../../db/schema/index.ts";

/** The host name of a Host header: lowercased, without port or a trailing dot. */
export function hostName(header: string | null | undefined): string {
  const raw = (header ?? "").trim().toLowerCase();
  const bare = raw.startsWith("[") ? raw.slice(0, raw.indexOf("]") + 1) : raw.replace(/:\d*$/, "");
  return bare.replace(/\.$/, "");
}

/**
 * Which mailbox a Host header names (runtime contract: the agent-protocol endpoints are served
 * on the API port, selected by `protocol_host`, port ignored). Protocol hosts never change, so
 * answers are kept for a while; a miss is kept briefly, so probing unknown hosts costs little.
 */
export class ProtocolHosts {
  private readonly known = new Map<string, { mailboxId: string | null; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs = 60_000,
  ) {}

  async mailboxOf(hostHeader: string | null | undefined): Promise<string | null> {
    const host = hostName(hostHeader);
    if (host === "" || host.length > 253) return null;
    const now = performance.now();
    const hit = this.known.get(host);
    if (hit && hit.until > now) return hit.mailboxId;
    const [row] = await this.db.select({ id: mailboxes.id }).from(mailboxes).where(eq(mailboxes.protocolHost, host)).limit(1);
    const mailboxId = row?.id ?? null;
    if (this.known.size > 10_000) this.known.clear();
    this.known.set(host, { mailboxId, until: now + (mailboxId ? this.ttlMs : Math.min(this.ttlMs, 5_000)) });
    return mailboxId;
  }
}
