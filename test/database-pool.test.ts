/**
 * DATABASE_POOL_SIZE bounds the PostgreSQL connections the service's pool opens (src/config.ts
 * says why the default is small), and a burst of mail and reads larger than the pool queues
 * behind it rather than failing. PostgreSQL only: the embedded database has one connection.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { freshDatabase, seedAccount, startTestService, usingPostgres, waitFor, type TestService } from "./harness.ts";
import { rfc822, smtpSend } from "./mail-support.ts";

/** The most connections the service had open to `database` while `burst` ran (sampled every few ms). */
async function peakConnections(database: string, burst: () => Promise<void>): Promise<number> {
  const observer = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  let peak = 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      const [row] = await observer`select count(*)::int as n from pg_stat_activity where datname = ${database} and application_name = 'mailroom'`;
      peak = Math.max(peak, row!.n as number);
      await Bun.sleep(3);
    }
  })();
  try {
    await burst();
  } finally {
    running = false;
    await sampling;
    await observer.end();
  }
  return peak;
}

/** 24 messages over as many SMTP connections to two mailboxes, and 16 reads, all at once; each must succeed. */
async function burst(t: TestService, mailboxes: { id: string; email_address: string }[]): Promise<void> {
  const sends = Array.from({ length: 24 }, (_, i) => {
    const to = mailboxes[i % mailboxes.length]!.email_address;
    const raw = rfc822({ From: "sender@example.org", To: to, Subject: `pool ${i}`, "Message-ID": `<pool-${i}-${crypto.randomUUID()}@example.org>` }, `Message ${i} of the burst.\r\n`);
    return smtpSend(t.service.smtpPort, { from: "sender@example.org", to: [to] }, raw);
  });
  const reads = Array.from({ length: 16 }, (_, i) => t.api("GET", `/v1/mailboxes/${mailboxes[i % mailboxes.length]!.id}/messages`));
  const [sent, read] = await Promise.all([Promise.all(sends), Promise.all(reads)]);
  for (const info of sent) expect(info.accepted.length).toBe(1);
  for (const res of read) expect(res.status).toBe(200);
  // Every message is processed too: processing's statements queued behind the pool as well.
  for (const box of mailboxes) {
    await waitFor(async () => {
      const res = await t.api("GET", `/v1/mailboxes/${box.id}/messages?status=processed&limit=100`);
      return res.status === 200 && res.body.total === 12 ? true : undefined;
    }, `12 processed messages in mailbox ${box.id}`, 30_000);
  }
}

describe.skipIf(!usingPostgres)("DATABASE_POOL_SIZE (PostgreSQL)", () => {
  const started: { t: TestService; drop: () => Promise<void> }[] = [];
  afterAll(async () => {
    for (const s of started) {
      await s.t.stop();
      await s.drop();
    }
  });

  async function serviceWithPool(size: number) {
    const db = await freshDatabase("pool");
    // 24 SMTP clients at once from one address: more than the default allows one address.
    const t = await startTestService({ DATABASE_URL: db.url, DATABASE_POOL_SIZE: String(size), SMTP_MAX_CLIENTS_PER_ADDRESS: "64" });
    started.push({ t, drop: db.drop });
    const seeded = await seedAccount(t);
    return { t, database: new URL(db.url).pathname.slice(1), mailboxes: [seeded.primary, seeded.agent] };
  }

  let small: Awaited<ReturnType<typeof serviceWithPool>>;
  let large: Awaited<ReturnType<typeof serviceWithPool>>;
  beforeAll(async () => {
    small = await serviceWithPool(2);
    large = await serviceWithPool(12);
  });

  test("a burst larger than the pool queues behind it: never more connections than the pool (and the one LISTEN holds), and nothing fails", async () => {
    const peak = await peakConnections(small.database, () => burst(small.t, small.mailboxes));
    expect(peak).toBeGreaterThanOrEqual(1);
    expect(peak).toBeLessThanOrEqual(2 + 1);
  }, 60_000);

  test("the same burst with a larger pool opens more of them (so the bound above is the setting's doing)", async () => {
    const peak = await peakConnections(large.database, () => burst(large.t, large.mailboxes));
    expect(peak).toBeGreaterThan(2 + 1);
    expect(peak).toBeLessThanOrEqual(12 + 1);
  }, 60_000);
});
