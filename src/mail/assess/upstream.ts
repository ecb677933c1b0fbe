/**
 * What the hops in front of us said about a message (a spam verdict, Authentication-Results),
 * counted only from hops the operator declared trusted (TRUSTED_RELAYS, TRUSTED_AUTHSERV_IDS):
 * any sender can write "X-Spam-Flag: NO" or "Authentication-Results: …; dmarc=pass" into its
 * own message. Headers are prepended hop by hop, so what a trusted relay wrote sits above the
 * Received field in which it recorded the untrusted host that handed it the message; everything
 * from there down was written by that host or before it.
 */
import { BlockList, isIP } from "node:net";
import type { AuthResults, Envelope, HeaderField } from "../types.ts";

export interface TrustSettings {
  /** IPs and CIDR blocks of relays whose headers are believed (our own MX, a filtering gateway). */
  relays: readonly string[];
  /** authserv-ids whose Authentication-Results are believed when written by a trusted hop. */
  authservIds: readonly string[];
}

export interface UpstreamVerdict {
  /** A trusted hop flagged the message as spam (X-Spam-Flag/X-Spam-Status/X-Spam yes, Exchange SCL ≥ 5). */
  spam: boolean;
  /** Results a trusted hop's Authentication-Results recorded, by method. */
  auth: Partial<AuthResults>;
  /** The message reached us from a trusted relay: our own SPF check saw the relay, not the sender. */
  relayed: boolean;
}

const MAX_HEADERS = 200;

/** A matcher for the configured relays; throws on an entry that is neither an IP nor a CIDR block. */
export function relayList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const raw of entries) {
    const [ip, bits] = raw.trim().split("/");
    const family = isIP(ip ?? "");
    if (!family) throw new Error(`not an IP address or CIDR block: ${raw}`);
    const type = family === 6 ? "ipv6" : "ipv4";
    if (bits === undefined) list.addAddress(ip!, type);
    else {
      const n = Number(bits);
      if (!Number.isInteger(n) || n < 0 || n > (family === 6 ? 128 : 32)) throw new Error(`bad prefix length: ${raw}`);
      list.addSubnet(ip!, n, type);
    }
  }
  return list;
}

const unmapped = (ip: string) => (ip.toLowerCase().startsWith("::ffff:") && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip);

function trusted(list: BlockList, ip: string | null): boolean {
  if (!ip) return false;
  const a = unmapped(ip.replace(/^\[|\]$/g, "").replace(/^ipv6:/i, ""));
  const family = isIP(a);
  if (!family) return false;
  return family === 4 ? list.check(a, "ipv4") : list.check(a, "ipv6");
}

/** The address of the host a Received field says the message came from, or null (local submission). */
function receivedFrom(value: string): string | null {
  const v = value.slice(0, 2048);
  const by = v.search(/\bby\s/i);
  const fromPart = by > 0 ? v.slice(0, by) : v;
  const m = /\[(?:ipv6:)?([0-9a-f.:]{3,45})\]/i.exec(fromPart) ?? /\(\s*(?:[^()\s]+\s+)?\[?((?:\d{1,3}\.){3}\d{1,3})\]?\s*\)/.exec(fromPart);
  return m ? m[1]! : null;
}

const RESULT = /\b(spf|dkim|dmarc)\s*=\s*([a-z]+)/gi;
const VALID: Record<string, readonly string[]> = {
  spf: ["pass", "fail", "softfail", "neutral", "none", "temperror", "permerror"],
  dkim: ["pass", "fail", "none", "temperror", "permerror", "policy", "neutral"],
  dmarc: ["pass", "fail", "none", "temperror", "permerror"],
};

/**
 * The verdict of the trusted hops, or null when none could have written a header: the
 * message did not come from a trusted relay (or, for Authentication-Results of a trusted
 * authserv-id, through the HTTP ingress, where the head above the first Received field is
 * what the operator's own mail system wrote).
 */
export function upstreamVerdict(headers: readonly HeaderField[], envelope: Envelope, settings: TrustSettings, list = relayList(settings.relays)): UpstreamVerdict | null {
  const relayed = settings.relays.length > 0 && trusted(list, envelope.remoteAddress);
  const http = envelope.remoteAddress === null;
  if (!relayed && !(http && settings.authservIds.length > 0)) return null;
  const verdict: UpstreamVerdict = { spam: false, auth: {}, relayed };
  const ids = new Set(settings.authservIds.map((s) => s.toLowerCase()));
  for (const h of headers.slice(0, MAX_HEADERS)) {
    const key = h.key.trim().toLowerCase();
    const value = h.value.slice(0, 8192);
    if (key === "received") {
      // The first hop not trusted: this field is the trusted relay's record of it, the last one believed.
      const ip = receivedFrom(value);
      if (!relayed || (ip !== null && !trusted(list, ip))) break;
      continue;
    }
    if (relayed && isSpamFlag(key, value)) verdict.spam = true;
    if (key === "authentication-results" && (ids.size === 0 ? relayed : ids.has(authservId(value)))) {
      RESULT.lastIndex = 0;
      for (const m of value.matchAll(RESULT)) {
        const method = m[1]!.toLowerCase() as keyof AuthResults;
        const result = m[2]!.toLowerCase();
        // The topmost (latest) result of a method speaks for it.
        if (verdict.auth[method] === undefined && VALID[method]!.includes(result)) (verdict.auth as Record<string, string>)[method] = result;
      }
    }
  }
  return verdict;
}

const authservId = (value: string) => (value.split(";")[0] ?? "").trim().split(/\s+/)[0]!.toLowerCase();

function isSpamFlag(key: string, value: string): boolean {
  if (key === "x-spam-flag" || key === "x-spam-status") return /^\s*yes\b/i.test(value);
  if (key === "x-spam") return /^\s*(?:yes|true|spam)\b/i.test(value);
  if (key === "x-ms-exchange-organization-scl") return Number(value.trim()) >= 5;
  return false;
}

/**
 * The authentication results the rules read: a trusted relay's where it recorded them; behind
 * a trusted relay our own SPF judged the relay's address, and a DMARC fail built on it is no
 * evidence, so those fall back to none.
 */
export function effectiveAuth(own: AuthResults, upstream: UpstreamVerdict | null | undefined): AuthResults {
  if (!upstream) return own;
  const base: AuthResults = upstream.relayed ? { spf: "none", dkim: own.dkim, dmarc: own.dmarc === "pass" ? "pass" : "none" } : own;
  return { ...base, ...upstream.auth } as AuthResults;
}
