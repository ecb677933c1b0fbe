import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SlidingWindow, WINDOW_CHUNK } from "../actors/mailbox/rate-window.ts";
import { issueKey, seedAccount, sleep, startTestService, type ApiResponse, type TestService } from "./harness.ts";

/** A small limit and a short window so the tests can watch a window pass. */
const LIMIT = 5;
const WINDOW_SECONDS = 2;

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ API_KEY_RATE_LIMIT: String(LIMIT), API_KEY_RATE_WINDOW_SECONDS: String(WINDOW_SECONDS) });
});
afterAll(() => t.stop());

const FAR_FUTURE_MS = 365 * 86_400_000;

function expectLimited(res: ApiResponse, limit = LIMIT) {
  expect(res.status).toBe(429);
  expect(Object.keys(res.body)).toEqual(["error"]);
  expect(res.body.error.code).toBe("rate_limit_exceeded");
  expect(typeof res.body.error.message).toBe("string");
  expect(res.body.error.details).toBeObject();
  const retryAfter = res.headers.get("retry-after");
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(res.headers.get("x-ratelimit-limit")).toBe(String(limit));
  expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
  expect(res.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/);
  expect(res.headers.get("x-request-id")).toBeTruthy();
}

const read = (node: TestService, mailboxId: string, token: string) => node.api("GET", `/v1/mailboxes/${mailboxId}`, { token });

/** A fresh mailbox with a fresh key, so each test starts with an empty window. */
async function freshKey(node: TestService = t) {
  const s = await seedAccount(node);
  const key = await issueKey(node, s.agent.id, "limited");
  return { s, mailboxId: s.agent.id as string, key };
}

describe("per API key sliding window", () => {
  test(`${LIMIT} calls pass, the next is 429 rate_limit_exceeded with Retry-After and x-ratelimit-* headers`, async () => {
    const { mailboxId, key } = await freshKey();
    for (let i = 0; i < LIMIT; i++) {
      const res = await read(t, mailboxId, key.token);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe(String(LIMIT));
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(LIMIT - 1 - i));
      const reset = Number(res.headers.get("x-ratelimit-reset"));
      expect(reset).toBeGreaterThanOrEqual(1);
      // Should be <= WINDOW_SECONDS; floating-point noise can add a second today (see the SlidingWindow
      // test below, which pins that down deterministically), so the HTTP check allows for it.
      expect(reset).toBeLessThanOrEqual(WINDOW_SECONDS + 1);
    }
    const limited = await read(t, mailboxId, key.token);
    expectLimited(limited);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(WINDOW_SECONDS);
    // Every route counts, and a refused call is refused whatever the route.
    expectLimited(await t.api("POST", `/v1/mailboxes/${mailboxId}/disable`, { token: key.token }));
    expect((await t.api("GET", `/v1/mailboxes/${mailboxId}`)).body.mailbox.status).toBe("active");
  });

  test("after the window the key works again", async () => {
    const { mailboxId, key } = await freshKey();
    for (let i = 0; i < LIMIT; i++) expect((await read(t, mailboxId, key.token)).status).toBe(200);
    const limited = await read(t, mailboxId, key.token);
    expectLimited(limited);
    await sleep(Number(limited.headers.get("retry-after")) * 1000 + 50);
    const again = await read(t, mailboxId, key.token);
    expect(again.status).toBe(200);
  });

  test(`20 concurrent calls: exactly ${LIMIT} succeed`, async () => {
    const { mailboxId, key } = await freshKey();
    const responses = await Promise.all(Array.from({ length: 20 }, () => read(t, mailboxId, key.token)));
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok.length).toBe(LIMIT);
    expect(limited.length).toBe(20 - LIMIT);
    for (const r of limited) expectLimited(r);
    // Each admitted call saw its own remaining count.
    expect(ok.map((r) => Number(r.headers.get("x-ratelimit-remaining"))).sort()).toEqual(Array.from({ length: LIMIT }, (_, i) => i));
  });

  test("calls refused by 403 still count against the key's window", async () => {
    const { s, mailboxId, key } = await freshKey();
    for (let i = 0; i < LIMIT; i++) expect((await t.api("GET", `/v1/mailboxes/${s.primary.id}`, { token: key.token })).status).toBe(403);
    expectLimited(await read(t, mailboxId, key.token));
  });

  test("another key of the same mailbox has its own window", async () => {
    const { mailboxId, key } = await freshKey();
    const second = await issueKey(t, mailboxId, "second");
    for (let i = 0; i < LIMIT; i++) expect((await read(t, mailboxId, key.token)).status).toBe(200);
    expectLimited(await read(t, mailboxId, key.token));
    for (let i = 0; i < LIMIT; i++) expect((await read(t, mailboxId, second.token)).status).toBe(200);
    expectLimited(await read(t, mailboxId, second.token));
  });

  test("keys of different mailboxes do not share a window", async () => {
    const { s, mailboxId, key } = await freshKey();
    for (let i = 0; i < LIMIT; i++) expect((await read(t, mailboxId, key.token)).status).toBe(200);
    expectLimited(await read(t, mailboxId, key.token));
    expect((await read(t, s.primary.id, s.primaryKey.token)).status).toBe(200);
  });

  test("the admin token is not rate limited", async () => {
    const { mailboxId } = await freshKey();
    const responses = await Promise.all(Array.from({ length: LIMIT * 4 }, () => t.api("GET", `/v1/mailboxes/${mailboxId}`)));
    for (const r of responses) {
      expect(r.status).toBe(200);
      expect(r.headers.get("x-ratelimit-limit")).toBeNull();
    }
  });

  test("an unauthenticated or invalid caller gets 401, not 429, and uses no key's window", async () => {
    const { mailboxId, key } = await freshKey();
    for (let i = 0; i < LIMIT * 2; i++) {
      expect((await t.api("GET", `/v1/mailboxes/${mailboxId}`, { token: null })).status).toBe(401);
      expect((await t.api("GET", `/v1/mailboxes/${mailboxId}`, { token: `svc_${key.id}.${"A".repeat(43)}` })).status).toBe(401);
    }
    expect((await read(t, mailboxId, key.token)).headers.get("x-ratelimit-remaining")).toBe(String(LIMIT - 1));
  });
});

describe("SlidingWindow arithmetic", () => {
  test("the first call of a window resets in exactly windowMs (no floating-point second too many)", () => {
    // 123.456 + 2000 - 123.456 === 2000.0000000000002 in IEEE 754 doubles; ceil() of that in
    // seconds is 3, so x-ratelimit-reset would claim a 3 s wait in a 2 s window.
    for (const now of [123.456, 1000.3, 48.05, 0.1, 5000.7]) {
      const decision = new SlidingWindow(5, 2000).take(now);
      expect(decision.allowed).toBe(true);
      expect(decision.resetInMs).toBe(2000);
      expect(Math.ceil(decision.resetInMs / 1000)).toBe(2);
    }
  });

  test("a refused call is told to wait at most the window; a slot frees once the oldest call has left", () => {
    const w = new SlidingWindow(2, 1000);
    expect(w.take(10).allowed).toBe(true);
    expect(w.take(500).allowed).toBe(true);
    const refused = w.take(600);
    expect(refused).toEqual({ allowed: false, limit: 2, remaining: 0, resetInMs: 410 });
    expect(w.take(1009).allowed).toBe(false);
    const admitted = w.take(1011);
    expect(admitted.allowed).toBe(true);
    expect(admitted.remaining).toBe(0);
    expect(w.take(1012).allowed).toBe(false);
    expect(w.take(1501).allowed).toBe(true);
  });
});

/** The sliding-window log written the obvious way, to check SlidingWindow's answers against. */
class ReferenceWindow {
  private calls: number[] = [];
  private first = 0;
  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}
  take(now: number) {
    while (this.first < this.calls.length && this.calls[this.first]! <= now - this.windowMs) this.first++;
    const used = this.calls.length - this.first;
    if (used >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetInMs: this.windowMs - (now - this.calls[this.first]!) };
    this.calls.push(now);
    return { allowed: true, limit: this.limit, remaining: this.limit - used - 1, resetInMs: this.windowMs - (now - this.calls[this.first]!) };
  }
  record(at: number) {
    if (this.calls.length - this.first === this.limit) this.first++;
    this.calls.push(at);
  }
}

describe("SlidingWindow in chunks (large limits)", () => {
  // A deterministic walk: bursts that fill the window past several chunks, pauses that empty it
  // part or all of the way, refusals at the limit, and a rebuild by record() beyond the limit.
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);

  for (const limit of [5, 600, WINDOW_CHUNK, WINDOW_CHUNK + 1, 3 * WINDOW_CHUNK + 17]) {
    test(`limit ${limit}: every answer equals the plain log's, through growth, refusals, emptying and refilling`, () => {
      const windowMs = 1000;
      const w = new SlidingWindow(limit, windowMs);
      const ref = new ReferenceWindow(limit, windowMs);
      let now = 0;
      let steps = 0;
      let refused = 0;
      for (let phase = 0; phase < 12; phase++) {
        // Even phases: a burst four times faster than the limit allows (it fills the window and
        // meets refusals); odd ones: calls at half the rate the limit allows (the window slides).
        const step = phase % 2 === 0 ? windowMs / (4 * limit) : (2 * windowMs) / limit;
        const calls = Math.floor(random() * limit * 1.5) + limit / 2;
        for (let i = 0; i < calls; i++, steps++) {
          now += step * 2 * random();
          const answer = w.take(now);
          expect(answer).toEqual(ref.take(now));
          if (!answer.allowed) refused++;
        }
        now += phase % 3 === 2 ? windowMs * 2 : random() * windowMs;
      }
      for (let i = 0; i < limit + 3; i++) {
        now += 0.01;
        w.record(now);
        ref.record(now);
      }
      expect(w.take(now + 0.5)).toEqual(ref.take(now + 0.5));
      expect(w.isIdle(now + windowMs + 1)).toBe(true);
      expect(steps).toBeGreaterThan(limit);
      expect(refused).toBeGreaterThan(0);
    });
  }

  test("slots follow the calls in the window, not the limit: no more than three chunks beyond them", () => {
    const w = new SlidingWindow(10_000_000, 600_000);
    for (let i = 1; i <= 100_000; i++) {
      w.take(i / 100);
      if (i % 997 === 0) expect(w.capacity).toBeLessThanOrEqual(Math.max(i, WINDOW_CHUNK) + 3 * WINDOW_CHUNK);
    }
    // A ring doubled to fit 100,000 calls would hold 131,072 slots.
    expect(w.capacity).toBeLessThanOrEqual(100_000 + 3 * WINDOW_CHUNK);
    // The window slides: old chunks are let go as calls leave it.
    for (let i = 1; i <= 50_000; i++) w.take(600_000 + 1000 + i / 100);
    expect(w.capacity).toBeLessThanOrEqual(50_000 + 3 * WINDOW_CHUNK);
  });
});

describe("passivation", () => {
  test("the window survives an idle sweep: an actor holding live windows is not passivated", async () => {
    const { mailboxId, key } = await freshKey();
    for (let i = 0; i < LIMIT; i++) expect((await read(t, mailboxId, key.token)).status).toBe(200);
    expectLimited(await read(t, mailboxId, key.token));

    const actors = t.service.internals.actors;
    // A sweep "a year from now" (by the actors' idle clock): every quiet actor is idle for long enough.
    // Other actors (the primary mailbox, with no windows) do go, so the sweep really ran.
    const passivated = await actors.passivateIdle(Date.now() + FAR_FUTURE_MS);
    expect(passivated).toBeGreaterThanOrEqual(1);
    expect(actors.activeCount("mailbox")).toBeGreaterThanOrEqual(1);

    const still = await read(t, mailboxId, key.token);
    expectLimited(still);
  });

  test("once its windows are idle, the actor passivates and the key starts a fresh window", async () => {
    const { mailboxId, key } = await freshKey();
    for (let i = 0; i < LIMIT; i++) expect((await read(t, mailboxId, key.token)).status).toBe(200);
    const limited = await read(t, mailboxId, key.token);
    expectLimited(limited);

    // Wait until every call has left the window (not just the oldest).
    await sleep(WINDOW_SECONDS * 1000 + 100);
    const actors = t.service.internals.actors;
    await actors.passivateIdle(Date.now() + FAR_FUTURE_MS);
    expect(actors.activeCount("mailbox")).toBe(0);

    for (let i = 0; i < LIMIT; i++) expect((await read(t, mailboxId, key.token)).status).toBe(200);
    expectLimited(await read(t, mailboxId, key.token));
  });
});

describe("revocation and the window", () => {
  test("a revoked key is 401 (not 429) even when its window is full", async () => {
    const { mailboxId, key } = await freshKey();
    for (let i = 0; i < LIMIT; i++) expect((await read(t, mailboxId, key.token)).status).toBe(200);
    expectLimited(await read(t, mailboxId, key.token));
    expect((await t.api("POST", `/v1/mailboxes/${mailboxId}/api-keys/${key.id}/revoke`)).status).toBe(200);
    const res = await read(t, mailboxId, key.token);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_token");
  });
});

describe("default settings (600 calls per 10 minutes)", () => {
  let d: TestService;
  beforeAll(async () => {
    // Not a member of `t`'s cluster: nodes of one cluster share their settings, and the
    // mailbox's owner (which could be `t`, limit 5) counts its window.
    d = await startTestService({ NATS_URL: "" });
  });
  afterAll(() => d.stop());

  test("600 calls succeed and the 601st is 429", async () => {
    const { mailboxId, key } = await freshKey(d);
    const remaining: number[] = [];
    for (let batch = 0; batch < 12; batch++) {
      const responses = await Promise.all(Array.from({ length: 50 }, () => read(d, mailboxId, key.token)));
      for (const r of responses) {
        expect(r.status).toBe(200);
        expect(r.headers.get("x-ratelimit-limit")).toBe("600");
        remaining.push(Number(r.headers.get("x-ratelimit-remaining")));
      }
    }
    // Each of the 600 admitted calls took exactly one slot.
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 600 }, (_, i) => i));

    const limited = await read(d, mailboxId, key.token);
    expectLimited(limited, 600);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(500);
    expect(retryAfter).toBeLessThanOrEqual(600);
  });
});
