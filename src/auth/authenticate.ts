import { AppError } from "../errors.ts";
import type { KeyRecord, KeyStore } from "./key-store.ts";
import { digest, matchesDigest, parseApiKeyToken, TOKEN_PREFIX } from "./tokens.ts";

export type Principal = { kind: "admin" } | { kind: "key"; keyId: string; mailboxId: string; runtime: boolean };

const BEARER_RE = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;

/**
 * Turns an Authorization header into a principal, with the error codes of spec section 5:
 * no header → missing_authorization; not "Bearer <token>", or an `svc_` token of the wrong
 * shape → invalid_authorization; a well-formed token that matches nothing → invalid_token.
 */
export class Authenticator {
  private readonly adminDigest: Buffer;

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

  private verify(secret: string, record: KeyRecord | null): Principal {
    // Hash the secret even for unknown keys so the answer takes the same time either way.
    const ok = matchesDigest(secret, record?.digest ?? this.adminDigest);
    if (!record || !ok || record.status !== "active") throw new AppError("invalid_token", "the token is not valid");
    return { kind: "key", keyId: record.id, mailboxId: record.mailboxId, runtime: record.runtime === true };
  }
}
