/**
 * A worker pool's spare threads (src/workers/pool.ts): they take calls only while a call has
 * waited its turn behind busy workers, so an ordinary load runs on the pool's own threads and
 * a slow call does not hold up the calls behind it for its whole budget.
 */
import { expect, test } from "bun:test";
import { WorkerPool } from "../src/workers/pool.ts";

const url = new URL("./fixtures/workers/sleep-worker.ts", import.meta.url);
type Pool = WorkerPool<{ ms: number }, number>;

/** Runs a call; resolves with the thread it ran on and the order in which it finished. */
function tracked(pool: Pool, ms: number, finished: string[], name: string): Promise<number> {
  return pool.run({ ms }).then((outcome) => {
    if (!outcome.ok) throw new Error(outcome.message);
    finished.push(name);
    return outcome.value;
  });
}

test("while the workers keep up, every call runs on them and the spare is never started", async () => {
  const pool: Pool = new WorkerPool({ url, workers: 1, timeoutMs: 30_000, spare: { workers: 1, afterMs: 10_000 } });
  try {
    const threads = new Set<number>();
    for (let burst = 0; burst < 5; burst++) {
      const done: string[] = [];
      for (const t of await Promise.all([0, 1, 2, 3].map((i) => tracked(pool, 0, done, `${i}`)))) threads.add(t);
    }
    expect(threads.size).toBe(1);
  } finally {
    await pool.close();
  }
});

test("a call that waited behind a slow one goes to a spare thread and finishes first", async () => {
  const pool: Pool = new WorkerPool({ url, workers: 1, timeoutMs: 30_000, spare: { workers: 1, afterMs: 50 } });
  try {
    const finished: string[] = [];
    // Start the worker first, so that the slow call is running when the quick one is queued.
    const first = await tracked(pool, 0, [], "warm");
    const slow = tracked(pool, 4000, finished, "slow");
    const quick = tracked(pool, 0, finished, "quick");
    const [slowThread, quickThread] = await Promise.all([slow, quick]);
    expect(finished).toEqual(["quick", "slow"]);
    expect(slowThread).toBe(first);
    expect(quickThread).not.toBe(slowThread);
  } finally {
    await pool.close();
  }
});

test("without a spare, the call waits for the slow one", async () => {
  const pool: Pool = new WorkerPool({ url, workers: 1, timeoutMs: 30_000 });
  try {
    const finished: string[] = [];
    await tracked(pool, 0, [], "warm");
    const slow = tracked(pool, 500, finished, "slow");
    const quick = tracked(pool, 0, finished, "quick");
    const [slowThread, quickThread] = await Promise.all([slow, quick]);
    expect(finished).toEqual(["slow", "quick"]);
    expect(quickThread).toBe(slowThread);
  } finally {
    await pool.close();
  }
});

test("no more than the workers and the spares run at once", async () => {
  const pool: Pool = new WorkerPool({ url, workers: 1, timeoutMs: 30_000, spare: { workers: 1, afterMs: 20 } });
  try {
    const finished: string[] = [];
    await tracked(pool, 0, [], "warm");
    const calls = [tracked(pool, 1500, finished, "slow 1"), tracked(pool, 1500, finished, "slow 2"), tracked(pool, 0, finished, "quick")];
    const threads = await Promise.all(calls);
    // Two threads at most: the quick call waited for one of the slow ones.
    expect(new Set(threads).size).toBe(2);
    expect(finished.indexOf("quick")).toBeGreaterThan(0);
  } finally {
    await pool.close();
  }
});

test("a spare must be a whole number of threads and a wait of 0 ms or more", () => {
  expect(() => new WorkerPool({ url, workers: 1, timeoutMs: 1000, spare: { workers: 1.5, afterMs: 10 } })).toThrow(RangeError);
  expect(() => new WorkerPool({ url, workers: 1, timeoutMs: 1000, spare: { workers: 1, afterMs: -1 } })).toThrow(RangeError);
});
