/**
 * Links and email addresses written in a message.
 *
 * URLs come from one regex that starts only at "http(s)://" or "www." and runs to the next
 * space, so matches never overlap and the scan is linear. Email addresses are found by
 * walking out from each "@" a bounded distance instead of by a regex, because a regex for
 * the local part retries at every character of a long run of letters.
 */
import type { Span } from "./spans.ts";

/** What a finder reports, each once, and every place it matched (repeats included). */
export interface Found<T> {
  items: T[];
  spans: Span[];
}

/** Longest URL kept: longer ones are tracking blobs, not links anyone reads. */
const MAX_URL = 2048;
// Characters that never appear unescaped in a URL written in prose, plus quotes and brackets
// that mail clients wrap links in.
const URL_START = new RegExp(String.raw`\b(?:https?:\/\/|www\.)[^\s<>"'\`{}|\\^\u00a0\u200b]{1,${MAX_URL}}`, "gi");
const TRAILING = new Set([".", ",", ";", ":", "!", "?", "*", "_", "~", "\u2019", "\u201d"]);
const CLOSERS: Record<string, string> = { ")": "(", "]": "[", "}": "{" };

/** http(s) and www. links, in order, each once. */
export function findUrls(text: string): Found<{ url: string; domain: string }> {
  const items: { url: string; domain: string }[] = [];
  const spans: Span[] = [];
  const seen = new Set<string>();
  URL_START.lastIndex = 0;
  for (let m = URL_START.exec(text); m; m = URL_START.exec(text)) {
    // "foo.www.example.com" or an email's domain is not the start of a link.
    const prev = text[m.index - 1];
    if (prev === "." || prev === "@" || prev === "/") continue;
    const raw = trimUrl(m[0]);
    const domain = hostOf(raw);
    if (!domain) continue;
    spans.push({ start: m.index, end: m.index + raw.length });
    if (seen.has(raw)) continue;
    seen.add(raw);
    items.push({ url: raw, domain });
  }
  return { items, spans };
}

/**
 * Drops what prose puts after a link: sentence punctuation, and closing brackets with no
 * opener inside the link ("(see https://x.com/a)"), one character at a time.
 */
function trimUrl(s: string): string {
  // Bracket balance counted once and kept up to date, so trimming stays linear.
  const open: Record<string, number> = { "(": 0, "[": 0, "{": 0 };
  const closed: Record<string, number> = { ")": 0, "]": 0, "}": 0 };
  for (const ch of s) {
    if (ch in open) open[ch]!++;
    else if (ch in closed) closed[ch]!++;
  }
  let end = s.length;
  while (end > 0) {
    const last = s[end - 1]!;
    const opener = CLOSERS[last];
    if (TRAILING.has(last)) end--;
    else if (opener && open[opener]! < closed[last]!) {
      closed[last]!--;
      end--;
    } else break;
  }
  return s.slice(0, end);
}

/** The link's host, lowercase, when it is a plausible public link; else null. */
function hostOf(raw: string): string | null {
  const absolute = /^www\./i.test(raw) ? `http://${raw}` : raw;
  let host: string;
  try {
    host = new URL(absolute).hostname.toLowerCase();
  } catch {
    return null;
  }
  // "https://x" or "www." alone is text, not a link.
  if (!host.includes(".") || host.endsWith(".") || host.startsWith(".")) return null;
  return host;
}

// --- email addresses -----------------------------------------------------------------

const MAX_LOCAL = 64;
const MAX_DOMAIN = 253;
// Narrower than RFC 5321 allows: quotes, "=" and "/" in prose are far more often around an
// address than in one.
const LOCAL_CHAR = /[A-Za-z0-9._%+-]/;
const DOMAIN_CHAR = /[A-Za-z0-9.-]/;
const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}$/;

/**
 * Addresses written in the text, lowercase and each once, leaving out those inside a
 * claimed span (a URL's "user@host" or a query string's "?email=a@b.com").
 */
export function findEmails(text: string, inside: (s: Span) => boolean): Found<{ address: string }> {
  const items: { address: string }[] = [];
  const spans: Span[] = [];
  const seen = new Set<string>();
  for (let at = text.indexOf("@"); at >= 0; at = text.indexOf("@", at + 1)) {
    let start = at;
    while (start > 0 && at - start < MAX_LOCAL && LOCAL_CHAR.test(text[start - 1]!)) start--;
    let end = at + 1;
    while (end < text.length && end - at <= MAX_DOMAIN && DOMAIN_CHAR.test(text[end]!)) end++;
    // Sentence punctuation and quoting around the address are not part of it.
    while (start < at && /[.%+-]/.test(text[start]!)) start++;
    while (end > at + 1 && /[.-]/.test(text[end - 1]!)) end--;
    if (start === at || end === at + 1) continue;
    const local = text.slice(start, at);
    const domain = text.slice(at + 1, end).toLowerCase();
    if (local.endsWith(".") || local.includes("..") || !DOMAIN.test(domain)) continue;
    const span = { start, end };
    if (inside(span)) continue;
    spans.push(span);
    const address = `${local.toLowerCase()}@${domain}`;
    if (seen.has(address)) continue;
    seen.add(address);
    items.push({ address });
  }
  return { items, spans };
}
