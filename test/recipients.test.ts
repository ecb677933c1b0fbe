import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { mailboxes } from "../db/schema/index.ts";
import { Recipients } from "../src/mail/recipients.ts";
import { seedAccount, startTestService, type TestService } from "./harness.ts";

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

/** A mailbox of its own, a Recipients on the service's database with a clock the test moves, and a way to change the row behind its back. */
async function setUp(ttlMs = 1000) {
  const { agent } = await seedAccount(t);
  const db = t.service.internals.database.db;
  let now = 0;
  const recipients = new Recipients(db, agent.email_address.split("@")[1]!, { ttlMs, clock: () => now });
  return {
    recipients,
    address: agent.email_address as string,
    id: agent.id as string,
    advance: (ms: number) => void (now += ms),
    setStatus: (status: "active" | "disabled") => db.update(mailboxes).set({ status }).where(eq(mailboxes.id, agent.id)),
  };
}

const verdict = async (recipients: Recipients, address: string) => {
  const r = await recipients.resolve(address);
  return r.ok ? "ok" : r.problem;
};

describe("recipients: the active mailboxes kept between mails", () => {
  test("an active mailbox is kept for ttlMs, then read again", async () => {
    const s = await setUp();
    expect(await verdict(s.recipients, s.address)).toBe("ok");
    await s.setStatus("disabled"); // behind its back: no forget
    s.advance(999);
    expect(await verdict(s.recipients, s.address)).toBe("ok");
    expect(await verdict(s.recipients, s.address.replace("@", "+tag@"))).toBe("ok"); // a sub-address is its mailbox's
    s.advance(1);
    expect(await verdict(s.recipients, s.address)).toBe("mailbox_disabled");
  });

  test("forget drops a mailbox's addresses at once", async () => {
    const s = await setUp();
    expect(await verdict(s.recipients, s.address)).toBe("ok");
    await s.setStatus("disabled");
    s.recipients.forget(s.id);
    expect(await verdict(s.recipients, s.address)).toBe("mailbox_disabled");
  });

  test("a disabled mailbox is not kept: enabling it takes effect at once", async () => {
    const s = await setUp();
    await s.setStatus("disabled");
    expect(await verdict(s.recipients, s.address)).toBe("mailbox_disabled");
    await s.setStatus("active");
    expect(await verdict(s.recipients, s.address)).toBe("ok");
  });

  test("a read under way when the mailbox is forgotten is not kept", async () => {
    const s = await setUp();
    // The read may see the row before the change the forget announces.
    const reading = s.recipients.resolve(s.address);
    s.recipients.forget(s.id);
    expect((await reading).ok).toBe(true);
    await s.setStatus("disabled");
    expect(await verdict(s.recipients, s.address)).toBe("mailbox_disabled");
  });

  test("with ttlMs 0 every recipient is read", async () => {
    const s = await setUp(0);
    expect(await verdict(s.recipients, s.address)).toBe("ok");
    await s.setStatus("disabled");
    expect(await verdict(s.recipients, s.address)).toBe("mailbox_disabled");
  });

  test("unknown addresses are never kept: a new mailbox takes mail at once", async () => {
    const s = await setUp();
    const domain = s.address.split("@")[1]!;
    const fresh = `new-${crypto.randomUUID().slice(0, 8)}@${domain}`;
    expect(await verdict(s.recipients, fresh)).toBe("unknown_mailbox");
    await t.service.internals.database.db.update(mailboxes).set({ emailAddress: fresh }).where(eq(mailboxes.id, s.id));
    expect(await verdict(s.recipients, fresh)).toBe("ok");
  });
});
