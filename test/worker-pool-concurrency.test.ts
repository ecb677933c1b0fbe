/**
 * A worker pool whose threads run several calls at once (src/workers/pool.ts `concurrency`),
 * for calls that mostly wait, as mailauth's DNS lookups do.
 */
import { expect, test } from "bun:test";
import { WorkerPool } from "../src/workers/pool.ts";

const url = new URL("./fixtures/workers/wait-worker.ts", import.meta.url);
type Pool = WorkerPool<{ ms: number; spin?: boolean }, { thread: number; together: number }>;

test("one thread runs up to `concurrency` waiting calls at once, the rest queue for a free place", async () => {
  const pool: Pool = new WorkerPool({ url, workers: 1, timeoutMs: 30_000, concurrency: 4 });
  try {
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => pool.run({ ms: 1000 })));
    const values = outcomes.map((o) => (o.ok ? o.value : null));
    expect(values.every((v) => v !== null)).toBe(true);
    expect(new Set(values.map((v) => v!.thread)).size).toBe(1);
    // Each call started beside the others its place allowed, never beside more than 4.
    expect(Math.max(...values.map((v) => v!.together))).toBe(4);
  } finally {
    await pool.close();
  }
});

test("without the option a thread runs one call at a time, as before", async () => {
  const pool: Pool = new WorkerPool({ url, workers: 1, timeoutMs: 30_000 });
  try {
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => pool.run({ ms: 20 })));
    expect(outcomes.map((o) => (o.ok ? o.value.together : 0))).toEqual([1, 1, 1, 1]);
  } finally {
    await pool.close();
  }
});

test("a call that overruns its budget ends as timeout, the calls sharing its thread as failed, and the pool goes on", async () => {
  const pool: Pool = new WorkerPool({ url, workers: 1, timeoutMs: 1000, concurrency: 4 });
  try {
    expect((await pool.run({ ms: 0 })).ok).toBe(true);
    const waiting = pool.run({ ms: 3000 });
    const stuck = pool.run({ ms: 5000, spin: true });
    const [w, s] = await Promise.all([waiting, stuck]);
    expect(s).toMatchObject({ ok: false });
    expect(w).toMatchObject({ ok: false });
    // Which of the two overran first depends on the order of their timers; one is the timeout,
    // and a call cut short with it says why.
    const kinds = [w, s].map((o) => (o.ok ? "ok" : o.kind)).sort();
    expect(kinds).toEqual(["failed", "timeout"]);
    const bystander = [w, s].find((o) => !o.ok && o.kind === "failed");
    expect(bystander && !bystander.ok ? bystander.message : "").toContain("its worker was stopped");
    // A fresh thread takes the next calls.
    const after = await pool.run({ ms: 0 });
    expect(after.ok).toBe(true);
  } finally {
    await pool.close();
  }
});

test("concurrency must be a whole number of 1 or more", () => {
  expect(() => new WorkerPool({ url, workers: 1, timeoutMs: 1000, concurrency: 0 })).toThrow(RangeError);
  expect(() => new WorkerPool({ url, workers: 1, timeoutMs: 1000, concurrency: 1.5 })).toThrow(RangeError);
});
