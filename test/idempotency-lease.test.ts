import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { idempotencyKeys } from "../db/schema/index.ts";
import { AppError } from "../src/errors.ts";
import { IdempotencyStore, keyDigest } from "../src/http/idempotency.ts";
import { sleep, startTestService, type TestService } from "./harness.ts";

/**
 * A claim's lease is renewed while its request runs (issue 13): a command that outlives
 * IDEMPOTENCY_LEASE_SECONDS keeps its key, so a retry is refused as in use and never runs the
 * command a second time. The lease still frees a key whose node stopped renewing it.
 */
let t: TestService;
let store: IdempotencyStore;
beforeAll(async () => {
  t = await startTestService();
  store = new IdempotencyStore(t.service.internals.database.db, 3600, 1);
});
afterAll(() => t.stop());

const newKey = () => `lease-${crypto.randomUUID()}`;
const rowOf = async (scope: string, key: string) => {
  const [row] = await t.service.internals.database.db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.keyDigest, keyDigest(scope, key))));
  return row;
};
const codeOf = (err: unknown) => (err instanceof AppError ? err.code : String(err));

describe("idempotency leases", () => {
  test("a claim held past its lease is renewed: a retry is in use, then replays the outcome", async () => {
    const key = newKey();
    const first = await store.claim("test", key, "fp");
    if (first.kind !== "claimed") throw new Error("expected a claim");
    const claimedAt = first.claim.claimedAt.getTime();
    expect(store.held).toBeGreaterThan(0);

    // Three leases of a "long command" later, the key is still ours.
    await sleep(3000);
    // The claim follows its renewals. One may commit while the row is read and reach the claim
    // only after the read has returned, so the row holds one of the times the claim takes from
    // just before the read until it has caught up with the row.
    const seen = new Set([first.claim.claimedAt.getTime()]);
    const watch = setInterval(() => seen.add(first.claim.claimedAt.getTime()), 1);
    const row = await rowOf("test", key);
    const deadline = Date.now() + 5000;
    while (first.claim.claimedAt.getTime() < row!.claimedAt.getTime() && Date.now() < deadline) await sleep(5);
    clearInterval(watch);
    seen.add(first.claim.claimedAt.getTime());
    expect(row!.state).toBe("running");
    expect(row!.claimedAt.getTime()).toBeGreaterThan(claimedAt);
    expect([...seen]).toContain(row!.claimedAt.getTime());
    expect(codeOf(await store.claim("test", key, "fp").catch((e) => e))).toBe("idempotency_key_in_use");

    await store.complete(first.claim, 201, JSON.stringify({ ran: 1 }));
    const replay = await store.claim("test", key, "fp");
    expect(replay).toMatchObject({ kind: "replay", status: 201 });
    expect(new TextDecoder().decode((replay as { body: Uint8Array }).body)).toBe(JSON.stringify({ ran: 1 }));
  });

  test("renewal stops with the outcome: a completed or released key is not held", async () => {
    const held = store.held;
    const a = await store.claim("test", newKey(), "fp");
    const b = await store.claim("test", newKey(), "fp");
    expect(store.held).toBe(held + 2);
    if (a.kind !== "claimed" || b.kind !== "claimed") throw new Error("expected claims");
    await store.complete(a.claim, 200, "{}");
    await store.release(b.claim);
    expect(store.held).toBe(held);
    expect(await rowOf("test", b.claim.key)).toBeUndefined();
  });

  test("a claim nobody renews (its node died) is taken over once its lease ends", async () => {
    const key = newKey();
    const now = new Date(Date.now() - 1500);
    await t.service.internals.database.db.insert(idempotencyKeys).values({ scope: "test", keyDigest: keyDigest("test", key), fingerprint: "fp", state: "running", claimedAt: now, createdAt: now, expiresAt: new Date(Date.now() + 3_600_000) });
    const taken = await store.claim("test", key, "fp");
    expect(taken.kind).toBe("claimed");
    if (taken.kind === "claimed") await store.release(taken.claim);
  });

  test("a lease lost to another node stops renewing and records nothing over the new owner's claim", async () => {
    const key = newKey();
    const mine = await store.claim("test", key, "fp");
    if (mine.kind !== "claimed") throw new Error("expected a claim");
    const held = store.held;
    // Another node took the key over (as if this one had stalled past the lease).
    const theirs = new Date(Date.now() + 10_000);
    await t.service.internals.database.db.update(idempotencyKeys).set({ claimedAt: theirs }).where(and(eq(idempotencyKeys.scope, "test"), eq(idempotencyKeys.keyDigest, keyDigest("test", key))));
    await sleep(1000);
    expect(store.held).toBe(held - 1);
    await store.complete(mine.claim, 200, "{}");
    const row = await rowOf("test", key);
    expect(row!.state).toBe("running");
    expect(row!.claimedAt.getTime()).toBe(theirs.getTime());
  });
});
