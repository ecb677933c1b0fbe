import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Mailboxes } from "../actors/mailbox/client.ts";
import { LocalPlacement, type Placement } from "../actors/runtime/index.ts";
import { Authenticator } from "../src/auth/authenticate.ts";
import { fastMailboxRead } from "../src/http/fast-read.ts";
import { ServiceMetrics } from "../src/metrics/service-metrics.ts";
import { issueKey, seedAccount, startTestService, type TestService } from "./harness.ts";

/**
 * GET /v1/mailboxes/{id} answered from memory before the app (src/http/fast-read.ts): the
 * same answer as the app's, counted in the same window, and every case it does not answer
 * handed to the app before anything is counted.
 */

let t: TestService;
let seed: Awaited<ReturnType<typeof seedAccount>>;
const LIMIT = 20;

beforeAll(async () => {
  t = await startTestService({ API_KEY_RATE_LIMIT: String(LIMIT) });
  seed = await seedAccount(t);
});
afterAll(() => t.stop());

/** The fast handler on the service's own actors and key cache; `fellBack` counts the requests it handed on. */
function handler(placement: Placement = new LocalPlacement(t.service.internals.actors)) {
  const { keys } = t.service.internals;
  const state = { fellBack: 0 };
  const authenticator = new Authenticator(t.admin, keys);
  const read = fastMailboxRead({ authenticator, mailboxes: new Mailboxes(placement), metrics: new ServiceMetrics() }, () => {
    state.fellBack++;
    return new Response("app", { status: 299 });
  });
  const call = async (mailboxId: string, token: string | null, init: { method?: string; query?: string; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...init.headers };
    const request = Object.assign(new Request(`${t.url}/v1/mailboxes/${mailboxId}${init.query ?? ""}`, { method: init.method ?? "GET", headers }), { params: { mailboxId } });
    // On PostgreSQL a cached key is trusted without a read only while the revocation watch is
    // current (src/auth/key-store.ts), which a loaded CI machine can let lapse between two
    // lines of a test: the key is vouched for just before, as the app's own check would.
    if (headers.authorization) await Promise.resolve().then(() => authenticator.authenticate(headers.authorization)).catch(() => {});
    return await read(request);
  };
  return { state, call };
}

/** The key's calls left in its window, as the app reports them (the call itself counted). */
async function remainingAfterOneMore(mailboxId: string, token: string): Promise<number> {
  const res = await t.api("GET", `/v1/mailboxes/${mailboxId}?`, { token });
  expect(res.status).toBe(200);
  return Number(res.headers.get("x-ratelimit-remaining"));
}

describe("the read answered from memory", () => {
  test("is the app's answer: body, status, content type, rate-limit headers and request id", async () => {
    const key = await issueKey(t, seed.agent.id, "fast");
    // The app's answer (a query string always goes to the app); it also brings the key and the actor into memory.
    const app = await t.api("GET", `/v1/mailboxes/${seed.agent.id}?`, { token: key.token, headers: { "x-request-id": "req-1" } });
    expect(app.status).toBe(200);
    const { state, call } = handler();
    const fast = await call(seed.agent.id, key.token, { headers: { "x-request-id": "req-2" } });
    expect(state.fellBack).toBe(0);
    expect(fast.status).toBe(200);
    expect(await fast.text()).toBe(app.text);
    expect(fast.headers.get("content-type")).toBe(app.headers.get("content-type"));
    expect(fast.headers.get("x-request-id")).toBe("req-2");
    expect(fast.headers.get("x-ratelimit-limit")).toBe(String(LIMIT));
    expect(Number(fast.headers.get("x-ratelimit-remaining"))).toBe(Number(app.headers.get("x-ratelimit-remaining")) - 1);
    expect(fast.headers.get("x-ratelimit-reset")).toBe(app.headers.get("x-ratelimit-reset"));
    const names = (h: Headers) => [...h.keys()].filter((k) => k !== "date" && k !== "content-length").sort();
    expect(names(fast.headers)).toEqual(names(app.headers));
    // A malformed request id is replaced, as the app does.
    const generated = (await call(seed.agent.id, key.token, { headers: { "x-request-id": "bad id!" } })).headers.get("x-request-id");
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    // The id in upper case names the same mailbox.
    expect((await call(seed.agent.id.toUpperCase(), key.token)).status).toBe(200);
    expect(state.fellBack).toBe(0);
  });

  test("answers made back to back keep each its own headers (the handler fills one set of headers for every answer)", async () => {
    const key = await issueKey(t, seed.agent.id, "each");
    await remainingAfterOneMore(seed.agent.id, key.token);
    const { call } = handler();
    const answers = await Promise.all([1, 2, 3, 4].map((i) => call(seed.agent.id, key.token, { headers: { "x-request-id": `each-${i}` } })));
    expect(answers.map((r) => r.headers.get("x-request-id"))).toEqual(["each-1", "each-2", "each-3", "each-4"]);
    const remaining = answers.map((r) => Number(r.headers.get("x-ratelimit-remaining")));
    expect(new Set(remaining).size).toBe(4);
    expect(remaining).toEqual([...remaining].sort((a, b) => b - a));
  });

  test("every call it answers is counted in the key's window, and past the limit the app answers (429)", async () => {
    const key = await issueKey(t, seed.primary.id, "counted");
    const { state, call } = handler();
    let remaining = await remainingAfterOneMore(seed.primary.id, key.token);
    for (let i = 0; i < 3; i++) {
      const res = await call(seed.primary.id, key.token);
      expect(res.status).toBe(200);
      expect(Number(res.headers.get("x-ratelimit-remaining"))).toBe(--remaining);
    }
    expect(await remainingAfterOneMore(seed.primary.id, key.token)).toBe(remaining - 1);
    remaining--;
    while (remaining > 0) {
      expect((await call(seed.primary.id, key.token)).status).toBe(200);
      remaining--;
    }
    expect(state.fellBack).toBe(0);
    // The window is full: handed to the app, which refuses it.
    expect((await call(seed.primary.id, key.token)).status).toBe(299);
    expect(state.fellBack).toBe(1);
    const refused = await t.api("GET", `/v1/mailboxes/${seed.primary.id}`, { token: key.token });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("rate_limit_exceeded");
  });

  test("a mailbox it cannot answer from memory (held by another node) is asked for: the app's answer, counted once", async () => {
    const key = await issueKey(t, seed.agent.id, "asked");
    const app = await t.api("GET", `/v1/mailboxes/${seed.agent.id}?`, { token: key.token });
    const local = new LocalPlacement(t.service.internals.actors);
    // What a mailbox another node holds looks like here: asks and reads, nothing run at once.
    const elsewhere: Placement = { ask: (k, id, m, o) => local.ask(k, id, m, o), read: (k, id, m, o) => local.read(k, id, m, o), tell: (k, id, m) => local.tell(k, id, m), close: async () => {} };
    const { state, call } = handler(elsewhere);
    const res = await call(seed.agent.id, key.token);
    expect(state.fellBack).toBe(0);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(app.text);
    const remaining = Number(res.headers.get("x-ratelimit-remaining"));
    expect(remaining).toBe(Number(app.headers.get("x-ratelimit-remaining")) - 1);
    expect(await remainingAfterOneMore(seed.agent.id, key.token)).toBe(remaining - 1);
    // A refused call is still the app's to answer.
    const other = await issueKey(t, seed.primary.id, "asked, refused");
    while (Number((await t.api("GET", `/v1/mailboxes/${seed.primary.id}?`, { token: other.token })).headers.get("x-ratelimit-remaining")) > 0);
    expect((await call(seed.primary.id, other.token)).status).toBe(299);
    expect(state.fellBack).toBe(1);
  });

  test("a mailbox another node holds, whose row this node keeps: the call is asked for, the row taken from what is kept", async () => {
    const key = await issueKey(t, seed.agent.id, "kept");
    await remainingAfterOneMore(seed.agent.id, key.token);
    const local = new LocalPlacement(t.service.internals.actors);
    const row = await local.read<Record<string, unknown>>("mailbox", seed.agent.id, { name: "get", args: [] });
    const kept = { ...row, emailAddress: "as-kept-here@example.test" };
    let reads = 0;
    const elsewhere: Placement = {
      ask: (k, id, m, o) => local.ask(k, id, m, o),
      read: (k, id, m, o) => (reads++, local.read(k, id, m, o)),
      readNow: () => ({ value: kept }),
      tell: (k, id, m) => local.tell(k, id, m),
      close: async () => {},
    };
    const { state, call } = handler(elsewhere);
    const res = await call(seed.agent.id, key.token);
    expect(state.fellBack).toBe(0);
    expect(res.status).toBe(200);
    expect(reads).toBe(0);
    expect(((await res.json()) as { mailbox: { email_address: string } }).mailbox.email_address).toBe("as-kept-here@example.test");
  });

  test("calls of one key made together on a mailbox another node holds: asked for as one row, each counted once, each with its own calls left", async () => {
    const key = await issueKey(t, seed.agent.id, "together");
    const before = await remainingAfterOneMore(seed.agent.id, key.token);
    const local = new LocalPlacement(t.service.internals.actors);
    const asked: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // Another node's mailbox whose first answer takes until the test lets it go: the calls made
    // meanwhile must not wait for it, and go together.
    const elsewhere: Placement = {
      ask: async (k, id, m, o) => {
        const msg = m as { name: string; args: unknown[] };
        if (msg.name === "admitMany" && asked.push(msg.args[1] as number) === 1) await gate;
        return local.ask(k, id, m, o);
      },
      read: (k, id, m, o) => local.read(k, id, m, o),
      tell: (k, id, m) => local.tell(k, id, m),
      close: async () => {},
    };
    const { state, call } = handler(elsewhere);
    const sum = () => asked.reduce((a, b) => a + b, 0);
    const first = call(seed.agent.id, key.token);
    while (asked.length === 0) await Bun.sleep(1);
    const rest = Array.from({ length: 5 }, () => call(seed.agent.id, key.token));
    // All five are asked for while the first is still unanswered.
    while (sum() < 6) await Bun.sleep(1);
    release();
    const all = [await first, ...(await Promise.all(rest))];
    expect(state.fellBack).toBe(0);
    expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // The first alone and at once; the five together (in one ask when they came in one turn, as here but for a stalled machine).
    expect(asked[0]).toBe(1);
    expect(asked.length).toBeLessThan(6);
    // Six calls counted, each told the calls left after it, as six calls one after another are.
    const left = all.map((r) => Number(r.headers.get("x-ratelimit-remaining"))).sort((a, b) => b - a);
    expect(left).toEqual([before - 1, before - 2, before - 3, before - 4, before - 5, before - 6]);
    expect(await remainingAfterOneMore(seed.agent.id, key.token)).toBe(before - 7);
  });

  test("admitMany counts its calls as that many admits, up to the limit, and takes only a sane count", async () => {
    const key = await issueKey(t, seed.primary.id, "many");
    const mailboxes = new Mailboxes(new LocalPlacement(t.service.internals.actors));
    const before = await remainingAfterOneMore(seed.primary.id, key.token);
    const keyId = key.id;
    expect(await mailboxes.admitMany(seed.primary.id, keyId, 3)).toMatchObject({ granted: 3, limit: LIMIT, remaining: before - 3 });
    // More than are left: the first ones only.
    expect(await mailboxes.admitMany(seed.primary.id, keyId, LIMIT)).toMatchObject({ granted: before - 3, remaining: 0 });
    expect(await mailboxes.admitMany(seed.primary.id, keyId, 2)).toMatchObject({ granted: 0, remaining: 0 });
    expect((await mailboxes.admit(seed.primary.id, keyId)).allowed).toBe(false);
    for (const bad of [0, -1, 1.5, 1025, Number.NaN]) await expect(mailboxes.admitMany(seed.primary.id, keyId, bad)).rejects.toThrow(RangeError);
  });

  test("hands everything else to the app without counting it", async () => {
    const key = await issueKey(t, seed.agent.id, "handed on");
    const other = await issueKey(t, seed.primary.id, "other mailbox");
    const before = await remainingAfterOneMore(seed.agent.id, key.token);
    await remainingAfterOneMore(seed.primary.id, other.token);
    const { state, call } = handler();
    const wrongSecret = `${key.token.slice(0, -1)}${key.token.endsWith("A") ? "B" : "A"}`;
    const cases: [string, Promise<Response>][] = [
      ["HEAD", call(seed.agent.id, key.token, { method: "HEAD" })],
      ["a query string", call(seed.agent.id, key.token, { query: "?page=1" })],
      ["a body", call(seed.agent.id, key.token, { headers: { "content-length": "0" } })],
      ["no token", call(seed.agent.id, null)],
      ["the admin token", call(seed.agent.id, t.admin)],
      ["a wrong secret", call(seed.agent.id, wrongSecret)],
      ["another mailbox's key", call(seed.agent.id, other.token)],
      ["not a uuid", call("not-a-uuid", key.token)],
      ["a mailbox not in memory", call(crypto.randomUUID(), key.token)],
    ];
    for (const [what, res] of cases) expect([what, (await res).status]).toEqual([what, 299]);
    expect(state.fellBack).toBe(cases.length);
    // None of them was counted in either window.
    expect(await remainingAfterOneMore(seed.agent.id, key.token)).toBe(before - 1);
  });

  test("a revoked key is handed to the app at once, which refuses it", async () => {
    const key = await issueKey(t, seed.agent.id, "revoked");
    await remainingAfterOneMore(seed.agent.id, key.token);
    const { state, call } = handler();
    expect((await call(seed.agent.id, key.token)).status).toBe(200);
    expect((await t.api("POST", `/v1/mailboxes/${seed.agent.id}/api-keys/${key.id}/revoke`)).status).toBe(200);
    expect((await call(seed.agent.id, key.token)).status).toBe(299);
    expect(state.fellBack).toBe(1);
    expect((await t.api("GET", `/v1/mailboxes/${seed.agent.id}`, { token: key.token })).status).toBe(401);
  });

  test("a write to the mailbox shows in the next read", async () => {
    const key = await issueKey(t, seed.agent.id, "after a write");
    await remainingAfterOneMore(seed.agent.id, key.token);
    const { call } = handler();
    expect(((await (await call(seed.agent.id, key.token)).json()) as any).mailbox.status).toBe("active");
    expect((await t.api("POST", `/v1/mailboxes/${seed.agent.id}/disable`)).status).toBe(200);
    const res = await call(seed.agent.id, key.token);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).mailbox.status).toBe("disabled");
    expect((await t.api("POST", `/v1/mailboxes/${seed.agent.id}/enable`)).status).toBe(200);
    expect(((await (await call(seed.agent.id, key.token)).json()) as any).mailbox.status).toBe("active");
  });
});
