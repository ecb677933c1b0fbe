import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPglite } from "../db/pglite-template.ts";

/** A fresh PGlite cluster is copied from a template made once, not built by initdb each time (issue 13). */
describe("PGlite from a template", () => {
  test("a fresh data directory gets a working cluster from the template, and keeps its data when reopened", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "mailroom-tpl-test-"));
    try {
      const pg = await openPglite(dataDir);
      await pg.exec("create table kept (x int); insert into kept values (7)");
      await pg.close();
      expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(true);
      const template = readdirSync(tmpdir()).find((name) => name.startsWith("mailroom-pglite-template-") && !name.includes(".building-"));
      expect(template).toBeDefined();
      expect(existsSync(join(tmpdir(), template!, "template-complete"))).toBe(true);
      // The template itself is untouched by what a copy of it stores.
      expect(existsSync(join(tmpdir(), template!, "cluster", "PG_VERSION"))).toBe(true);

      const again = await openPglite(dataDir);
      expect((await again.query<{ x: number }>("select x from kept")).rows).toEqual([{ x: 7 }]);
      await again.close();

      const other = mkdtempSync(join(tmpdir(), "mailroom-tpl-test-"));
      const fresh = await openPglite(other);
      expect((await fresh.query("select to_regclass('kept') as t")).rows).toEqual([{ t: null }]);
      await fresh.close();
      rmSync(other, { recursive: true, force: true });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("in memory, each database starts empty from the template's tarball", async () => {
    const a = await openPglite(undefined);
    await a.exec("create table only_here (x int)");
    const b = await openPglite(undefined);
    expect((await b.query("select to_regclass('only_here') as t")).rows).toEqual([{ t: null }]);
    await a.close();
    await b.close();
  });
});
