import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  if (existsSync(path)) return readStored(path);
  mkdirSync(dataDir, { recursive: true });
  const token = `adm_${randomBytes(32).toString("base64url")}`;
  // Written to a private temporary file, then linked into place: the file is never seen half
  // written, and link refuses to overwrite, so if another process won the race, use its token.
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, `${token}\n`, { mode: 0o600, flag: "wx" });
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return readStored(path);
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  onGenerated(token, path);
  return token;
}

/** The stored token; an empty or mangled file is an error, never an admin token nobody can send. */
function readStored(path: string): string {
  const token = readFileSync(path, "utf8").trim();
  if (!/^[\x21-\x7e]{16,512}$/.test(token)) {
    throw new Error(`${path} does not hold a usable admin token; delete it to generate a new one, or set ADMIN_TOKEN`);
  }
  return token;
}
