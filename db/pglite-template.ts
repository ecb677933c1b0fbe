/**
 * A fresh PGlite cluster from a template instead of initdb. Creating a cluster runs initdb
 * inside the WebAssembly PostgreSQL, which took 20-45 s on a loaded 2-core machine (a copy of
 * an initialised cluster opens in a few seconds), and every fresh on-disk data directory and
 * every in-memory database (tests) paid it. The first fresh start on a machine makes the
 * template once, in the OS temp directory, keyed by the PGlite version; later fresh starts copy
 * it (on disk) or load its tarball (in memory). A data directory that already holds a cluster
 * is opened as it is. Migrations still run on every start (db/migrate.ts).
 */
import { PGlite } from "@electric-sql/pglite";
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const TARBALL = "cluster.tar";
const COMPLETE = "template-complete";

/** The template for this PGlite version: a closed cluster directory and its tarball. */
function templatePaths(): { dir: string; cluster: string; tarball: string } {
  const entry = Bun.resolveSync("@electric-sql/pglite", import.meta.dir);
  const pkg = JSON.parse(readFileSync(join(entry.slice(0, entry.lastIndexOf("/dist/")), "package.json"), "utf8")) as { version: string };
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  const dir = join(tmpdir(), `mailroom-pglite-template-${pkg.version}-${uid}`);
  return { dir, cluster: join(dir, "cluster"), tarball: join(dir, TARBALL) };
}

/** Makes the template unless it exists. Several processes may race: each builds its own and the first rename wins. */
async function ensureTemplate(): Promise<{ cluster: string; tarball: string }> {
  const paths = templatePaths();
  if (existsSync(join(paths.dir, COMPLETE))) return paths;
  const building = `${paths.dir}.building-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  try {
    mkdirSync(building, { recursive: true });
    const pg = await PGlite.create({ dataDir: join(building, "cluster") });
    const tarball = await pg.dumpDataDir("none");
    await pg.close();
    writeFileSync(join(building, TARBALL), new Uint8Array(await tarball.arrayBuffer()));
    writeFileSync(join(building, COMPLETE), new Date().toISOString());
    mkdirSync(dirname(paths.dir), { recursive: true });
    try {
      renameSync(building, paths.dir);
    } catch {
      // Another process finished first (or a stale incomplete one is in the way: replace it).
      if (!existsSync(join(paths.dir, COMPLETE))) {
        rmSync(paths.dir, { recursive: true, force: true });
        renameSync(building, paths.dir);
      }
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return paths;
}

/**
 * Opens PGlite on `dataDir` (or in memory when undefined), starting a fresh cluster from the
 * template. Falls back to a plain create (initdb) when the template cannot be made or used.
 */
export async function openPglite(dataDir: string | undefined): Promise<PGlite> {
  const fresh = dataDir === undefined || !existsSync(join(dataDir, "PG_VERSION"));
  if (!fresh) return PGlite.create({ dataDir });
  let template: { cluster: string; tarball: string } | undefined;
  try {
    template = await ensureTemplate();
  } catch {
    template = undefined; // a read-only or full temp directory: initdb as before
  }
  if (!template) return PGlite.create(dataDir ? { dataDir } : {});
  if (dataDir === undefined) return PGlite.create({ loadDataDir: Bun.file(template.tarball) });
  cpSync(template.cluster, dataDir, { recursive: true });
  return PGlite.create({ dataDir });
}
