import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { getPriority } from "node:os";
import { loadConfig } from "../src/config.ts";
import { WorkerPool } from "../src/workers/pool.ts";
import { DEFAULT_WORKER_NICE, setWorkerNice, workerNice } from "../src/workers/thread-priority.ts";

const url = new URL("./fixtures/workers/nice-worker.ts", import.meta.url);
const niceOf = async (pool: WorkerPool<null, number>) => {
  const outcome = await pool.run(null);
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.value;
};

describe.skipIf(!existsSync("/proc/thread-self"))("worker threads run nicer than the event loop", () => {
  afterEach(() => setWorkerNice(DEFAULT_WORKER_NICE));

  test("a pool's worker takes the process's worker nice value; the event loop keeps its own", async () => {
    const loop = getPriority();
    setWorkerNice(7);
    const pool = new WorkerPool<null, number>({ url, workers: 1, timeoutMs: 10_000 });
    try {
      expect(await niceOf(pool)).toBe(Math.max(7, loop));
      expect(getPriority()).toBe(loop);
    } finally {
      await pool.close();
    }
  });

  test("0 leaves workers at the loop's priority", async () => {
    setWorkerNice(0);
    const pool = new WorkerPool<null, number>({ url, workers: 1, timeoutMs: 10_000 });
    try {
      expect(await niceOf(pool)).toBe(getPriority());
    } finally {
      await pool.close();
    }
  });
});

test("WORKER_NICE is checked at start-up: 0-19, default 10", () => {
  const base = { ...process.env };
  delete base.WORKER_NICE;
  expect(loadConfig(base).workerNice).toBe(DEFAULT_WORKER_NICE);
  expect(loadConfig({ ...base, WORKER_NICE: "0" }).workerNice).toBe(0);
  expect(() => loadConfig({ ...base, WORKER_NICE: "20" })).toThrow(/WORKER_NICE must be an integer from 0 to 19/);
  expect(() => setWorkerNice(-1)).toThrow(RangeError);
  expect(workerNice()).toBe(DEFAULT_WORKER_NICE);
});
