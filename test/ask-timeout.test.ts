import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { messages } from "../db/schema/index.ts";
import { expectError, startTestService, uniqueSlug, type ApiResponse, type TestService } from "./harness.ts";

// A 1 ms ask deadline: a mailbox actor given a burst of sends (each composes its MIME message,
// which yields to the event loop) cannot start them all in time, so some are dropped unrun.
// That is the state a slow or congested actor is in, reached without any test hook.
let t: TestService;
beforeAll(async () => {
  t = await startTestService({ ACTOR_ASK_TIMEOUT_MS: "1" });
});
afterAll(() => t.stop());

const BURST = 20;
const MAX_ROUNDS = 10;

/** Repeats a request while it answers 503, as a client following Retry-After would (without the wait). */
async function untilServed(send: () => Promise<ApiResponse>): Promise<ApiResponse> {
  for (let i = 0; i < 500; i++) {
    const res = await send();
    if (res.status !== 503) return res;
  }
  throw new Error("still 503 after 500 tries");
}

/** How many outbound messages of the mailbox carry each subject, read from the database. */
async function sentSubjects(mailboxId: string): Promise<Map<string, number>> {
  const rows = await t.service.internals.database.db
    .select({ subject: messages.subject })
    .from(messages)
    .where(and(eq(messages.mailboxId, mailboxId), eq(messages.direction, "outbound")));
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.subject ?? "", (counts.get(r.subject ?? "") ?? 0) + 1);
  return counts;
}

interface Attempt {
  subject: string;
  key: string;
  res: ApiResponse;
}

describe("a command dropped at its ask deadline", () => {
  test("answers 503 service_unavailable with Retry-After and applied: false; the retry with its key sends exactly once", async () => {
    const created = await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug("busy"), displayName: "Busy" } });
    expect(created.status).toBe(201);
    const mailboxId: string = created.body.primary_mailbox.id;
    const send = (a: { subject: string; key: string }) =>
      t.api("POST", `/v1/mailboxes/${mailboxId}/send`, { body: { to: ["reader@example.com"], subject: a.subject, textBody: "hello" }, headers: { "idempotency-key": a.key } });

    // Bursts of sends, each with its own key, until at least one was dropped.
    const attempts: Attempt[] = [];
    for (let round = 0; round < MAX_ROUNDS && !attempts.some((a) => a.res.status === 503); round++) {
      const batch = Array.from({ length: BURST }, (_, i) => ({ subject: `r${round}-s${i}`, key: `k-${randomBytes(8).toString("hex")}` }));
      const answers = await Promise.all(batch.map(send));
      batch.forEach((a, i) => attempts.push({ ...a, res: answers[i]! }));
    }
    const dropped = attempts.filter((a) => a.res.status === 503);
    const served = attempts.filter((a) => a.res.status !== 503);
    expect(dropped.length).toBeGreaterThan(0);

    for (const a of served) expect(a.res.status).toBe(201);
    for (const a of dropped) {
      expectError(a.res, 503, "service_unavailable");
      expect(a.res.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
      expect(a.res.body.error.details).toEqual({ applied: false });
    }

    // What was answered 503 did not happen; what was answered 201 did, once.
    const before = await sentSubjects(mailboxId);
    for (const a of dropped) expect(before.get(a.subject)).toBeUndefined();
    for (const a of served) expect(before.get(a.subject)).toBe(1);

    // Every request retried with its own key: a dropped one now runs, a served one replays.
    for (const a of attempts) {
      const again = await untilServed(() => send(a));
      expect(again.status).toBe(201);
      expect(again.body.message.subject).toBe(a.subject);
      if (a.res.status === 201) {
        expect(again.headers.get("x-idempotent-replay")).toBe("true");
        expect(again.body).toEqual(a.res.body);
        continue;
      }
      expect(again.headers.get("x-idempotent-replay")).toBeNull();
      // From now on the key replays that one message.
      const replay = await send(a);
      expect(replay.status).toBe(201);
      expect(replay.headers.get("x-idempotent-replay")).toBe("true");
      expect(replay.body.message.id).toBe(again.body.message.id);
    }

    const after = await sentSubjects(mailboxId);
    expect([...after.keys()].sort()).toEqual(attempts.map((a) => a.subject).sort());
    for (const n of after.values()) expect(n).toBe(1);
  });
});
