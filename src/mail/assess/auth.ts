/**
 * SPF, DKIM and DMARC through mailauth, under one hard DNS deadline. Offline or against a
 * resolver that never answers, every check degrades to none/temperror within the budget:
 * assessment must never hang a delivery or throw out of assess().
 */
import { promises as dns } from "node:dns";
import { authenticate } from "mailauth";
import type { AuthResults, Envelope } from "../types.ts";
import { HEAD_SCAN_BYTES, headLength } from "./auth-head.ts";
import { cachingResolver } from "./dns-cache.ts";

export type Resolver = (name: string, rrtype: string) => Promise<unknown>;

export interface AuthOptions {
  /** Our host name, written by mailauth into its (unused) Authentication-Results. */
  mta: string;
  timeoutMs: number;
  resolver?: Resolver;
  /** DNS servers to ask instead of the system's (config DNS_SERVERS); ignored with `resolver`. */
  dnsServers?: string[];
}

// mailauth keeps working for a moment after its last DNS answer (hashing, parsing the DMARC
// record); the outer race only catches a library bug, so it gets a little more than DNS.
const GRACE_MS = 250;

const SPF = new Set<AuthResults["spf"]>(["pass", "fail", "softfail", "neutral", "none", "temperror", "permerror"]);
const DKIM = new Set<AuthResults["dkim"]>(["pass", "fail", "none", "temperror", "permerror", "policy", "neutral"]);
const DMARC = new Set<AuthResults["dmarc"]>(["pass", "fail", "none", "temperror", "permerror"]);
// When several signatures disagree the best one speaks for the message, as DMARC reads it.
const DKIM_ORDER: AuthResults["dkim"][] = ["pass", "fail", "temperror", "permerror", "policy", "neutral", "none"];

const timeoutError = (name: string) => Object.assign(new Error(`DNS lookup of ${name} timed out`), { code: "ETIMEOUT" });

/**
 * Wraps a resolver so that every lookup settles before `deadline`. After the deadline new
 * lookups fail at once, so a dead DNS costs the budget once, not once per query.
 */
export function deadlineResolver(base: Resolver, deadline: number): (name: string, rrtype: string) => Promise<never> {
  return (name, rrtype) => {
    const left = deadline - Date.now();
    if (left <= 0) return Promise.reject(timeoutError(name));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(timeoutError(name)), left);
      let pending: Promise<unknown>;
      try {
        pending = Promise.resolve(base(name, rrtype));
      } catch (err) {
        pending = Promise.reject(err);
      }
      pending.then(
        (v) => (clearTimeout(timer), resolve(v as never)),
        (err) => (clearTimeout(timer), reject(err && typeof err === "object" ? err : Object.assign(new Error(String(err)), { code: "ESERVFAIL" }))),
      );
    });
  };
}

const systemResolver: Resolver = cachingResolver((name, rrtype) => dns.resolve(name, rrtype as "TXT"));
/** Cached resolvers of configured servers, by the list (one list per process in practice). */
const serverResolvers = new Map<string, Resolver>();
function resolverOf(servers: string[] | undefined): Resolver {
  if (!servers?.length) return systemResolver;
  const key = servers.join(",");
  let r = serverResolvers.get(key);
  if (!r) {
    const own = new dns.Resolver();
    own.setServers(servers);
    serverResolvers.set(key, (r = cachingResolver((name, rrtype) => own.resolve(name, rrtype as "TXT"))));
  }
  return r;
}

export async function checkAuth(raw: Uint8Array, envelope: Envelope, opts: AuthOptions): Promise<AuthResults> {
  const deadline = Date.now() + opts.timeoutMs;
  const resolver = deadlineResolver(opts.resolver ?? resolverOf(opts.dnsServers), deadline);
  const ip = envelope.remoteAddress || undefined;
  const headEnd = headLength(raw);
  const signed = hasDkimSignature(raw, headEnd);
  const fallback: AuthResults = { spf: ip ? "temperror" : "none", dkim: signed ? "temperror" : "none", dmarc: "temperror" };
  // Without a signature no body hash is checked, so mailauth only needs the head (From for
  // DMARC); streaming a large body through its DKIM reader would be work for nothing.
  const input = signed || headEnd === raw.byteLength ? raw : raw.subarray(0, headEnd);

  const run = authenticate(Buffer.from(input.buffer, input.byteOffset, input.byteLength), {
    ip,
    helo: envelope.heloName || undefined,
    sender: envelope.mailFrom || undefined,
    mta: opts.mta,
    resolver: resolver as never,
    // ARC would only matter for a local DMARC override; BIMI fetches logos over HTTPS.
    disableArc: true,
    disableBimi: true,
    maxElapsedTime: opts.timeoutMs,
  } as Parameters<typeof authenticate>[1]).then(
    (r) => toAuthResults(r, Boolean(ip)),
    () => fallback,
  );

  let timer: ReturnType<typeof setTimeout> | undefined;
  const giveUp = new Promise<AuthResults>((resolve) => {
    timer = setTimeout(() => resolve(fallback), opts.timeoutMs + GRACE_MS);
  });
  try {
    return await Promise.race([run, giveUp]);
  } finally {
    clearTimeout(timer);
  }
}

interface DkimRow {
  status?: { result?: string };
  bodyHash?: string;
  bodyHashExpecting?: string;
}

function toAuthResults(r: Awaited<ReturnType<typeof authenticate>>, haveIp: boolean): AuthResults {
  // Without a connecting client there is nobody whose IP the sender's policy could name.
  const spfRaw = r.spf && typeof r.spf === "object" ? r.spf.status?.result : undefined;
  const spf = !haveIp ? "none" : SPF.has(spfRaw as AuthResults["spf"]) ? (spfRaw as AuthResults["spf"]) : "temperror";

  const rows = ((r.dkim as { results?: DkimRow[] } | undefined)?.results ?? []) as DkimRow[];
  let dkim: AuthResults["dkim"] = "none";
  for (const row of rows) {
    const result = dkimRowResult(row);
    if (DKIM_ORDER.indexOf(result) < DKIM_ORDER.indexOf(dkim)) dkim = result;
  }

  const dmarcRaw = r.dmarc && typeof r.dmarc === "object" ? r.dmarc.status?.result : undefined;
  const dmarc = dmarcRaw === undefined ? "none" : DMARC.has(dmarcRaw as AuthResults["dmarc"]) ? (dmarcRaw as AuthResults["dmarc"]) : "temperror";
  return { spf, dkim, dmarc };
}

/**
 * mailauth's lenient mode reports a body hash mismatch as "neutral"; RFC 6376 §6.1.3 makes it
 * a PERMFAIL and RFC 8601 calls that "fail". A changed body is exactly what dkim_fail is for,
 * so it is read from the hashes rather than from the comment text.
 */
function dkimRowResult(row: DkimRow): AuthResults["dkim"] {
  const result = row.status?.result as AuthResults["dkim"] | undefined;
  if (!result || !DKIM.has(result)) return "neutral";
  if (result === "neutral" && row.bodyHash && row.bodyHashExpecting && row.bodyHash !== row.bodyHashExpecting) return "fail";
  return result;
}

/** Cheap look at the header block, so a timed-out run can still tell signed from unsigned. */
function hasDkimSignature(raw: Uint8Array, headEnd: number): boolean {
  const head = Buffer.from(raw.buffer, raw.byteOffset, Math.min(headEnd, HEAD_SCAN_BYTES)).toString("latin1");
  return /(?:^|\n)dkim-signature:/i.test(head);
}
