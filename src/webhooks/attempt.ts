import { parseTargetUrl, pinnedPost, resolveTarget, type Lookup } from "../net/ssrf.ts";
import { deliveryHeaders } from "./signing.ts";

/** What one request needs: the delivery and, read at attempt time, its endpoint's url and secret. */
export interface AttemptInput {
  deliveryId: string;
  /** Null for protocol callbacks and runtime messages. */
  endpointId: string | null;
  event: string;
  body: string;
  url: string;
  secret: string;
  /** The header of the hex HMAC (x-service-callback-signature for callbacks). */
  signatureHeader?: string;
}

export interface AttemptResult {
  deliveryId: string;
  endpointId: string | null;
  trigger: "scheduled" | "replay";
  url: string;
  success: boolean;
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  startedAt: Date;
  finishedAt: Date;
}

export interface AttemptOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  lookup?: Lookup;
  /** Kept of each response body; the rest is not read. */
  maxResponseBytes?: number;
}

const MAX_RESPONSE_BYTES = 4096;

/**
 * One signed POST. The target is checked and resolved once, here, at every attempt (a name
 * may have moved to a private address since registration), and the request goes to exactly
 * the address that was checked. Only a 2xx is success; a redirect is a failure. Never throws.
 */
export async function attemptDelivery(input: AttemptInput, trigger: AttemptResult["trigger"], opts: AttemptOptions): Promise<AttemptResult> {
  const startedAt = new Date();
  const t0 = performance.now();
  const done = (r: { success: boolean; statusCode: number | null; responseBody: string | null; error: string | null }): AttemptResult => ({
    deliveryId: input.deliveryId,
    endpointId: input.endpointId,
    trigger,
    url: input.url,
    ...r,
    durationMs: Math.round(performance.now() - t0),
    startedAt,
    finishedAt: new Date(),
  });

  const parsed = parseTargetUrl(input.url);
  if (!parsed.ok) return done({ success: false, statusCode: null, responseBody: null, error: `url ${parsed.reason}` });
  const target = await resolveTarget(parsed.url, { allowPrivate: opts.allowPrivate, lookup: opts.lookup, timeoutMs: Math.min(opts.timeoutMs, 5000) });
  if (!target.ok) return done({ success: false, statusCode: null, responseBody: null, error: `target refused: ${target.reason}` });

  const headers = deliveryHeaders({ secret: input.secret, event: input.event, deliveryId: input.deliveryId, body: input.body, now: startedAt, signatureHeader: input.signatureHeader });
  const left = Math.max(1, opts.timeoutMs - (performance.now() - t0));
  const response = await pinnedPost(target.target, { headers, body: input.body, timeoutMs: left, maxResponseBytes: opts.maxResponseBytes ?? MAX_RESPONSE_BYTES });
  if (!response.ok) return done({ success: false, statusCode: null, responseBody: null, error: response.error });
  const success = response.status >= 200 && response.status < 300;
  return done({
    success,
    statusCode: response.status,
    responseBody: response.body,
    error: success ? null : response.status >= 300 && response.status < 400 ? `redirect (${response.status}) not followed` : `HTTP ${response.status}`,
  });
}
