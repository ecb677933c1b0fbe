/**
 * Failures the fuzzer already knows about: each entry names an open finding of issue 13 and
 * recognises its inputs. A failing case that one of them recognises is counted as known instead
 * of failing the run. Empty an entry once its fix is merged; a stale entry only hides nothing,
 * since it is consulted after a case has already failed.
 */
export interface FuzzCase {
  surface: string;
  /** "METHOD /pattern" of the route table, or the SMTP command. */
  route: string;
  method: string;
  /** The path with query, exactly as sent. */
  target: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface Known {
  finding: string;
  matches: (c: FuzzCase, status: number) => boolean;
}

const text = (c: FuzzCase): string => (c.body === undefined ? "" : typeof c.body === "string" ? c.body : new TextDecoder().decode(c.body));
const contentType = (c: FuzzCase) => (c.headers["content-type"] ?? "").toLowerCase();
const isJson = (c: FuzzCase) => contentType(c).startsWith("application/json");
const pathOnly = (c: FuzzCase) => c.target.split("?")[0]!;
const query = (c: FuzzCase) => c.target.split("?").slice(1).join("?");

/** The deepest nesting of brackets in a JSON text, counted without parsing it. */
function jsonDepth(s: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") max = Math.max(max, ++depth);
    else if (ch === "}" || ch === "]") depth--;
  }
  return max;
}

/** A percent sign not followed by two hex digits, or an escape that does not decode as UTF-8. */
function badPercent(s: string): boolean {
  if (/%(?![0-9A-Fa-f]{2})/.test(s)) return true;
  try {
    decodeURIComponent(s);
    return false;
  } catch {
    return true;
  }
}

export const KNOWN: Known[] = [
  { finding: "deep JSON nesting stalls or breaks the node", matches: (c) => isJson(c) && jsonDepth(text(c)) > 64 },
  { finding: "a body that is not application/json is ignored or validated slowly", matches: (c) => c.surface === "json" && c.body !== undefined && !isJson(c) },
  { finding: "NUL in free-text fields → 500", matches: (c, status) => status >= 500 && (text(c).includes("\\u0000") || text(c).includes("\u0000")) },
  { finding: "%00 in a path segment → 500", matches: (c, status) => status >= 500 && /%00/i.test(pathOnly(c)) },
  { finding: "a page number past the integer range → 500", matches: (c, status) => status >= 500 && /(^|&)page=[^&]*\d{10}/.test(query(c)) },
  { finding: "malformed percent-encoding in :mailboxId → 500", matches: (c, status) => status >= 500 && badPercent(pathOnly(c)) },
  { finding: "a Host header with a port past 65535 → 500", matches: (c, status) => status >= 500 && /:\d{6,}$|:(6553[6-9]|655[4-9]\d|65[6-9]\d\d|6[6-9]\d{3}|[7-9]\d{4})$/.test(c.headers.host ?? "") },
  { finding: "~90 Cc addresses: the thread insert fails and the message is never processed", matches: (c) => (text(c).match(/@/g)?.length ?? 0) > 40 },
  // New (found by this fuzzer, reported on issue 13; the JSON intake's owner fixes it).
  { finding: "NEW: a lone surrogate in a JSON string stored as jsonb → 500", matches: (c, status) => status >= 500 && LONE_SURROGATE.test(text(c)) },
  { finding: "NEW: a Subject of ~3 KB of varied text overflows threads_mailbox_subject_idx; the message is never processed", matches: (c) => /^Subject: [^\r\n]{2000,}/m.test(text(c)) },
  { finding: "NEW: summary/digest text cut inside a surrogate pair is refused by jsonb → 500", matches: (c, status) => c.surface === "mime-processed" && status >= 500 && /\/(summary|digest)$/.test(c.target) },
];

/** A \\uD800-\\uDFFF escape (or raw code unit) without its partner. */
const LONE_SURROGATE = /\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/i;

export const knownFinding = (c: FuzzCase, status: number): string | undefined => KNOWN.find((k) => k.matches(c, status))?.finding;
