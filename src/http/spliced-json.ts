/**
 * A JSON answer some of whose string values are already JSON text (UTF-8 bytes made off the
 * event loop, e.g. by the thread that composed a send): the rest is serialised here, and those
 * values are spliced in as they are. Serialising two 4 MiB bodies again on the event loop cost
 * ~100 ms; this costs nothing proportional to them.
 */
import { nextTurn } from "./turns.ts";

/** `value` as JSON, with the strings under `slots`' keys of `holder` (an object inside `value`) replaced by those JSON bytes. */
export function splicedJson(value: object, holder: Record<string, unknown>, slots: Record<string, Uint8Array>, status: number, headers: Record<string, string> = {}): Response {
  const marks = new Map<string, Uint8Array>();
  const saved = new Map<string, unknown>();
  for (const [key, json] of Object.entries(slots)) {
    const mark = `\u0000splice:${crypto.randomUUID()}`;
    marks.set(JSON.stringify(mark), json);
    saved.set(key, holder[key]);
    holder[key] = mark;
  }
  let text: string;
  try {
    text = JSON.stringify(value);
  } finally {
    for (const [key, v] of saved) holder[key] = v;
  }
  const parts: (string | Uint8Array)[] = [];
  let from = 0;
  // The marks hold a NUL, which JSON writes as \u0000, so no other string can contain one.
  const found = [...marks.keys()].map((m) => ({ m, at: text.indexOf(m) })).sort((a, b) => a.at - b.at);
  for (const { m, at } of found) {
    if (at < 0) continue;
    parts.push(text.slice(from, at), marks.get(m)!);
    from = at + m.length;
  }
  parts.push(text.slice(from));
  // Streamed part by part: a Blob of them copied the megabytes once more on the event loop.
  // Each pull hands over at most SLICE bytes, on a turn of its own: the runtime pulls again as
  // long as the socket takes more, so whole 4 MiB parts were written back to back in one
  // stretch (~35 ms of the thread's CPU for a large send).
  const encoder = new TextEncoder();
  const chunks = parts.flatMap((part) => slices(typeof part === "string" ? encoder.encode(part) : part));
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next > 0) await nextTurn();
      if (next === chunks.length) return controller.close();
      controller.enqueue(chunks[next++]!);
    },
  });
  const response = new Response(body, { status, headers: { "content-type": "application/json", ...headers } });
  sent.set(response, chunks);
  return response;
}

/** The bytes each spliced answer sends, for whoever must keep a copy (an idempotent replay). */
const sent = new WeakMap<Response, Uint8Array[]>();

/**
 * The body of an answer made by splicedJson, as the parts it sends (not to be changed: they
 * may still be on their way to the socket). Reading a clone of the answer instead ran its
 * stream through a tee and took the event loop 25–30 ms for a send with 8 MiB of bodies.
 * undefined for any other Response.
 */
export const splicedParts = (response: Response): readonly Uint8Array[] | undefined => sent.get(response);

/** Bytes handed to the socket per turn of the event loop. */
const SLICE = 256 * 1024;

const slices = (bytes: Uint8Array): Uint8Array[] => {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; at += SLICE) out.push(bytes.subarray(at, at + SLICE));
  return out.length > 0 ? out : [bytes];
};
