/**
 * The mailbox's event stream (GET /v1/mailboxes/{id}/events) read with fetch: EventSource
 * cannot send an Authorization header. Starts at `since=now` (only what happens next), keeps
 * the last id and resumes from it with Last-Event-ID after a drop, as EventSource would.
 */
export interface StreamEvent {
  id: number;
  event: string;
  payload: Record<string, unknown>;
}

export function openEventStream(token: string, mailboxId: string, onEvent: (e: StreamEvent) => void, onState: (live: boolean) => void): () => void {
  const abort = new AbortController();
  let last: number | null = null;
  let retryMs = 2000;

  const run = async () => {
    while (!abort.signal.aborted) {
      try {
        const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "text/event-stream" };
        if (last !== null) headers["last-event-id"] = String(last);
        const url = `/v1/mailboxes/${encodeURIComponent(mailboxId)}/events${last === null ? "?since=now" : ""}`;
        const res = await fetch(url, { headers, signal: abort.signal, cache: "no-store" });
        if (!res.ok || !res.body) throw new Error(`event stream: ${res.status}`);
        onState(true);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
            const fields: Record<string, string> = {};
            for (const line of block.split(/\r?\n/)) {
              if (line.startsWith(":")) continue;
              const i = line.indexOf(":");
              const name = i < 0 ? line : line.slice(0, i);
              const val = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
              fields[name] = name in fields ? `${fields[name]}\n${val}` : val;
            }
            if (fields.retry && /^\d+$/.test(fields.retry)) retryMs = Number(fields.retry);
            if (fields.id && /^\d+$/.test(fields.id)) last = Number(fields.id);
            if (fields.data && fields.event && fields.event !== "gap") {
              try {
                const data = JSON.parse(fields.data) as { id: number; event: string; payload: Record<string, unknown> };
                onEvent({ id: data.id, event: data.event, payload: data.payload ?? {} });
              } catch {
                // A frame that is not JSON is not ours to interpret; the next one may be.
              }
            }
          }
        }
      } catch {
        if (abort.signal.aborted) return;
      }
      onState(false);
      await new Promise((r) => setTimeout(r, retryMs));
    }
  };
  void run();
  return () => abort.abort();
}
