// POST to a PinnedTarget: connect to the checked address, never resolve the name again.
//
// Bun's fetch ignores Node's `lookup` option and undici dispatchers, so the pin is made in the
// URL itself: we fetch http(s)://<address>:<port><path> and put the original host back where
// the receiver and TLS look for it:
//  - HTTP: the `Host` header (Bun sends a caller-set Host as given).
//  - HTTPS: `tls.serverName`. On Bun 1.4 it both sets SNI and is the name the certificate is
//    verified against (a certificate for the name passes, one for another name fails with
//    ERR_TLS_CERT_ALTNAME_INVALID, although the URL holds an IP). Bun keys its keep-alive pool
//    by server name too, so a connection verified for one name is not reused for another.
//    node:https `request({ servername, lookup })` would also work but is Bun's slower shim.
import type { PinnedTarget } from "./ssrf.ts";

export interface PinnedPostRequest {
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** One deadline for connect, response headers and body together. */
  timeoutMs: number;
  /** Body bytes kept; the rest is cancelled unread. */
  maxResponseBytes: number;
  /** Trust anchors replacing the default CAs (tests, private CAs). */
  ca?: string | string[];
}

export type PinnedPostResult =
  | { ok: true; status: number; body: string; durationMs: number }
  | { ok: false; error: string; durationMs: number };

export async function pinnedPost(target: PinnedTarget, req: PinnedPostRequest): Promise<PinnedPostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, req.timeoutMs);

  try {
    const { url, address, family, hostHeader } = target;
    const pinned = new URL(url.href);
    pinned.hostname = family === 6 ? `[${address}]` : address;

    const headers = new Headers(req.headers);
    headers.set("host", hostHeader);
    // No compression: a few KB of gzip can inflate to gigabytes before our byte cap sees it.
    headers.set("accept-encoding", "identity");

    const isIpLiteral = url.hostname === pinned.hostname;
    const res = await fetch(pinned, {
      method: "POST",
      headers,
      body: req.body,
      redirect: "manual", // a redirect would be a fresh, unchecked target
      signal: controller.signal,
      decompress: false,
      proxy: false, // an environment proxy would make the connection (and maybe the lookup) for us
      tls: url.protocol === "https:" ? { ...(isIpLiteral ? {} : { serverName: url.hostname }), ...(req.ca ? { ca: req.ca } : {}) } : undefined,
    });
    const body = await readCapped(res, req.maxResponseBytes, controller.signal);
    return { ok: true, status: res.status, body, durationMs: elapsed() };
  } catch (e) {
    return { ok: false, error: timedOut ? `timed out after ${req.timeoutMs} ms` : describeError(e), durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
  }
}

/** Reads up to `max` bytes and cancels the rest; rejects as soon as `signal` aborts. */
async function readCapped(res: Response, max: number, signal: AbortSignal): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return "";
  // Bun 1.4 errors the body stream when the fetch signal aborts; racing each read against the
  // deadline as well keeps a trickling receiver from outliving timeoutMs should that change.
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(new Error("aborted"));
    signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
  });
  aborted.catch(() => {});
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      const take = value.subarray(0, max - size);
      chunks.push(take);
      size += take.byteLength;
    }
  } finally {
    reader.cancel().catch(() => {}); // not awaited: cancelling must not wait on the peer
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks));
}

function describeError(e: unknown): string {
  const err = e as { code?: string; message?: string };
  // Bun's messages append 'For more information, pass `verbose: true`…'; keep the first part.
  const message = (err?.message ?? String(e)).split(". For more information")[0]!;
  return err?.code && !message.includes(err.code) ? `${err.code}: ${message}` : message;
}
