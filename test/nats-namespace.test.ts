import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { rowsOf } from "../db/migrate.ts";
import { connectBus } from "../src/cluster/bus.ts";
import { natsNames } from "../src/cluster/nats-names.ts";
import { ConfigError, loadConfig } from "../src/config.ts";
import { defaultNatsPrefix, deploymentIdentity } from "../src/deployment.ts";
import { createLogger } from "../src/log.ts";
import { seedAccount, sleep, startTestService, usingNats, usingPostgres, type TestService } from "./harness.ts";
import { postInbound, rfc822 } from "./mail-support.ts";
import { startReceiver } from "./webhook-support.ts";

const started: TestService[] = [];
let a: TestService;
let b: TestService;
// Two fresh databases migrate slowly on a busy machine: the starts get their own time.
beforeAll(async () => {
  a = await start();
  b = await onItsOwnDatabase();
}, 180_000);
afterAll(async () => {
  await Promise.all(started.map((t) => t.stop()));
});
async function start(env: Record<string, string> = {}) {
  const t = await startTestService(env);
  started.push(t);
  return t;
}
/** A service on its own in-memory PGlite database, whatever DATABASE_URL says. */
const onItsOwnDatabase = () => start({ DATABASE_URL: "" });

describe("NATS names", () => {
  test("every name sits under the prefix; streams and subjects take only safe characters", () => {
    const n = natsNames("acme-prod_1");
    expect(n.webhookStream).toBe("acme-prod_1-webhooks");
    for (const subject of [n.webhookSubject, n.keyRevoked, n.mailboxChanged]) expect(subject.startsWith("acme-prod_1.")).toBe(true);
    expect(() => natsNames("a.b")).toThrow();
    expect(() => natsNames("a>")).toThrow();
    expect(() => loadConfig({ NATS_PREFIX: "has.dot" })).toThrow(ConfigError);
    expect(() => loadConfig({ NATS_PREFIX: "x".repeat(65) })).toThrow(ConfigError);
    expect(loadConfig({ NATS_PREFIX: "acme-prod" }).natsPrefix).toBe("acme-prod");
    expect(loadConfig({}).natsPrefix).toBeUndefined();
  });

  test("the default prefix follows the database: the same for every node of one, different for two", async () => {
    const idA = (await deploymentIdentity(a.service.internals.database.db)).id;
    expect((await deploymentIdentity(a.service.internals.database.db)).id).toBe(idA);
    expect(a.service.internals.nats.prefix).toBe(defaultNatsPrefix(idA));
    expect(b.service.internals.nats.prefix).not.toBe(a.service.internals.nats.prefix);
    expect(a.service.internals.nats.prefix).toMatch(/^mailroom-[0-9a-f]{16}$/);
    if (usingPostgres) {
      // A second node of the same database derives the same namespace.
      const a2 = await start();
      expect(a2.service.internals.nats.prefix).toBe(a.service.internals.nats.prefix);
    }
  });
});

describe.skipIf(!usingNats)("two deployments on one NATS", () => {
  test("each receives all and only its own webhook deliveries", async () => {
    const deployments = [a, b];
    const PER_DEPLOYMENT = 25;
    const sides = await Promise.all(
      deployments.map(async (t) => {
        const s = await seedAccount(t);
        const receiver = startReceiver();
        const res = await t.api("POST", `/v1/mailboxes/${s.primary.id}/webhooks`, { body: { url: receiver.url, events: ["message.received"] } });
        expect(res.status).toBe(201);
        return { t, s, receiver };
      }),
    );
    const sent = sides.map(() => new Set<string>());
    for (let i = 0; i < PER_DEPLOYMENT; i++) {
      await Promise.all(
        sides.map(async ({ t, s }, side) => {
          const res = await postInbound(t, rfc822({ From: "ann@example.com", To: s.primary.email_address, Subject: `n${i}`, "Message-ID": `<${randomUUID()}@example.com>` }));
          expect(res.status).toBe(202);
          sent[side]!.add(res.body.message_ids[0]);
        }),
      );
    }
    try {
      for (const [side, { receiver }] of sides.entries()) {
        await receiver.waitFor((rs) => rs.length >= PER_DEPLOYMENT, 20_000);
        const got = new Set(receiver.requests.map((r) => JSON.parse(r.body).id as string));
        expect(got).toEqual(sent[side]!);
      }
      // Nothing left behind: every delivery of each database is recorded as succeeded (the recorder commits in groups).
      for (const { t, s } of sides) {
        const unfinished = async () => rowsOf<{ n: number }>(await t.service.internals.database.db.execute(sql`select count(*)::int as n from webhook_deliveries where mailbox_id = ${s.primary.id} and state <> 'succeeded'`))[0]!.n;
        for (let i = 0; i < 100 && (await unfinished()) > 0; i++) await sleep(50);
        expect(await unfinished()).toBe(0);
      }
    } finally {
      for (const { receiver } of sides) receiver.stop();
    }
  }, 90_000);

  test("cluster broadcasts (key revoked) reach the nodes of their own deployment only", async () => {
    const log = createLogger("silent", "bus-test");
    const heard = { a2: [] as string[], b: [] as string[] };
    const nsA = natsNames(`ns-a-${randomUUID().slice(0, 8)}`);
    const nsB = natsNames(`ns-b-${randomUUID().slice(0, 8)}`);
    const none = () => {};
    const a1 = await connectBus(process.env.NATS_URL, nsA, "a1", { onKeyRevoked: none, onMailboxChanged: none }, log);
    const a2 = await connectBus(process.env.NATS_URL, nsA, "a2", { onKeyRevoked: (id) => heard.a2.push(id), onMailboxChanged: none }, log);
    const b1 = await connectBus(process.env.NATS_URL, nsB, "b1", { onKeyRevoked: (id) => heard.b.push(id), onMailboxChanged: none }, log);
    const b2 = await connectBus(process.env.NATS_URL, nsB, "b2", { onKeyRevoked: none, onMailboxChanged: none }, log);
    try {
      const key = randomUUID();
      const own = randomUUID();
      a1.announceRevoked(key);
      b2.announceRevoked(own);
      const deadline = Date.now() + 5000;
      while ((heard.a2.length === 0 || heard.b.length === 0) && Date.now() < deadline) await sleep(20);
      // b's own broadcast arrived after a's was published: a's would have been heard by now.
      await sleep(100);
      expect(heard.a2).toEqual([key]);
      expect(heard.b).toEqual([own]);
    } finally {
      await Promise.all([a1, a2, b1, b2].map((bus) => bus.close()));
    }
  });
});
