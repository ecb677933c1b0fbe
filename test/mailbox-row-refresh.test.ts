import { describe, expect, test } from "bun:test";
import { keptMailbox } from "../actors/mailbox/mailbox-row.ts";
import type { WriteContext } from "../actors/mailbox/types.ts";

/** The kept mailbox row is read again ahead of its going stale, so no request waits for that read. */
describe("keptMailbox", () => {
  const ctx = (ageMs: number, refreshAhead?: (id: string) => void) =>
    ({
      state: { mailbox: { id: "mb-1" }, loadedAt: performance.now() - ageMs, windows: new Map() },
      deps: { freshnessMs: 1000, ...(refreshAhead ? { refreshAhead } : {}) },
    }) as unknown as WriteContext;

  test("a young row is answered and nothing is queued", () => {
    const asked: string[] = [];
    const c = ctx(100, (id) => asked.push(id));
    expect(keptMailbox(c)?.id).toBe("mb-1");
    expect(asked).toEqual([]);
  });

  test("late in its freshness the row is still answered, and one read of it is queued", () => {
    const asked: string[] = [];
    const c = ctx(800, (id) => asked.push(id));
    expect(keptMailbox(c)?.id).toBe("mb-1");
    expect(keptMailbox(c)?.id).toBe("mb-1");
    expect(asked).toEqual(["mb-1"]);
    expect(c.state.refreshing).toBe(true);
  });

  test("a stale row is not answered from memory", () => {
    const asked: string[] = [];
    expect(keptMailbox(ctx(1500, (id) => asked.push(id)))).toBeUndefined();
    expect(asked).toEqual([]);
  });
});
