import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookVerificationError } from "./errors.ts";

export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Which signature to check: the one present (Standard Webhooks first), or only one kind. */
  scheme?: "auto" | "service" | "standard";
  /** Oldest and newest webhook-timestamp accepted, in seconds from now (default 300). */
  toleranceSeconds?: number;
  /** The header of our HMAC scheme: x-service-signature (webhooks, runtime routing) or x-service-callback-signature (protocol callbacks). */
  serviceHeader?: string;
  now?: () => number;
}

export interface VerifiedWebhook<P = Record<string, unknown>> {
  /** x-service-event (or the payload's `event` for callbacks). */
  event: string | null;
  /** The delivery id (webhook-id, x-service-delivery): the same on every attempt, for de-duplication. */
  deliveryId: string | null;
  scheme: "service" | "standard";
  payload: P;
}

/**
 * Checks a delivery of Mailroom's webhooks, runtime routing or protocol callbacks and returns
 * its parsed body, or throws WebhookVerificationError. `rawBody` must be the bytes as received
 * (re-serialised JSON will not match). `secret` is the endpoint's `signing_secret` (hex, as
 * returned once at creation), or its `standard_webhooks_secret` (`whsec_…`).
 *
 * Two schemes sign each delivery with the same key: `x-service-signature`, the lowercase hex
 * HMAC-SHA256 of the body; and Standard Webhooks, `v1,` + base64 HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}`, whose timestamp also refuses old replays.
 */
export function verifyWebhook<P = Record<string, unknown>>(rawBody: string | Uint8Array, headers: HeaderSource, secret: string, options: VerifyOptions = {}): VerifiedWebhook<P> {
  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody);
  const get = headerReader(headers);
  const scheme = options.scheme ?? "auto";
  const whsec = secret.startsWith("whsec_");
  const key = whsec ? Buffer.from(secret.slice("whsec_".length), "base64") : Buffer.from(secret, "utf8");
  if (key.length === 0) throw new WebhookVerificationError("the secret is empty");

  const standardSig = get("webhook-signature");
  const useStandard = scheme === "standard" || (scheme === "auto" && (standardSig !== null || whsec));
  let verified: "service" | "standard";
  if (useStandard) {
    const id = get("webhook-id");
    const timestamp = get("webhook-timestamp");
    if (!id || !timestamp || !standardSig) throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature");
    if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError("webhook-timestamp is not a number of seconds");
    const now = Math.floor((options.now?.() ?? Date.now()) / 1000);
    const tolerance = options.toleranceSeconds ?? 300;
    if (Math.abs(now - Number(timestamp)) > tolerance) throw new WebhookVerificationError("webhook-timestamp is outside the tolerance (a replay, or a clock off)");
    const expected = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
    const match = standardSig.split(" ").some((part) => {
      const [version, sig] = part.split(",", 2);
      if (version !== "v1" || !sig) return false;
      const given = Buffer.from(sig, "base64");
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (!match) throw new WebhookVerificationError("no webhook-signature matches");
    verified = "standard";
  } else {
    const header = options.serviceHeader ?? (get("x-service-signature") !== null ? "x-service-signature" : "x-service-callback-signature");
    const given = get(header);
    if (!given) throw new WebhookVerificationError(`missing ${header}`);
    const expected = Buffer.from(createHmac("sha256", key).update(body).digest("hex"), "utf8");
    const got = Buffer.from(given.trim().toLowerCase(), "utf8");
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) throw new WebhookVerificationError(`${header} does not match`);
    verified = "service";
  }

  let payload: P;
  try {
    payload = JSON.parse(body.toString("utf8")) as P;
  } catch {
    throw new WebhookVerificationError("the body is not JSON");
  }
  const event = get("x-service-event") ?? (typeof (payload as { event?: unknown })?.event === "string" ? (payload as { event: string }).event : null);
  return { event, deliveryId: get("webhook-id") ?? get("x-service-delivery"), scheme: verified, payload };
}

function headerReader(headers: HeaderSource): (name: string) => string | null {
  if (typeof (headers as Headers).get === "function") return (name) => (headers as Headers).get(name);
  const lower = new Map<string, string>();
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (v !== undefined) lower.set(k.toLowerCase(), Array.isArray(v) ? v.join(" ") : v);
  }
  return (name) => lower.get(name) ?? null;
}
