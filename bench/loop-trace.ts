/**
 * Preloaded into the service by `BENCH_LOOP_TRACE=<ms>` (bench/lib.ts): a 5 ms timer on the
 * service's thread that reports, on stderr, every gap between its ticks longer than `<ms>`,
 * split by the thread's own scheduler accounting (/proc/thread-self/schedstat): the time the
 * thread ran on a CPU and the time it waited for one. On a loaded machine a /health gap is
 * mostly waiting; this tells the work the thread did in it (native work included, which a CPU
 * profile does not sample) from the scheduler's share.
 */
import { readFileSync } from "node:fs";

const threshold = Number(process.env.BENCH_LOOP_TRACE) || 25;
const sched = () => {
  const [run, wait] = readFileSync("/proc/thread-self/schedstat", "utf8").split(" ").map(Number);
  return { run: run! / 1e6, wait: wait! / 1e6 };
};
let last = performance.now();
let lastSched = sched();
setInterval(() => {
  const now = performance.now();
  const s = sched();
  const gap = now - last;
  if (gap > threshold) {
    process.stderr.write(`LOOPGAP ${gap.toFixed(1)} ms ending at ${now.toFixed(0)}: on cpu ${(s.run - lastSched.run).toFixed(1)} ms, waiting ${(s.wait - lastSched.wait).toFixed(1)} ms\n`);
  }
  last = now;
  lastSched = s;
}, 5).unref();
