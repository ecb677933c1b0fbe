import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { blobs, messages, outbox, type OutboxRow } from "../db/schema/index.ts";
import { newId } from "../src/domain/ids.ts";
import { JobFailed, isPermanent } from "../src/jobs/failure.ts";
import { jobRow, type JobKind } from "../src/jobs/outbox.ts";
import { JobRunner, type JobHandler, type JobSpec } from "../src/jobs/runner.ts";
import { sha256Hex } from "../src/mail/blobs.ts";
import { AppError } from "../src/errors.ts";
import { createLogger } from "../src/log.ts";
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { seedAccount, startTestService, usingNats, waitFor, type TestService } from "./harness.ts";
import { rfc822, waitForMessage } from "./mail-support.ts";

/**
 * Jobs that end: the runner's terminal errors, attempt cap and deadline against the real
 * database, and what a job that ends failed leaves where its subject lives (the message,
 * its delivery, the metrics, the mailbox stats).
 */

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t.stop();
});

const db = () => t.service.internals.database.db;
const log = createLogger("silent", "jobs-test");

/** A job of a kind the service's own runner does not run, so only the test's runner claims it. */
async function plantJob(kind: string): Promise<string> {
  const id = newId();
  await db().insert(outbox).values({ id, kind: kind as JobKind, mailboxId: null, payload: { test: true } });
  return id;
}
const jobOf = async (id: string) => (await db().select().from(outbox).where(eq(outbox.id, id)))[0]!;

function runnerFor(kind: string, spec: JobHandler | JobSpec, opts: ConstructorParameters<typeof JobRunner>[3] = {}) {
  return new JobRunner(db(), { [kind]: spec } as never, log, { backoffMs: () => 0, ...opts });
}

describe("the job runner", () => {
  test("a handler throwing JobFailed ends after one attempt, with its reason, and the failed hook runs once", async () => {
    const kind = `test.terminal.${newId().slice(0, 8)}`;
    const id = await plantJob(kind);
    let runs = 0;
    const ended: string[] = [];
    const runner = runnerFor(kind, {
      run: async () => {
        runs++;
        throw new JobFailed("widget 42 does not exist");
      },
      failed: async (job, reason) => void ended.push(`${job.id}:${reason}`),
    });
    expect(await runner.runNow(id)).toBe(true);
    const job = await jobOf(id);
    expect(runs).toBe(1);
    expect(ended).toEqual([`${id}:widget 42 does not exist`]);
    expect(job.attempts).toBe(1);
    expect(job.failedAt).not.toBeNull();
    expect(job.doneAt).not.toBeNull();
    expect(job.lastError).toBe("widget 42 does not exist");
    // Ended: never claimed again.
    expect(await runner.runNow(id)).toBe(false);
  });

  test("runNow of a job the loop took first waits for that run, and runs it once", async () => {
    const kind = `test.raced.${newId().slice(0, 8)}`;
    const id = await plantJob(kind);
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runner = runnerFor(kind, async () => {
      runs++;
      await gate;
    });
    runner.start(); // the loop claims the job at once
    await waitFor(async () => ((await jobOf(id)).lockedUntil ? true : undefined), "the loop's claim");
    let answered = false;
    const now = runner.runNow(id).then((ran) => {
      answered = true;
      return ran;
    });
    await Bun.sleep(50);
    expect(answered).toBe(false); // waiting for the loop's run, not answering "not pending"
    release();
    expect(await now).toBe(true);
    expect(runs).toBe(1);
    expect((await jobOf(id)).doneAt).not.toBeNull();
    await runner.stop();
  });

  test("a PostgreSQL data error is permanent: one attempt", async () => {
    const kind = `test.data.${newId().slice(0, 8)}`;
    const id = await plantJob(kind);
    let runs = 0;
    const runner = runnerFor(kind, async () => {
      runs++;
      await db().execute(sql`select ${"not-a-uuid"}::uuid`);
    });
    await runner.runNow(id);
    const job = await jobOf(id);
    expect(runs).toBe(1);
    expect(job.failedAt).not.toBeNull();
    expect(job.lastError).toContain("22P02");
  });

  test("a transient error is retried, and the job ends failed when the attempts are used up", async () => {
    const kind = `test.transient.${newId().slice(0, 8)}`;
    const id = await plantJob(kind);
    let runs = 0;
    const runner = runnerFor(
      kind,
      async () => {
        runs++;
        throw new Error("connection reset by peer");
      },
      { maxAttempts: 3 },
    );
    await runner.runNow(id);
    let job = await jobOf(id);
    expect(job.failedAt).toBeNull();
    expect(job.doneAt).toBeNull();
    expect(job.lastError).toBe("connection reset by peer");
    await runner.runNow(id);
    expect((await jobOf(id)).failedAt).toBeNull();
    await runner.runNow(id);
    job = await jobOf(id);
    expect(runs).toBe(3);
    expect(job.attempts).toBe(3);
    expect(job.failedAt).not.toBeNull();
    expect(job.lastError).toBe("connection reset by peer (gave up after 3 attempts)");
    expect(await runner.runNow(id)).toBe(false);
  });

  test("a job whose end could not be recorded ends on its next claim without running again", async () => {
    const kind = `test.hook.${newId().slice(0, 8)}`;
    const id = await plantJob(kind);
    let runs = 0;
    let hookCalls = 0;
    const runner = runnerFor(kind, {
      run: async () => {
        runs++;
        throw new JobFailed("bad input");
      },
      failed: async () => {
        if (++hookCalls === 1) throw new Error("database went away");
      },
    }, { maxAttempts: 1 });
    await runner.runNow(id);
    expect((await jobOf(id)).failedAt).toBeNull();
    await runner.runNow(id);
    const job = await jobOf(id);
    expect(runs).toBe(1);
    expect(hookCalls).toBe(2);
    expect(job.failedAt).not.toBeNull();
    expect(job.lastError).toBe("bad input");
  });

  test("retryAt puts a job off without counting an attempt", async () => {
    const kind = `test.later.${newId().slice(0, 8)}`;
    const id = await plantJob(kind);
    let runs = 0;
    const runner = runnerFor(kind, async () => (++runs === 1 ? { retryAt: new Date(Date.now() + 3_600_000) } : undefined), { maxAttempts: 1 });
    await runner.runNow(id);
    let job = await jobOf(id);
    expect(job.attempts).toBe(0);
    expect(job.doneAt).toBeNull();
    expect(job.runAfter.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    await runner.runNow(id);
    job = await jobOf(id);
    expect(runs).toBe(2);
    expect(job.doneAt).not.toBeNull();
    expect(job.failedAt).toBeNull();
  });

  test("a hung handler is abandoned at its deadline and frees its slot", async () => {
    const kind = `test.hang.${newId().slice(0, 8)}`;
    const hung = await plantJob(kind);
    const next = await plantJob(kind);
    let aborted = false;
    const ran: string[] = [];
    const runner = runnerFor(
      kind,
      (job: OutboxRow, signal: AbortSignal) => {
        ran.push(job.id);
        if (job.id !== hung) return Promise.resolve();
        signal.addEventListener("abort", () => (aborted = true));
        return new Promise<never>(() => {});
      },
      // One slot, and a lease of 2 s: the deadline falls inside it.
      { concurrency: 1, pollMs: 50, leaseMs: 2000, maxAttempts: 1 },
    );
    runner.start();
    try {
      const done = await waitFor(async () => {
        const [a, b] = [await jobOf(hung), await jobOf(next)];
        return a.failedAt && b.doneAt ? { a, b } : undefined;
      }, "both jobs to end", 20_000);
      expect(aborted).toBe(true);
      expect(done.a.lastError).toContain("did not finish within");
      expect(done.b.failedAt).toBeNull();
      expect(ran).toEqual([hung, next]);
    } finally {
      await runner.stop();
    }
  });

  test("what counts as permanent", () => {
    expect(isPermanent(new JobFailed("x"))).toBe(true);
    expect(isPermanent(new AppError("not_found", "gone"))).toBe(true);
    expect(isPermanent(new AppError("rate_limit_exceeded", "later"))).toBe(false);
    expect(isPermanent(new AppError("internal_error", "fault"))).toBe(false);
    expect(isPermanent(new Error("wrapped", { cause: { code: "54000", message: "index row size 3000 exceeds maximum 2712" } }))).toBe(true);
    expect(isPermanent({ code: "23505" })).toBe(false);
    expect(isPermanent({ code: "40001" })).toBe(false);
    expect(isPermanent({ code: "ECONNRESET" })).toBe(false);
    expect(isPermanent(new Error("socket hang up"))).toBe(false);
  });
});

/**
 * A message whose raw bytes are gone: no attempt can ever process or deliver it. The blob is
 * deleted with foreign-key checks off for the transaction (as a lost or restored-without-blobs
 * database would leave it), then the job is queued.
 */
async function plantMessageWithoutRaw(mailbox: { id: string; email_address: string }, direction: "inbound" | "outbound"): Promise<string> {
  const raw = new TextEncoder().encode(rfc822({ From: "lost@outside.example", To: mailbox.email_address, Subject: `lost ${newId()}` }, "gone\r\n"));
  const sha = sha256Hex(raw);
  const id = newId();
  await db().transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.insert(blobs).values({ sha256: sha, size: raw.byteLength, bytes: raw }).onConflictDoNothing();
    await tx.insert(messages).values({
      id,
      mailboxId: mailbox.id,
      transport: "smtp",
      direction,
      status: direction === "inbound" ? "received" : "queued",
      fromAddress: direction === "inbound" ? "lost@outside.example" : mailbox.email_address,
      toAddress: direction === "inbound" ? mailbox.email_address : "friend@elsewhere.example",
      subject: "lost",
      rawSha256: sha,
      rawSize: raw.byteLength,
      envelope: direction === "inbound" ? null : { mailFrom: mailbox.email_address, rcptTo: ["friend@elsewhere.example"], remoteAddress: null, heloName: null },
    });
    await tx.delete(blobs).where(eq(blobs.sha256, sha));
    await tx.insert(outbox).values(jobRow(direction === "inbound" ? "mail.process" : "mail.deliver", mailbox.id, { message_id: id }));
  });
  return id;
}

describe("a job that ends failed is visible where its subject lives", () => {
  test("inbound mail that can never be processed: status failed, processing_failed, message.processed, stats, /metrics", async () => {
    const s = await seedAccount(t);
    const id = await plantMessageWithoutRaw(s.agent, "inbound");
    const message = await waitForMessage(t, id, ["failed"], 20_000);
    expect(message.suspicious_signals).toContain("processing_failed");
    expect(message.risk_level).toBe("medium");

    // The message shows the failure first (the job's owner records it), then the runner marks the job's row.
    const job = await waitFor(async () => {
      const [row] = await db().select().from(outbox).where(sql`${outbox.kind} = 'mail.process' and ${outbox.payload}->>'message_id' = ${id}`);
      return row?.failedAt ? row : undefined;
    }, "the job's row marked failed");
    expect(job.attempts).toBe(1);
    expect(job.failedAt).not.toBeNull();
    expect(job.lastError).toContain("raw message");

    const [event] = await db().select().from(outbox).where(sql`${outbox.topic} = 'message.processed' and ${outbox.payload}->>'id' = ${id}`);
    expect(event!.payload).toMatchObject({ id, status: "failed", suspicious_signals: ["processing_failed"] });

    const list = await t.api("GET", `/v1/mailboxes/${s.agent.id}/messages?status=failed`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((m: { id: string }) => m.id)).toEqual([id]);

    const stats = await t.api("GET", `/v1/mailboxes/${s.agent.id}/stats`);
    expect(stats.body.messages).toMatchObject({ processing_failed: 1, unprocessed: 0, by_status: { failed: 1 } });

    const metrics = await (await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${t.admin}` } })).text();
    expect(metrics).toContain("# TYPE mailroom_jobs_failed gauge");
    expect(metrics).toMatch(/mailroom_jobs_failed\{kind="mail\.process"\} [1-9]/);
    expect(metrics).toMatch(/mailroom_jobs_failed_total\{kind="mail\.process"\} [1-9]/);
    expect(metrics).toContain("# TYPE mailroom_jobs_retrying gauge");
  });

  test("outbound mail that can never be delivered: status failed, with the reason as its last delivery event", async () => {
    const s = await seedAccount(t);
    const id = await plantMessageWithoutRaw(s.agent, "outbound");
    await waitForMessage(t, id, ["failed"], 20_000);
    const delivery = await t.api("GET", `/v1/messages/${id}/delivery`);
    expect(delivery.status).toBe(200);
    const last = delivery.body.events.at(-1);
    expect(last.status).toBe("failed");
    expect(last.detail).toContain("raw message");
  });
});

describe("JetStream", () => {
  test.skipIf(!usingNats)("a message on the webhook subject that is no delivery id is terminated, not redelivered forever", async () => {
    // The names are this deployment's (NATS_PREFIX), as the service derived them.
    const { webhookStream: STREAM, webhookConsumer: CONSUMER, webhookSubject: SUBJECT } = t.service.internals.nats;
    const nc = await connect({ servers: process.env.NATS_URL! });
    try {
      // The server announces every term() of the consumer's messages.
      const advisories = nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.${STREAM}.${CONSUMER}`);
      const terminated: number[] = [];
      void (async () => {
        for await (const m of advisories) terminated.push(Number(m.json<{ stream_seq: number }>().stream_seq));
      })();
      await nc.flush();
      const ack = await jetstream(nc).publish(SUBJECT, "not-a-delivery-id");
      await waitFor(async () => (terminated.includes(ack.seq) ? true : undefined), "the message to be terminated", 20_000);
    } finally {
      await nc.close();
    }
  });
});
