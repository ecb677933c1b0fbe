import { createHash, randomBytes } from "node:crypto";
import { deriveKey, seal, unseal } from "./seal.ts";
import { keptFile } from "./kept-file.ts";

const PREFIX = "sb1.";

/** What seals stored secrets, and where it came from (the README settings table explains the order). */
export interface SecretsKeyMaterial {
  material: string;
  source: "SECRETS_KEY" | "key file" | "ADMIN_TOKEN";
}

/**
 * SECRETS_KEY when set. Embedded (no DATABASE_URL): a key kept in DATA_DIR/secrets-key,
 * generated at first start. On PostgreSQL without SECRETS_KEY: the admin token, which every
 * node of a cluster already shares; changing it then needs SECRETS_KEY_PREVIOUS (the old token)
 * for one start, which re-seals everything under the new key.
 */
export function secretsKeyMaterial(opts: { secretsKey: string | undefined; databaseUrl: string | undefined; dataDir: string; adminToken: string }): SecretsKeyMaterial {
  if (opts.secretsKey) return { material: opts.secretsKey, source: "SECRETS_KEY" };
  if (!opts.databaseUrl) {
    const material = keptFile(opts.dataDir, "secrets-key", () => randomBytes(32).toString("hex"), (v) => /^[0-9a-f]{64}$/.test(v), "secrets key (or set SECRETS_KEY)");
    return { material, source: "key file" };
  }
  return { material: opts.adminToken, source: "ADMIN_TOKEN" };
}

export class UnknownSecretsKeyError extends Error {
  override name = "UnknownSecretsKeyError";
}

interface Key {
  id: string;
  key: Buffer;
}

const keyOf = (material: string): Key => {
  const key = deriveKey(material, "mailroom", "mailroom stored secrets v1");
  // Names the key in each sealed value without revealing anything of it.
  return { id: createHash("sha256").update(key).update("key id").digest("hex").slice(0, 12), key };
};

/**
 * Signing secrets at rest: `sb1.{keyId}.{base64(iv ‖ AES-256-GCM ciphertext ‖ tag)}`. The key
 * id says which key sealed a value, so values sealed under the previous key still open while
 * start-up re-seals them (src/crypto/reseal.ts).
 */
export class SecretBox {
  private readonly current: Key;
  private readonly previous: Key | undefined;

  constructor(material: string, previousMaterial?: string) {
    this.current = keyOf(material);
    this.previous = previousMaterial ? keyOf(previousMaterial) : undefined;
  }

  get keyId(): string {
    return this.current.id;
  }

  seal(plaintext: string): string {
    return `${PREFIX}${this.current.id}.${seal(this.current.key, plaintext)}`;
  }

  /**
   * The secret. A value without the prefix was written before secrets were sealed: it is the
   * secret itself (start-up seals every such value).
   */
  open(stored: string): string {
    if (!stored.startsWith(PREFIX)) return stored;
    const dot = stored.indexOf(".", PREFIX.length);
    const id = stored.slice(PREFIX.length, dot);
    const key = [this.current, this.previous].find((k) => k?.id === id);
    if (!key) throw new UnknownSecretsKeyError(`a stored secret was sealed with key ${id}, which is neither the current key (${this.current.id}) nor SECRETS_KEY_PREVIOUS`);
    return unseal(key.key, stored.slice(dot + 1));
  }

  /** Sealed under the current key (nothing to re-seal). */
  isCurrent(stored: string): boolean {
    return stored.startsWith(`${PREFIX}${this.current.id}.`);
  }
}
