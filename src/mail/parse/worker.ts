/**
 * One parser thread of the pool in index.ts: takes { id, raw }, answers { id, ok, mail } or
 * { id, ok: false, error }. The pool owns the time budget and terminates this thread when a
 * parse overruns it, so nothing here needs to be interruptible.
 */
import { parseInline } from "./convert.ts";
import type { ParsedMail } from "../types.ts";

declare var self: Worker;

export type WorkerRequest = { id: number; raw: Uint8Array };
export type WorkerReply =
  | { type: "ready" }
  | { type: "done"; id: number; ok: true; mail: ParsedMail }
  | { type: "done"; id: number; ok: false; error: string };

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  const { id, raw } = event.data;
  let reply: WorkerReply;
  try {
    reply = { type: "done", id, ok: true, mail: await parseInline(raw) };
  } catch (err) {
    reply = { type: "done", id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  try {
    // Attachments move to the main thread instead of being copied (each owns its buffer).
    const transfer = reply.ok ? [...new Set(reply.mail.attachments.map((a) => a.content.buffer as ArrayBuffer))] : [];
    self.postMessage(reply, transfer);
  } catch (err) {
    // Not cloneable after all: report that rather than leave the pool waiting for the budget.
    self.postMessage({ type: "done", id, ok: false, error: `result not transferable: ${String(err)}` } satisfies WorkerReply);
  }
};

self.postMessage({ type: "ready" } satisfies WorkerReply);
