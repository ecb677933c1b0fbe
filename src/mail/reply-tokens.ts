/**
 * Reply alias tokens: `{localPart}+reply-{token}@{domain}`. 128 random bits in lowercase
 * base32, because relays and mail clients may change the case of a local part; only the
 * SHA-256 of the token is stored.
 */
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";
const TOKEN_RE = /^[a-z2-7]{26}$/;
export const REPLY_TAG = "+reply-";

export function newReplyToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

export const hashReplyToken = (token: string): string => new Bun.CryptoHasher("sha256").update(token.toLowerCase()).digest("hex");

export const isWellFormedToken = (token: string): boolean => TOKEN_RE.test(token.toLowerCase());

export function replyAlias(mailboxAddress: string, token: string): string {
  const at = mailboxAddress.lastIndexOf("@");
  return `${mailboxAddress.slice(0, at)}${REPLY_TAG}${token}${mailboxAddress.slice(at)}`;
}

/** Splits `local+tag@domain` into the base address and the tag (after the first "+"). */
export function splitSubaddress(address: string): { base: string; tag: string | null } {
  const at = address.lastIndexOf("@");
  if (at < 0) return { base: address, tag: null };
  const local = address.slice(0, at);
  const plus = local.indexOf("+");
  if (plus < 0) return { base: address, tag: null };
  return { base: `${local.slice(0, plus)}${address.slice(at)}`, tag: local.slice(plus + 1) };
}
