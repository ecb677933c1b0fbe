import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, seedAccount, startTestService, UUID, type TestService } from "./harness.ts";
import { postInbound, rfc822, waitForMessage } from "./mail-support.ts";

/**
 * A protocol message's `thread_id` may name a thread of the recipient only when the sender
 * takes part in it: the thread holds a protocol message from the sender's mailbox, or the
 * recipient named it to the sender in a protocol message. Any other thread of the recipient
 * is 404, as if it did not exist.
 */
let t: TestService;
let owner: Awaited<ReturnType<typeof seedAccount>>;
let tenant: Awaited<ReturnType<typeof seedAccount>>;
beforeAll(async () => {
  t = await startTestService();
  owner = await seedAccount(t);
  tenant = await seedAccount(t);
});
afterAll(() => t.stop());

type Box = { protocol_host: string };
const sendTo = (to: Box, token: string, body: Record<string, unknown>) =>
  t.api("POST", "/.agent/inbox", { token, body: { subject: "Hello", body: "Hi there", ...body }, headers: { host: `${to.protocol_host}:${new URL(t.url).port}` } });

/** A private email conversation of the owner's agent mailbox. */
async function emailThread(): Promise<{ threadId: string; messageId: string }> {
  const res = await postInbound(t, rfc822({ From: "ann@example.com", To: owner.agent.email_address, Subject: `Private matter ${crypto.randomUUID()}`, "Message-ID": `<${crypto.randomUUID()}@example.com>` }), [owner.agent.email_address]);
  expect(res.status).toBe(202);
  const m = await waitForMessage(t, res.body.message_ids[0]);
  return { threadId: m.thread_id, messageId: m.id };
}

async function threadMessages(threadId: string): Promise<string[]> {
  const res = await t.api("GET", `/v1/threads/${threadId}/messages?limit=100`);
  expect(res.status).toBe(200);
  return res.body.items.map((m: { id: string }) => m.id);
}

describe("thread_id of a protocol message", () => {
  test("another tenant naming a private email thread is 404 and the thread is unchanged", async () => {
    const { threadId, messageId } = await emailThread();
    const before = (await t.api("GET", `/v1/threads/${threadId}`)).body.thread;
    const res = await sendTo(owner.agent, tenant.agentKey.token, { thread_id: threadId });
    expectError(res, 404, "not_found");
    expect(await threadMessages(threadId)).toEqual([messageId]);
    expect((await t.api("GET", `/v1/threads/${threadId}`)).body.thread).toEqual(before);
  });

  test("a mailbox of the same account without an exchange in the thread is refused too", async () => {
    const { threadId, messageId } = await emailThread();
    expectError(await sendTo(owner.agent, owner.primaryKey.token, { thread_id: threadId }), 404, "not_found");
    expect(await threadMessages(threadId)).toEqual([messageId]);
  });

  test("the thread of a previous exchange may be named: our thread id sent back continues it", async () => {
    const first = await sendTo(owner.agent, tenant.agentKey.token, {});
    expect(first.status).toBe(201);
    const next = await sendTo(owner.agent, tenant.agentKey.token, { thread_id: first.body.thread_id });
    expect(next.status).toBe(201);
    expect(next.body.thread_id).toBe(first.body.thread_id);
    expect(await threadMessages(first.body.thread_id)).toEqual([first.body.id, next.body.id]);
    // A third party still cannot.
    expectError(await sendTo(owner.agent, owner.primaryKey.token, { thread_id: first.body.thread_id }), 404, "not_found");
  });

  test("a thread the recipient named to the sender may be named back", async () => {
    const { threadId } = await emailThread();
    // The owner's agent tells the tenant about its thread…
    expect((await sendTo(tenant.agent, owner.agentKey.token, { thread_id: threadId })).status).toBe(201);
    // …so the tenant may answer into it.
    const answer = await sendTo(owner.agent, tenant.agentKey.token, { thread_id: threadId });
    expect(answer.status).toBe(201);
    expect(answer.body.thread_id).toBe(threadId);
  });

  test("an id that is no thread of the recipient is the sender's own conversation id: a new thread", async () => {
    const own = crypto.randomUUID();
    const a = await sendTo(owner.agent, tenant.agentKey.token, { thread_id: own });
    expect(a.status).toBe(201);
    expect(a.body.thread_id).toMatch(UUID);
    expect(a.body.thread_id).not.toBe(own);
    const b = await sendTo(owner.agent, tenant.agentKey.token, { thread_id: own });
    expect(b.body.thread_id).toBe(a.body.thread_id);
  });
});
