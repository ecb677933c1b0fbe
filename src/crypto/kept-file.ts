import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

/**
 * A value kept in DATA_DIR/{name} (mode 0600): read when the file exists, otherwise made,
 * written and reported through `onGenerated` (so the first start alone sees it made).
 * Written to a private temporary file, then linked into place: the file is never seen half
 * written, and link refuses to overwrite, so if another process won the race, its value wins.
 */
export function keptFile(dataDir: string, name: string, make: () => string, valid: (v: string) => boolean, what: string, onGenerated?: (value: string, path: string) => void): string {
  const path = join(dataDir, name);
  if (existsSync(path)) return readStored(path, valid, what);
  mkdirSync(dataDir, { recursive: true });
  const value = make();
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, `${value}\n`, { mode: 0o600, flag: "wx" });
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return readStored(path, valid, what);
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  onGenerated?.(value, path);
  return value;
}

/** An empty or mangled file is an error, never a value nobody meant. */
function readStored(path: string, valid: (v: string) => boolean, what: string): string {
  const value = readFileSync(path, "utf8").trim();
  if (!valid(value)) throw new Error(`${path} does not hold a usable ${what}; delete it to generate a new one`);
  return value;
}
