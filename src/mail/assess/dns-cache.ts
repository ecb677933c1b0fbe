import type { Resolver } from "./auth.ts";

const ANSWER_TTL_MS = 5 * 60_000;
// NXDOMAIN and "no data" are answers too (the sender has no SPF/DMARC record); timeouts and
// server failures are not, so they are cached only briefly.
const NEGATIVE_TTL_MS = 60_000;
const FAILURE_TTL_MS = 5_000;
const ANSWERS = new Set(["ENOTFOUND", "ENODATA"]);

/**
 * A bounded in-process cache of DNS answers, as a caching resolver next to an MTA would
 * give: the same senders write again and again, and each message needs SPF, DKIM and DMARC
 * records. Entries expire after a fixed time (node:dns does not expose record TTLs).
 */
export function cachingResolver(base: Resolver, maxEntries = 10_000, now: () => number = Date.now): Resolver {
  const cache = new Map<string, { expires: number; value?: unknown; error?: unknown }>();
  // Lookups on their way: messages checked at once (the head-only auth pool) ask once.
  const pending = new Map<string, Promise<unknown>>();
  const ask = (key: string, name: string, rrtype: string): Promise<unknown> => {
    // base runs a microtask later, so the lookup is pending before it can settle.
    const lookup: Promise<unknown> = Promise.resolve()
      .then(() => base(name, rrtype))
      .then(
        (value) => {
          cache.set(key, { expires: now() + ANSWER_TTL_MS, value });
          return value;
        },
        (error) => {
          const code = (error as { code?: string })?.code ?? "";
          cache.set(key, { expires: now() + (ANSWERS.has(code) ? NEGATIVE_TTL_MS : FAILURE_TTL_MS), error });
          throw error;
        },
      )
      .finally(() => {
        if (pending.get(key) === lookup) pending.delete(key);
      });
    pending.set(key, lookup);
    return lookup;
  };
  return async (name, rrtype) => {
    const key = `${rrtype} ${name.toLowerCase()}`;
    const hit = cache.get(key);
    if (hit && hit.expires > now()) {
      if ("error" in hit) throw hit.error;
      return hit.value;
    }
    const asked = pending.get(key);
    if (asked) return asked;
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
    return ask(key, name, rrtype);
  };
}
