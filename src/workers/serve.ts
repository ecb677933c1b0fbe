/**
 * The worker side of WorkerPool (./pool.ts): takes { id, input }, answers { id, ok, value } or
 * { id, ok: false, error }. The pool owns the time budget and terminates the thread when a
 * call overruns it, so handlers need not be interruptible. Imports nothing heavy, so a worker
 * loads only what its handler needs.
 */

import { lowerThreadPriority } from "./thread-priority.ts";

export type WorkerRequest<Q> = { id: number; input: Q };
/** Sent by the pool before any call: the nice value this thread takes (./thread-priority.ts). */
export type WorkerPriority = { nice: number };
export type WorkerReply<R> =
  | { type: "ready" }
  | { type: "done"; id: number; ok: true; value: R }
  | { type: "done"; id: number; ok: false; error: string };

declare var self: Worker;

/**
 * Serves calls in this worker; `transferOf` names buffers of a result to move instead of copy.
 * `warmUp` runs before the worker says "ready": the first call on a fresh thread otherwise pays
 * for loading and compiling its handler's code inside its own time budget, which on a busy
 * machine can take longer than the budget itself (a replaced worker would then time out the
 * next ordinary mail). A warm-up that fails is ignored: the real call will report the fault.
 */
export function serveWorker<Q, R>(handle: (input: Q) => R | Promise<R>, transferOf: (value: R) => Bun.Transferable[] = () => [], warmUp?: () => unknown): void {
  self.onmessage = async (event: MessageEvent<WorkerRequest<Q> | WorkerPriority>) => {
    if ("nice" in event.data) return void lowerThreadPriority(event.data.nice);
    const { id, input } = event.data;
    let reply: WorkerReply<R>;
    try {
      reply = { type: "done", id, ok: true, value: await handle(input) };
    } catch (err) {
      reply = { type: "done", id, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    try {
      self.postMessage(reply, reply.ok ? transferOf(reply.value) : []);
    } catch (err) {
      // Not cloneable after all: report that rather than leave the pool waiting for the budget.
      self.postMessage({ type: "done", id, ok: false, error: `result not transferable: ${String(err)}` } satisfies WorkerReply<R>);
    }
  };
  const ready = () => self.postMessage({ type: "ready" } satisfies WorkerReply<R>);
  if (!warmUp) return ready();
  void (async () => {
    try {
      await warmUp();
    } catch {}
    ready();
  })();
}
