import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";

/** The default of WORKER_NICE (README "Configuration"). */
export const DEFAULT_WORKER_NICE = 10;

let nice = DEFAULT_WORKER_NICE;

/** Sets the nice value of worker threads started from now on in this process (0 leaves them alone). */
export function setWorkerNice(value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 19) throw new RangeError("worker nice must be an integer from 0 to 19");
  nice = value;
}

/** The nice value a newly started worker thread is given. */
export const workerNice = (): number => nice;

/**
 * Lowers the calling thread's scheduling priority to `value` (nice, 1–19; 0 leaves it alone).
 * Called by a worker thread on itself (./serve.ts), told the value by its pool.
 *
 * Why: on a small machine the event loop shares the cores with the worker threads it feeds
 * (parsing, JSON, blobs, composing). At equal priority a worker busy with a large input takes
 * its full share while the event loop waits for a core, and every HTTP and SMTP client of the
 * node waits with it; measured, most of a 100 ms /health gap during a large send was the loop
 * waiting for a CPU, not running. A nicer worker still gets every idle cycle, so the work done
 * is the same; what changes is who waits when both want a core.
 *
 * Linux applies setpriority(PRIO_PROCESS, tid) to that one thread; /proc/thread-self names
 * it. Elsewhere, or when the call is refused, nothing changes: this is best effort by design.
 */
export function lowerThreadPriority(value: number): boolean {
  if (!Number.isInteger(value) || value <= 0 || value > 19) return false;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, value);
    return true;
  } catch {
    return false; // not Linux, no /proc, or not permitted: the thread keeps its priority
  }
}
