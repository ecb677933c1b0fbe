import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { isUuid } from "../domain/ids.ts";

/**
 * Mailbox API key tokens: `svc_{keyId}.{secret}`, the secret 32 random bytes (256 bits)
 * in base64url. Only SHA-256(secret) is stored; a fast hash is right here because the
 * secret has full entropy (nothing to brute-force), unlike a password.
 */
export const TOKEN_PREFIX = "svc_";
const SECRET_BYTES = 32;
const SECRET_RE = /^[A-Za-z0-9_-]{43}$/; // 32 bytes of base64url without padding

export interface ParsedToken {
  keyId: string;
  secret: string;
}

export function issueSecret(keyId: string): { token: string; digest: string } {
  const secret = randomBytes(SECRET_BYTES).toString("base64url");
  return { token: `${TOKEN_PREFIX}${keyId}.${secret}`, digest: digestHex(secret) };
}

/** null when the string is not shaped like an API key token at all. */
export function parseApiKeyToken(token: string): ParsedToken | null {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  const dot = token.indexOf(".", TOKEN_PREFIX.length);
  if (dot < 0) return null;
  const keyId = token.slice(TOKEN_PREFIX.length, dot).toLowerCase();
  const secret = token.slice(dot + 1);
  if (!isUuid(keyId) || !SECRET_RE.test(secret)) return null;
  return { keyId, secret };
}

// Bun's one-shot hasher: no hash object per call on the authentication hot path.
export const digest = (value: string): Buffer => Buffer.from(Bun.CryptoHasher.hash("sha256", value) as Uint8Array);
export const digestHex = (value: string): string => createHash("sha256").update(value).digest("hex");

/** Constant-time comparison of a presented value against a stored SHA-256 digest. */
export function matchesDigest(presented: string, stored: Buffer): boolean {
  const d = digest(presented);
  return d.length === stored.length && timingSafeEqual(d, stored);
}
