import { randomBytes } from "node:crypto";
import { keptFile } from "../crypto/kept-file.ts";

/**
 * ADMIN_TOKEN when set; otherwise the token kept in DATA_DIR/admin-token, generated (and
 * reported through `onGenerated`, so it is printed exactly once) on the very first start.
 */
export function resolveAdminToken(configured: string | undefined, dataDir: string, onGenerated: (token: string, path: string) => void): string {
  if (configured) return configured;
  return keptFile(dataDir, "admin-token", () => `adm_${randomBytes(32).toString("base64url")}`, (t) => /^[\x21-\x7e]{16,512}$/.test(t), "admin token (or set ADMIN_TOKEN)", onGenerated);
}
