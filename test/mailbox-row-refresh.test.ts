import { describe, expect, test } from "bun:test";
import { keptMailbox } from "../actors/mailbox/mailbox-row.ts";
import type { WriteContext } from "../actors/mailbox/types.ts";

/**
 * The kept mailbox row is read again in the background ahead of its going stale, so no request
 * (and no command queued behind one) waits for that read; a row replaced meanwhile wins.
 */
describe("keptMailbox", () => {
  /** A context whose database answers `fresh` to the row's read once `release` is called. */
  const ctx = (ageMs: number) => {
    const reads: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const fresh = { id: "mb-1", status: "disabled" };
    const db = { select: () => ({ from: () => ({ where: () => ({ limit: async () => (reads.push("read"), await gate, [fresh]) }) }) }) };
    const c = { state: { mailbox: { id: "mb-1", status: "active" }, loadedAt: performance.now() - ageMs, windows: new Map() }, deps: { freshnessMs: 1000, db } } as unknown as WriteContext;
    return { c, reads, release, fresh };
  };

  test("a young row is answered and not read again", () => {
    const { c, reads } = ctx(100);
    expect(keptMailbox(c)?.status).toBe("active");
    expect(reads).toEqual([]);
  });

  test("late in its freshness the row is still answered, and read again once in the background", async () => {
    const { c, reads, release, fresh } = ctx(800);
    const readAt = c.state.loadedAt;
    expect(keptMailbox(c)?.status).toBe("active");
    expect(keptMailbox(c)?.status).toBe("active");
    await Bun.sleep(0);
    expect(reads).toEqual(["read"]);
    release();
    await Bun.sleep(0);
    expect(keptMailbox(c)).toBe(fresh as never);
    expect(c.state.refreshing).toBe(false);
    // The fresh row counts its freshness from its own read, not the old row's.
    expect(c.state.loadedAt).toBeGreaterThan(readAt);
  });

  test("a row replaced while the read runs (a write) is kept, not the read's", async () => {
    const { c, release } = ctx(800);
    keptMailbox(c);
    const written = { id: "mb-1", status: "active", slug: "written" };
    c.state.mailbox = written as never;
    release();
    await Bun.sleep(0);
    expect(c.state.mailbox).toBe(written as never);
  });

  test("a stale row is not answered from memory", () => {
    const { c, reads } = ctx(1500);
    expect(keptMailbox(c)).toBeUndefined();
    expect(reads).toEqual([]);
  });
});
