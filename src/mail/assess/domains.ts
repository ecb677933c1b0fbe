/**
 * Domain helpers. The organisational domain is the registrable domain by the Public Suffix
 * List (tldts, private suffixes included, so two github.io sites are two organisations);
 * names the list does not know (localhost, made-up suffixes) fall back to the last two
 * labels, three under the common second-level registries like co.uk.
 */
import { domainToASCII, domainToUnicode } from "node:url";
import { getDomain } from "tldts";

const SECOND_LEVEL = new Set(["co", "com", "net", "org", "gov", "edu", "ac", "ltd", "plc", "me", "ne", "or", "go", "gob", "mil", "nic", "sch", "nhs", "police", "gv", "gen", "biz", "info"]);

/** Lowercase A-label form without a trailing dot, or "" when it is not a usable host name. */
export function asciiHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.endsWith(".")) h = h.slice(0, -1);
  if (!h || h.length > 253) return "";
  if (h.startsWith("[")) return h; // IPv6 literal, kept as the URL parser writes it
  if (/^[a-z0-9.-]+$/.test(h)) return h;
  const ascii = domainToASCII(h);
  return ascii || "";
}

// The rules ask for the same few hosts' organisation many times (every brand, every link).
const ORG_MEMO = new Map<string, string>();
const ORG_MEMO_MAX = 4096;

export function orgDomain(host: string): string {
  const known = ORG_MEMO.get(host);
  if (known !== undefined) return known;
  const org = computeOrgDomain(host);
  if (ORG_MEMO.size >= ORG_MEMO_MAX) ORG_MEMO.clear();
  ORG_MEMO.set(host, org);
  return org;
}

function computeOrgDomain(host: string): string {
  const h = asciiHost(host);
  if (!h || isIpHost(h)) return h;
  const registrable = getDomain(h, { allowPrivateDomains: true, extractHostname: false });
  if (registrable) return registrable;
  const labels = h.split(".");
  if (labels.length <= 2) return h;
  const tld = labels[labels.length - 1]!;
  const sld = labels[labels.length - 2]!;
  const take = tld.length === 2 && SECOND_LEVEL.has(sld) ? 3 : 2;
  return labels.slice(-take).join(".");
}

/** The registrable label: "paypal" for "www.paypal.co.uk". */
export function orgLabel(host: string): string {
  const org = orgDomain(host);
  const dot = org.indexOf(".");
  return dot < 0 ? org : org.slice(0, dot);
}

export const isIpHost = (h: string): boolean => h.startsWith("[") || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(h);

export const hasPunycode = (host: string): boolean => asciiHost(host).split(".").some((l) => l.startsWith("xn--"));

export const toUnicode = (host: string): string => domainToUnicode(asciiHost(host)) || host;

/** Domain after the last "@", from an address or a raw header value ("Name <a@b>"). */
export function domainOf(addressOrHeader: string): string {
  const s = addressOrHeader.length > 1024 ? addressOrHeader.slice(0, 1024) : addressOrHeader;
  const at = s.lastIndexOf("@");
  if (at < 0) return "";
  const m = /^[^\s<>@,;:"()[\]\\]+/.exec(s.slice(at + 1));
  return m ? asciiHost(m[0]) : "";
}

/** Same organisation: equal organisational domains. */
export const sameOrg = (a: string, b: string): boolean => {
  const x = orgDomain(a);
  return x !== "" && x === orgDomain(b);
};
