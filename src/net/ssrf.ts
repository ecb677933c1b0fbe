// Guards for requests to user-supplied URLs (webhooks, protocol callbacks, agent runtimes).
//
// The flow is parseTargetUrl → resolveTarget → pinnedPost. The name is resolved exactly once,
// every address it resolves to is checked, and the request then connects to the checked
// address. Checking one lookup and letting the HTTP client do its own would leave a gap a
// short-TTL DNS record can use to point the second lookup at an internal address.
import { lookup as dnsLookup } from "node:dns/promises";

export { pinnedPost } from "./pinned-post.ts";

export type Lookup = (host: string) => Promise<{ address: string; family: 4 | 6 }[]>;

/** A URL together with the one address it may be reached at. */
export interface PinnedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
  /** What the receiver must see as Host: the URL's host (with a non-default port). */
  hostHeader: string;
}

const MAX_URL_LENGTH = 2048;
const DEFAULT_LOOKUP_TIMEOUT_MS = 2000;

export function parseTargetUrl(raw: string): { ok: true; url: URL } | { ok: false; reason: string } {
  if (raw.length > MAX_URL_LENGTH) return { ok: false, reason: `URL is longer than ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not a valid URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `scheme ${url.protocol} is not allowed (only http and https)` };
  }
  // Credentials in a URL end up in logs and in Authorization headers we never meant to send.
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "URL must not contain user info" };
  if (url.hostname === "") return { ok: false, reason: "URL has no host" };
  return { ok: true, url };
}

// ---------------------------------------------------------------------------------------------
// Address classes. The first matching row names the class; an address that parses and matches
// nothing is public. IPv4 rows work on a 32-bit number, IPv6 rows on a 128-bit bigint.

type V4Row = [base: string, bits: number, name: string];
const V4_BLOCKED: V4Row[] = [
  ["0.0.0.0", 8, "unspecified"], // "this network"; 0.0.0.0 reaches the local host on Linux
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (CGNAT)"], // also Alibaba's metadata 100.100.100.200
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"], // cloud metadata 169.254.169.254
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol"], // Oracle's metadata 192.0.0.192
  ["192.0.2.0", 24, "documentation"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["255.255.255.255", 32, "broadcast"],
  ["240.0.0.0", 4, "reserved"],
];

// `v4shift`: the row embeds an IPv4 address at these low bits, and the embedded address is
// what gets judged (a translator or the host's stack turns it into an IPv4 connection).
type V6Row = { base: string; bits: number; name: string; v4shift?: number };
const V6_BLOCKED: V6Row[] = [
  { base: "::", bits: 128, name: "unspecified" },
  { base: "::1", bits: 128, name: "loopback" },
  { base: "::ffff:0:0", bits: 96, name: "IPv4-mapped", v4shift: 0 },
  { base: "::ffff:0:0:0", bits: 96, name: "IPv4-translated", v4shift: 0 },
  // Deprecated, and some stacks still route it to the embedded IPv4, so refuse all of it.
  { base: "::", bits: 96, name: "IPv4-compatible" },
  { base: "64:ff9b::", bits: 96, name: "NAT64", v4shift: 0 },
  { base: "64:ff9b:1::", bits: 48, name: "local NAT64" },
  { base: "100::", bits: 64, name: "discard" },
  { base: "2001::", bits: 32, name: "Teredo" },
  { base: "2001:db8::", bits: 32, name: "documentation" },
  { base: "2002::", bits: 16, name: "6to4", v4shift: 80 },
  { base: "fc00::", bits: 7, name: "unique-local" }, // AWS metadata fd00:ec2::254
  { base: "fe80::", bits: 10, name: "link-local" },
  { base: "fec0::", bits: 10, name: "site-local" },
  { base: "ff00::", bits: 8, name: "multicast" },
];

/** Strict dotted quad: four decimal octets without leading zeros. Anything else is null. */
function parseIPv4(s: string): number | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255) return null;
    n = n * 256 + Number(p);
  }
  return n;
}

/**
 * RFC 4291 text form: groups of 1-4 hex digits, at most one `::`, an optional dotted quad in
 * the last 32 bits. Zone ids (`%eth0`) are refused: they only make sense for link-local
 * addresses, and a URL cannot carry one anyway.
 */
function parseIPv6(s: string): bigint | null {
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  if (s.includes("%")) return null;
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (h: string): number[] | null => {
    if (h === "") return [];
    const out: number[] = [];
    const parts = h.split(":");
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (i === parts.length - 1 && p.includes(".")) {
        const v4 = parseIPv4(p);
        if (v4 === null) return null;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else if (/^[0-9a-f]{1,4}$/i.test(p)) {
        out.push(parseInt(p, 16));
      } else {
        return null;
      }
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (head === null || tail === null) return null;
  // A dotted quad may only end the address, never sit before a `::`.
  if (halves.length === 2 && halves[0]!.includes(".")) return null;
  let all: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return null;
    all = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else {
    if (head.length !== 8) return null;
    all = head;
  }
  return all.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

const v4Rows = V4_BLOCKED.map(([base, bits, name]) => ({ base: parseIPv4(base)!, bits, name }));
const v6Rows = V6_BLOCKED.map((r) => ({ ...r, base: parseIPv6(r.base)! }));

function v4Class(n: number): string | null {
  for (const r of v4Rows) {
    // Division, not >>: JS shifts are signed 32-bit and would mangle 224/4 and 240/4.
    const shift = 32 - r.bits;
    if (Math.floor(n / 2 ** shift) === Math.floor(r.base / 2 ** shift)) return r.name;
  }
  return null;
}

function v6Class(a: bigint): string | null {
  for (const r of v6Rows) {
    const shift = BigInt(128 - r.bits);
    if (a >> shift !== r.base >> shift) continue;
    if (r.v4shift === undefined) return r.name;
    const inner = v4Class(Number((a >> BigInt(r.v4shift)) & 0xffffffffn));
    return inner === null ? null : `${inner} (${r.name})`;
  }
  // Only 2000::/3 is allocated global unicast; anything else left over is no webhook target.
  return a >> 125n === 1n ? null : "reserved";
}

/** The class of a blocked address ("loopback", "private", …), or null for a public address. */
export function blockedAddressClass(ip: string): string | null {
  if (ip.includes(":") || ip.startsWith("[")) {
    const a = parseIPv6(ip);
    return a === null ? "unparseable" : v6Class(a);
  }
  const n = parseIPv4(ip);
  return n === null ? "unparseable" : v4Class(n);
}

export function isBlockedAddress(ip: string): boolean {
  return blockedAddressClass(ip) !== null;
}

/** "a private address", "an unspecified address": readable refusal reasons. */
const aClass = (cls: string) => `${/^(?:[aeio]|un(?!i)|I)/.test(cls) ? "an" : "a"} ${cls} address`;

/** 4 or 6 for an IP literal in canonical-enough form, null for anything else (a name). */
function ipFamily(s: string): 4 | 6 | null {
  if (parseIPv4(s) !== null) return 4;
  if (parseIPv6(s) !== null) return 6;
  return null;
}

// ---------------------------------------------------------------------------------------------

const systemLookup: Lookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export async function resolveTarget(
  url: URL,
  opts: { allowPrivate: boolean; lookup?: Lookup; timeoutMs?: number },
): Promise<{ ok: true; target: PinnedTarget } | { ok: false; reason: string; kind: "blocked" | "unresolved" }> {
  const host = url.hostname;
  const pin = (address: string, family: 4 | 6) => ({
    ok: true as const,
    target: { url, address, family, hostHeader: url.host },
  });

  // IP literals: WHATWG URL has already turned decimal/octal/hex IPv4 into a dotted quad and
  // bracketed IPv6 into its compressed form, so only these two shapes reach here.
  const literal = host.startsWith("[") ? host.slice(1, -1) : host;
  const literalFamily = ipFamily(literal);
  if (literalFamily !== null) {
    const cls = blockedAddressClass(literal);
    if (cls !== null && !opts.allowPrivate) return { ok: false, kind: "blocked", reason: `${literal} is ${aClass(cls)}` };
    return pin(literal, literalFamily);
  }

  const timeoutMs = opts.timeoutMs ?? DEFAULT_LOOKUP_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let addresses: { address: string; family: 4 | 6 }[];
  try {
    addresses = await Promise.race([
      (opts.lookup ?? systemLookup)(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`DNS lookup timed out after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (e) {
    const code = (e as { code?: string }).code;
    const msg = code === "ENOTFOUND" || code === "ENODATA" ? "does not resolve" : (e as Error).message || String(e);
    return { ok: false, kind: "unresolved", reason: `${host}: ${msg}` };
  } finally {
    clearTimeout(timer);
  }
  if (addresses.length === 0) return { ok: false, kind: "unresolved", reason: `${host} resolves to no address` };

  // Every address is checked, not just the one we use: a name that also resolves to a private
  // address is someone probing the inside, and refusing it outright keeps that simple.
  for (const { address } of addresses) {
    // Even with allowPrivate the pin must be an IP literal: a name here would make the HTTP
    // client resolve again, which is exactly what pinning avoids.
    if (ipFamily(address) === null) return { ok: false, kind: "blocked", reason: `${host} resolves to an unusable address ${address}` };
    const cls = blockedAddressClass(address);
    if (cls !== null && !opts.allowPrivate) return { ok: false, kind: "blocked", reason: `${host} resolves to ${aClass(cls)} ${address}` };
  }
  const first = addresses[0]!;
  return pin(first.address, ipFamily(first.address)!);
}
