import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { mailboxes } from "../../db/schema/index.ts";

// RFC 3986 host: a DNS name (or IPv4, which has the same shape) or a bracketed IPv6 literal,
// then an optional port. Anything else names no host of ours.
const HOST_RE = /^(\[[0-9a-f:.]{2,45}\]|[a-z0-9_](?:[a-z0-9_.-]{0,251}[a-z0-9_.])?)(?::(\d{0,5}))?$/;

/**
 * A Host header as name and port: the name lowercased and without a trailing dot, the port
 * (1-65535) when one is given. null when the header is missing or is not a host[:port].
 */
export function parseHost(header: string | null | undefined): { name: string; port: number | null } | null {
  const m = HOST_RE.exec((header ?? "").trim().toLowerCase());
  if (!m) return null;
  const port = m[2] ? Number(m[2]) : null;
  if (port !== null && (port < 1 || port > 65_535)) return null;
  const name = m[1]!.replace(/\.$/, "");
  return name === "" || name.length > 253 ? null : { name, port };
}

/** The host name of a Host header (port ignored); "" when it is not a valid host[:port]. */
export const hostName = (header: string | null | undefined): string => parseHost(header)?.name ?? "";

/** scheme://host[:port] of a request, from a Host header that parseHost accepts. */
export function requestOrigin(request: Request): string | null {
  const host = parseHost(request.headers.get("host"));
  if (!host) return null;
  const scheme = request.url.startsWith("https:") ? "https:" : "http:";
  return `${scheme}//${host.name}${host.port === null ? "" : `:${host.port}`}`;
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
    if (host === "") return null;
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
