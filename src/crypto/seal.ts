import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/** A 256-bit key for seal(), derived with HKDF-SHA256 from key material, a salt and a purpose. */
export const deriveKey = (material: string | Buffer, salt: string, info: string): Buffer => Buffer.from(hkdfSync("sha256", material, salt, info, 32));

/** AES-256-GCM with a random 96-bit nonce: base64(iv ‖ ciphertext ‖ tag). */
export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  return Buffer.concat([iv, cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]).toString("base64");
}

/** The plaintext of seal(); throws when the key is not the one that sealed it or the bytes were changed. */
export function unseal(key: Buffer, sealed: string): string {
  const buf = Buffer.from(sealed, "base64");
  if (buf.length < 28) throw new Error("sealed value too short");
  const decipher = createDecipheriv("aes-256-gcm", key, buf.subarray(0, 12));
  decipher.setAuthTag(buf.subarray(buf.length - 16));
  return Buffer.concat([decipher.update(buf.subarray(12, buf.length - 16)), decipher.final()]).toString("utf8");
}
