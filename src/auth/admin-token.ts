import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

/**
 * ADMIN_TOKEN when set; otherwise the token kept in DATA_DIR/admin-token, generated (and
 * reported through `onGenerated`, so it is printed exactly once) on the very first start.
 */
export function resolveAdminToken(
  configured: string | undefined,
  dataDir: string,
  onGenerated: (token: string, path: string) => void,
): string {
  if (configured) return configured;
  const path = join(dataDir, "admin-token");
  if (existsSync(path)) {
    const token = readFileSync(path, "utf8").trim();
    if (token) return token;
  }
  mkdirSync(dataDir, { recursive: true });
  const token = `adm_${randomBytes(32).toString("base64url")}`;
  // "wx" refuses to overwrite: if another process won the race, use its token instead.
  try {
    writeFileSync(path, `${token}\n`, { mode: 0o600, flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return readFileSync(path, "utf8").trim();
    throw err;
  }
  onGenerated(token, path);
  return token;
}
