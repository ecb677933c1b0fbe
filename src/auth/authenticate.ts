import { AppError } from "../errors.ts";
import type { KeyRecord, KeyStore } from "./key-store.ts";
import { digest, matchesDigest, parseApiKeyToken, TOKEN_PREFIX } from "./tokens.ts";

export type Principal = { kind: "admin" } | { kind: "key"; keyId: string; mailboxId: string; runtime: boolean };

const BEARER_RE = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;
/** Headers peekKey keeps answers for (see `peeked`): all the keys that poll one node, with room. */
const MAX_PEEKED = 20_000;

/**
 * Turns an Authorization header into a principal, with the error codes of spec section 5:
 * no header → missing_authorization; not "Bearer <token>", or an `svc_` token of the wrong
 * shape → invalid_authorization; a well-formed token that matches nothing → invalid_token.
 */
export class Authenticator {
  private readonly adminDigest: Buffer;
  /** Per key record, the secret that matched its digest (see secretMatches). */
  private readonly verified = new WeakMap<KeyRecord, string>();
  /**
   * peekKey's answers by the exact Authorization header they were made from, with the record
   * they were checked against: an agent polling sends the same header every time, and parsing
   * and checking it again was a good part of the hot read's work.
   */
  private readonly peeked = new Map<string, { record: KeyRecord; principal: Principal & { kind: "key" } }>();

  constructor(adminToken: string, private readonly keys: KeyStore) {
    this.adminDigest = digest(adminToken);
  }

  /** Synchronous when the key is in the cache (the common case): no promise on the hot path. */
  authenticate(header: string | null | undefined): Principal | Promise<Principal> {
    if (header === null || header === undefined || header.trim() === "") {
      throw new AppError("missing_authorization", "an Authorization: Bearer <token> header is required");
    }
    const token = BEARER_RE.exec(header)?.[1];
    if (!token) throw new AppError("invalid_authorization", "the Authorization header must be \"Bearer <token>\"");

    if (token.startsWith(TOKEN_PREFIX)) {
      const parsed = parseApiKeyToken(token);
      if (!parsed) throw new AppError("invalid_authorization", "the API key token is malformed (expected svc_{keyId}.{secret})");
      const cached = this.keys.peek(parsed.keyId);
      if (cached !== undefined) return this.verify(parsed.secret, cached);
      return this.keys.get(parsed.keyId).then((record) => this.verify(parsed.secret, record));
    }
    if (matchesDigest(token, this.adminDigest)) return { kind: "admin" };
    throw new AppError("invalid_token", "the token is not valid");
  }

  /**
   * The principal of an API key whose record is in the cache and whose secret matches;
   * undefined for anything else (no header, the admin token, a miss, a wrong secret), which
   * `authenticate` then answers with its errors. Never throws, never waits.
   */
  peekKey(header: string | null): Principal | undefined {
    if (header === null) return undefined;
    const seen = this.peeked.get(header);
    // The very header that matched this record before, while the cache still holds that
    // record (revoked or read again, a key gets a new record): nothing to parse or compare.
    if (seen !== undefined && this.keys.peek(seen.principal.keyId) === seen.record) return seen.principal;
    const token = BEARER_RE.exec(header)?.[1];
    if (token === undefined || !token.startsWith(TOKEN_PREFIX)) return undefined;
    const parsed = parseApiKeyToken(token);
    if (!parsed) return undefined;
    const record = this.keys.peek(parsed.keyId);
    if (!record || record.status !== "active" || !this.secretMatches(parsed.secret, record)) return undefined;
    const principal: Principal & { kind: "key" } = { kind: "key", keyId: record.id, mailboxId: record.mailboxId, runtime: record.runtime === true };
    // Only headers that matched get in, so made-up tokens cannot fill it; the bound is a guard.
    if (this.peeked.size >= MAX_PEEKED) this.peeked.clear();
    this.peeked.set(header, { record, principal: Object.freeze(principal) });
    return principal;
  }

  /**
   * SHA-256 of the presented secret against the record's digest, once per record: the secret
   * that matched is kept with the record, so the next call with it is a constant-time string
   * comparison instead of a hash. A record is replaced whenever the key changes (revoked,
   * read again), and with it what was kept.
   */
  private secretMatches(secret: string, record: KeyRecord): boolean {
    const known = this.verified.get(record);
    if (known !== undefined && sameString(known, secret)) return true;
    if (!matchesDigest(secret, record.digest)) return false;
    this.verified.set(record, secret);
    return true;
  }

  private verify(secret: string, record: KeyRecord | null): Principal {
    // Hash the secret even for unknown keys so the answer takes the same time either way.
    const ok = record ? this.secretMatches(secret, record) : matchesDigest(secret, this.adminDigest);
    if (!record || !ok || record.status !== "active") throw new AppError("invalid_token", "the token is not valid");
    return { kind: "key", keyId: record.id, mailboxId: record.mailboxId, runtime: record.runtime === true };
  }
}

/** String equality in time that depends on the length only (secrets have a fixed length). */
function sameString(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
