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

/**
 * seal() for bytes, off the event loop: Bun runs WebCrypto's AES-GCM on a thread of its own,
 * where node:crypto's runs on the caller's (35–120 ms of the loop for 8 MiB, measured). The
 * result is the same format, base64(iv ‖ ciphertext ‖ tag), so unseal() and unsealBytes() read
 * either.
 */
export async function sealBytes(key: Buffer, plaintext: Uint8Array): Promise<string> {
  return Buffer.from(await sealRaw(key, plaintext)).toString("base64");
}

/** unseal() to bytes, off the event loop; rejects when the key is not the one that sealed it or the bytes were changed. */
export const unsealBytes = (key: Buffer, sealed: string): Promise<Uint8Array> => unsealRaw(key, Buffer.from(sealed, "base64"));

/**
 * seal() of bytes given in parts, as iv ‖ ciphertext ‖ tag, without joining the parts first.
 * Synchronous: for a worker thread (src/mail/native-sql.ts), not the event loop.
 */
export function sealPartsSync(key: Uint8Array, parts: readonly Uint8Array[]): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const out = [iv, ...parts.map((p) => cipher.update(p)), cipher.final()];
  out.push(cipher.getAuthTag());
  return Buffer.concat(out);
}

/** The plaintext of iv ‖ ciphertext ‖ tag; throws when the key is wrong or a byte changed. For a worker thread. */
export function unsealRawSync(key: Uint8Array, sealed: Uint8Array): Buffer {
  if (sealed.byteLength < 28) throw new Error("sealed value too short");
  const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(sealed.byteLength - 16));
  return Buffer.concat([decipher.update(sealed.subarray(12, sealed.byteLength - 16)), decipher.final()]);
}

/**
 * sealRaw() in its two parts, iv and ciphertext ‖ tag, as WebCrypto gives them: joining them
 * is a copy into fresh memory (~20 ms of the event loop for 8 MiB), which a caller that
 * stores them can leave to the database (`iv || sealed`).
 */
export async function sealSplit(key: Buffer, plaintext: Uint8Array): Promise<{ iv: Uint8Array; tagged: Uint8Array }> {
  const iv = new Uint8Array(randomBytes(12));
  const tagged = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, tagLength: 128 }, await gcmKey(key, "encrypt"), plaintext as Uint8Array<ArrayBuffer>));
  return { iv, tagged };
}

/** sealBytes() without the base64: iv ‖ ciphertext ‖ tag, for a bytea column. */
export async function sealRaw(key: Buffer, plaintext: Uint8Array): Promise<Uint8Array> {
  const { iv, tagged } = await sealSplit(key, plaintext);
  const out = new Uint8Array(12 + tagged.byteLength);
  out.set(iv);
  out.set(tagged, 12);
  return out;
}

/** The plaintext of sealRaw() (or of sealBytes()'s decoded base64). */
export async function unsealRaw(key: Buffer, sealed: Uint8Array): Promise<Uint8Array> {
  if (sealed.byteLength < 28) throw new Error("sealed value too short");
  return new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: sealed.subarray(0, 12) as Uint8Array<ArrayBuffer>, tagLength: 128 }, await gcmKey(key, "decrypt"), sealed.subarray(12) as Uint8Array<ArrayBuffer>));
}

const gcmKey = (key: Buffer, use: "encrypt" | "decrypt") => crypto.subtle.importKey("raw", key as Uint8Array<ArrayBuffer>, "AES-GCM", false, [use]);
