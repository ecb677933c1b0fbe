import { MailroomError } from "./errors.ts";
import type { Fetch } from "./client.ts";

/** One event of a mailbox's stream: `{id, event, created_at, payload}` (the webhook payload). */
export interface MailboxEvent<P = Record<string, unknown>> {
  id: number;
  event: string;
  created_at: string;
  payload: P;
}

/** Events the service could no longer send (older than what it keeps): `from` to `to`. */
export interface EventGap {
  event: "gap";
  from: number;
  to: number;
}

export interface EventStreamOptions {
  baseUrl: string;
  token?: string;
  fetch?: Fetch;
  /** Resume after this event (sent as Last-Event-ID); default: from the oldest stored event. */
  lastEventId?: number;
  /** Ends the iteration (and the connection). */
  signal?: AbortSignal;
  /** Reconnect when the stream ends or the network fails (default true), after the server's `retry:`. */
  reconnect?: boolean;
  /** Yield `gap` markers as well as events (default false: they are skipped). */
  gaps?: boolean;
}

/**
 * A mailbox's Server-Sent Events as an async iterator. It reconnects with Last-Event-ID after
 * the last event it yielded, so a dropped connection loses nothing and repeats nothing; API
 * errors (401, 403, 404, a 400 resume point) end it with a MailroomError.
 */
export async function* mailboxEvents(mailboxId: string, options: EventStreamOptions): AsyncGenerator<MailboxEvent | EventGap, void, undefined> {
  const doFetch = options.fetch ?? ((r: Request) => fetch(r));
  let last = options.lastEventId;
  let retryMs = 2000;
  const url = `${options.baseUrl.replace(/\/+$/, "")}/v1/mailboxes/${encodeURIComponent(mailboxId)}/events`;
  while (!options.signal?.aborted) {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (last !== undefined && last > 0) headers["last-event-id"] = String(last);
    let response: Response;
    try {
      response = await doFetch(new Request(url, { headers, signal: options.signal }));
    } catch (err) {
      if (options.signal?.aborted) return;
      if (options.reconnect === false) throw err;
      await pause(retryMs, options.signal);
      continue;
    }
    if (!response.ok) {
      const body = await response.json().catch(() => undefined);
      const error = MailroomError.from(response, body);
      // A stopping node answers 503: come back, as an EventSource would.
      if (response.status !== 503 || options.reconnect === false) throw error;
      await pause((error.retryAfter ?? retryMs / 1000) * 1000, options.signal);
      continue;
    }
    try {
      for await (const message of sseMessages(response.body!)) {
        if (message.retry !== undefined) retryMs = message.retry;
        if (message.data === undefined) continue;
        const data = JSON.parse(message.data) as Record<string, unknown>;
        if (message.event === "gap") {
          if (options.gaps) yield { event: "gap", from: Number(data.from), to: Number(data.to) };
          continue;
        }
        const event = data as unknown as MailboxEvent;
        last = event.id;
        yield event;
      }
    } catch (err) {
      if (options.signal?.aborted) return;
      if (options.reconnect === false) throw err;
    }
    if (options.reconnect === false) return;
    await pause(retryMs, options.signal);
  }
}

interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
}

/** The messages of a text/event-stream body (WHATWG rules: fields, comments, blank-line dispatch). */
export async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage, void, undefined> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = "";
  let current: SseMessage = {};
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        // A CR that ends the chunk may be the first half of a CRLF split across chunks.
        if (newline === buffer.length - 1 && buffer.endsWith("\r")) break;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (data.length > 0) current.data = data.join("\n");
          if (current.data !== undefined || current.retry !== undefined) yield current;
          current = {};
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "data") data.push(value);
        else if (field === "event") current.event = value;
        else if (field === "id") current.id = value;
        else if (field === "retry" && /^\d+$/.test(value)) current.retry = Number(value);
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => {});
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
