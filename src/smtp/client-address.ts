import { isIPv6, type Server, type Socket } from "node:net";
import type { Logger } from "../log.ts";
import type { Reply } from "./replies.ts";

/**
 * The unit a per-client connection cap counts: an IPv4 address as it is, an IPv6 address by
 * its /64, because one IPv6 host (or its ISP customer line) routinely owns a whole /64 and
 * could otherwise open a fresh address per connection.
 */
export function clientGroup(address: string | undefined): string {
  const text = (address ?? "").trim().toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (mapped) return mapped[1]!;
  if (!isIPv6(text)) return text || "unknown";
  const groups = ipv6Groups(text);
  return groups ? `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64` : text;
}

/** The eight 16-bit groups of a valid IPv6 address (zone dropped, dotted IPv4 tail folded in). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.split("%")[0]!;
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const part = (s: string | undefined) => (s ? s.split(":") : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const zeros = halves.length === 2 ? 8 - head.length - tail.length : 0;
  if (zeros < 0) return undefined;
  const groups = [...head, ...Array<string>(zeros).fill("0"), ...tail].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined;
}

/** Open sessions per client group, against one cap. */
class ClientCounts {
  private readonly open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Counts one more session of `group`, or says no (and counts nothing) at the cap. */
  tryOpen(group: string): boolean {
    const n = this.open.get(group) ?? 0;
    if (n >= this.max) return false;
    this.open.set(group, n + 1);
    return true;
  }

  release(group: string): void {
    const n = this.open.get(group) ?? 0;
    if (n <= 1) this.open.delete(group);
    else this.open.set(group, n - 1);
  }
}

// How long a refused socket may take to read its 421 and close its side.
const REFUSED_LINGER_MS = 2000;

/**
 * Caps concurrent connections per client group at TCP accept, ahead of smtp-server: a
 * connection over the cap gets its 421 at once and never becomes a session, so a flood from
 * one address costs no session, no greeting delay and no slot of SMTP_MAX_CLIENTS. The count
 * follows the socket (released on 'close'), so refused and admitted connections alike are
 * counted exactly once. Takes over the server's one 'connection' listener (smtp-server's).
 */
export function capConnectionsPerClient(server: Server, max: number, refusal: (group: string) => Reply, log: Logger): void {
  const listeners = server.listeners("connection");
  if (listeners.length !== 1) throw new Error(`expected smtp-server's one connection listener, found ${listeners.length}`);
  const accept = listeners[0] as (socket: Socket) => void;
  server.removeListener("connection", accept);
  const counts = new ClientCounts(max);
  let loggedAt = 0;
  let refused = 0;
  server.on("connection", (socket: Socket) => {
    const group = clientGroup(socket.remoteAddress);
    if (counts.tryOpen(group)) {
      socket.once("close", () => counts.release(group));
      accept.call(server, socket);
      return;
    }
    const reply = refusal(group);
    refused++;
    // A flood must not become a flood of log lines: at most one a second, with the count.
    const now = Date.now();
    if (now - loggedAt >= 1000) {
      log.info({ remoteAddress: socket.remoteAddress, group, code: reply.code, reply: reply.text, limit: max, refused }, "smtp refused");
      loggedAt = now;
      refused = 0;
    }
    socket.on("error", () => {});
    // Read (and drop) whatever the client sends, so its FIN is seen and the socket closes.
    socket.resume();
    socket.end(`${reply.code} ${reply.text}\r\n`);
    setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
  });
}
