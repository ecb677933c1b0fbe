import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, seedAccount, startTestService, type TestService } from "./harness.ts";

/**
 * Every event of a mailbox is delivered to each of its subscribed endpoints, so the number of
 * endpoints is the fan-out of every send, reply and arrival. The fuzzer found a mailbox with
 * 205 endpoints, where each reply's `message.sent` became 205 deliveries and their attempts,
 * and the node stalled long enough for mailbox asks to time out. A mailbox's endpoints are bounded.
 */
let t: TestService;
const LIMIT = 3;

beforeAll(async () => {
  t = await startTestService({ WEBHOOK_MAX_ENDPOINTS_PER_MAILBOX: String(LIMIT) });
});
afterAll(async () => {
  await t.stop();
});

const register = (mailboxId: string) => t.api("POST", `/v1/mailboxes/${mailboxId}/webhooks`, { body: { url: "http://127.0.0.1:9/hook", events: ["message.sent"] } });
const listed = async (mailboxId: string) => (await t.api("GET", `/v1/mailboxes/${mailboxId}/webhooks`)).body.items.map((e: { id: string }) => e.id) as string[];

describe("webhook endpoints per mailbox", () => {
  test("past the limit a registration is 409 webhook_endpoint_limit and nothing is stored; deleting one makes room", async () => {
    const { agent } = await seedAccount(t);
    for (let i = 0; i < LIMIT; i++) expect((await register(agent.id)).status).toBe(201);
    const refused = await register(agent.id);
    expectError(refused, 409, "webhook_endpoint_limit");
    expect(refused.body.error.details).toEqual({ limit: LIMIT });
    const ids = await listed(agent.id);
    expect(ids).toHaveLength(LIMIT);

    expect((await t.api("DELETE", `/v1/webhooks/${ids[0]}`)).status).toBe(200);
    expect((await register(agent.id)).status).toBe(201);
    expect(await listed(agent.id)).toHaveLength(LIMIT);
  });

  test("registrations sent at once cannot pass the limit together", async () => {
    const { agent } = await seedAccount(t);
    const results = await Promise.all(Array.from({ length: LIMIT * 3 }, () => register(agent.id)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(LIMIT);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 409, "webhook_endpoint_limit");
    expect(await listed(agent.id)).toHaveLength(LIMIT);
  });

  test("the limit is per mailbox: a full mailbox leaves its neighbours free", async () => {
    const { account, agent } = await seedAccount(t);
    for (let i = 0; i < LIMIT; i++) expect((await register(agent.id)).status).toBe(201);
    expectError(await register(agent.id), 409, "webhook_endpoint_limit");
    const other = await t.api("POST", `/v1/accounts/${account.id}/mailboxes`, { body: { slug: `n-${crypto.randomUUID().slice(0, 8)}` } });
    expect(other.status).toBe(201);
    expect((await register(other.body.mailbox.id)).status).toBe(201);
  });

  test("a non-existent mailbox is still 404, not the limit", async () => {
    expectError(await register(crypto.randomUUID()), 404, "not_found");
  });
});
