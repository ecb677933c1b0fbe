import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { inArray, sql } from "drizzle-orm";
import { outbox } from "../db/schema/index.ts";
import { InFlow } from "../src/mail/in-flow.ts";
import { startTestService, waitFor, type TestService } from "./harness.ts";
import { fakePipeline, RawClient, start, stopSmtpServers } from "./smtp-support.ts";

/**
 * In-flow control (src/mail/in-flow.ts): SMTP's MAIL FROM waits while processing runs behind.
 * No clock in any assertion: a gate is shown shut by a wait that has not ended while the lag
 * it read is over the limit, and open by a wait that ends long before its maximum.
 */

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());
afterEach(stopSmtpServers);

const db = () => t.service.internals.database.db;
const created: string[] = [];
afterEach(async () => {
  if (created.length > 0) await db().delete(outbox).where(inArray(outbox.id, created.splice(0)));
});

/**
 * A `mail.process` job the runner cannot finish: it is claimed and leased for a minute
 * (locked_until), as a job a busy node is still processing is. `dueSecondsAgo` dates it.
 */
async function pendingJob(dueSecondsAgo: number, opts: { retryInSeconds?: number } = {}): Promise<string> {
  const id = randomUUID();
  created.push(id);
  const runAfter = opts.retryInSeconds !== undefined ? sql`now() + make_interval(secs => ${opts.retryInSeconds})` : sql`now() - make_interval(secs => ${dueSecondsAgo})`;
  await db().execute(sql`
    insert into outbox (id, kind, mailbox_id, payload, attempts, run_after, locked_until, created_at, last_error)
    values (${id}, 'mail.process', null, '{"message_id": "00000000-0000-4000-8000-000000000000"}'::jsonb,
      ${opts.retryInSeconds !== undefined ? 1 : 0}, ${runAfter}, now() + interval '1 minute', now() - make_interval(secs => ${dueSecondsAgo}),
      ${opts.retryInSeconds !== undefined ? "failed once" : null})`);
  return id;
}

const MINUTE = 60_000;

describe("InFlow", () => {
  test("holds a message while the oldest due job is older than the limit, and lets it go once that job is done", async () => {
    const gate = new InFlow(db(), 1_000, MINUTE);
    const job = await pendingJob(30);
    let admitted = false;
    const waiting = gate.admit().then(() => (admitted = true));
    await waitFor(async () => (gate.lag > 1_000 ? true : undefined), "the gate reads the lag");
    expect(admitted).toBe(false);

    await db().execute(sql`update outbox set done_at = now() where id = ${job}`);
    // Its maximum wait is a minute, past the test's own timeout: only the lag can end it.
    await waiting;
    expect(admitted).toBe(true);
    expect(gate.lag).toBeLessThanOrEqual(1_000);
    // Counted as a hold that ended once processing caught up (GET /metrics).
    expect(gate.counts.caughtUp).toBe(1);
    expect(gate.counts.maxWait).toBe(0);
    expect(gate.counts.heldMs).toBeGreaterThan(0);
  });

  test("a job waiting for its retry does not hold the gate: one failing message never stops the mail", async () => {
    await pendingJob(30, { retryInSeconds: 600 });
    const gate = new InFlow(db(), 1_000, MINUTE);
    await gate.admit();
    expect(gate.lag).toBeLessThanOrEqual(1_000);
  });

  test("a lag under the limit, or a limit of 0, lets every message through", async () => {
    await pendingJob(0.2);
    const under = new InFlow(db(), 10_000, MINUTE);
    await under.admit();
    await pendingJob(30);
    const off = new InFlow(db(), 0, MINUTE);
    await off.admit();
    // Neither was a hold.
    for (const gate of [under, off]) expect(gate.counts).toEqual({ caughtUp: 0, maxWait: 0, heldMs: 0 });
  });

  test("the hold ends after its maximum wait even while processing stays behind", async () => {
    await pendingJob(30);
    const gate = new InFlow(db(), 1_000, 50);
    await gate.admit();
    expect(gate.lag).toBeGreaterThan(1_000);
    expect(gate.counts.maxWait).toBe(1);
    expect(gate.counts.caughtUp).toBe(0);
    expect(gate.counts.heldMs).toBeGreaterThan(0);
  });
});

describe("SMTP in-flow", () => {
  test("MAIL FROM is answered only once the pipeline admits the next message", async () => {
    const pipeline = fakePipeline();
    let release!: () => void;
    let asked = 0;
    const deps = {
      ...pipeline.deps,
      admitMessage: () => {
        asked++;
        return new Promise<void>((resolve) => (release = resolve));
      },
    };
    const { port } = await start({ ...pipeline, deps });
    const c = await RawClient.connect(port);
    expect(await c.reply()).toStartWith("220 ");
    expect(await c.cmd("EHLO client.example.org")).toStartWith("250-");
    const mailFrom = c.cmd("MAIL FROM:<sender@example.org>");
    await waitFor(async () => (asked === 1 ? true : undefined), "the server asks the pipeline");
    let answered = false;
    void mailFrom.then(() => (answered = true));
    expect(answered).toBe(false);
    release();
    expect(await mailFrom).toStartWith("250 ");
    expect(await c.cmd("RCPT TO:<alice@mail.test>")).toStartWith("250 ");
    expect(await c.cmd("DATA")).toStartWith("354 ");
    expect(await c.data("Subject: held\r\n\r\nHello.\r\n")).toStartWith("250 ");
    expect(pipeline.delivered).toHaveLength(1);
  });

  test("a pipeline that fails to decide does not block the sender", async () => {
    const pipeline = fakePipeline();
    const deps = { ...pipeline.deps, admitMessage: () => Promise.reject(new Error("database down")) };
    const { port } = await start({ ...pipeline, deps });
    const c = await RawClient.connect(port);
    await c.reply();
    await c.cmd("EHLO client.example.org");
    expect(await c.cmd("MAIL FROM:<sender@example.org>")).toStartWith("250 ");
  });
});
