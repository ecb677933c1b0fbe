import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, seedAccount, sleep, startTestService, usingPostgres, type TestService } from "./harness.ts";

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

const DEFAULTS = { allow_outbound: true, allow_auto_reply: true, max_outbound_per_day: 1000, updated_at: null };

describe("mailbox policy", () => {
  test("starts with the spec's defaults, readable by the mailbox key and the admin token", async () => {
    const { agent, agentKey } = await seedAccount(t);
    const byKey = await t.api("GET", `/v1/mailboxes/${agent.id}/policy`, { token: agentKey.token });
    expect(byKey.status).toBe(200);
    expect(byKey.body).toEqual({ policy: DEFAULTS });
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}/policy`)).body).toEqual({ policy: DEFAULTS });
  });

  test("PUT changes only the given fields, and the change is kept across actor passivation", async () => {
    const { agent, agentKey } = await seedAccount(t);
    const res = await t.api("PUT", `/v1/mailboxes/${agent.id}/policy`, { token: agentKey.token, body: { allow_outbound: false } });
    expect(res.status).toBe(200);
    expect(res.body.policy).toMatchObject({ allow_outbound: false, allow_auto_reply: true, max_outbound_per_day: 1000 });
    expect(res.body.policy.updated_at).toMatch(/Z$/);

    const second = await t.api("PUT", `/v1/mailboxes/${agent.id}/policy`, { body: { max_outbound_per_day: 5, allow_auto_reply: false } });
    expect(second.body.policy).toMatchObject({ allow_outbound: false, allow_auto_reply: false, max_outbound_per_day: 5 });

    await t.service.internals.actors.passivateIdle(Date.now() + 10 * 86_400_000);
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}/policy`)).body.policy).toMatchObject({ allow_outbound: false, allow_auto_reply: false, max_outbound_per_day: 5 });
  });

  test("an empty body changes nothing", async () => {
    const { agent } = await seedAccount(t);
    const res = await t.api("PUT", `/v1/mailboxes/${agent.id}/policy`, { body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ policy: DEFAULTS });
  });

  test.each([
    [{ allow_outbound: "no" }, "body.allow_outbound"],
    [{ max_outbound_per_day: -1 }, "body.max_outbound_per_day"],
    [{ max_outbound_per_day: 1.5 }, "body.max_outbound_per_day"],
    [{ max_outbound_per_day: 2_000_000 }, "body.max_outbound_per_day"],
    [{ allow_outbund: false }, "body"],
  ])("%p is refused naming %s", async (body, path) => {
    const { agent } = await seedAccount(t);
    const res = await t.api("PUT", `/v1/mailboxes/${agent.id}/policy`, { body });
    expectError(res, 400, "validation_error");
    expect(res.body.error.details.fields.map((f: { path: string }) => f.path).join(" ")).toContain(path);
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}/policy`)).body).toEqual({ policy: DEFAULTS });
  });

  test("a JSON body that is not an object is refused, not taken as no change", async () => {
    const { agent } = await seedAccount(t);
    for (const raw of ["null", "[]", "42", "true", '"x"']) {
      const res = await t.api("PUT", `/v1/mailboxes/${agent.id}/policy`, { rawBody: raw });
      expectError(res, 400, "validation_error");
      expect(res.body.error.details.fields).toEqual([{ path: "body", message: "must be a JSON object" }]);
    }
  });

  test("another mailbox's key is 403; an unknown mailbox is 404", async () => {
    const { primary, agentKey } = await seedAccount(t);
    expectError(await t.api("PUT", `/v1/mailboxes/${primary.id}/policy`, { token: agentKey.token, body: { allow_outbound: false } }), 403, "forbidden");
    expectError(await t.api("GET", "/v1/mailboxes/00000000-0000-4000-8000-000000000000/policy"), 404, "not_found");
    expectError(await t.api("PUT", "/v1/mailboxes/00000000-0000-4000-8000-000000000000/policy", { body: { allow_outbound: false } }), 404, "not_found");
  });

  const multiNode = usingPostgres ? test : test.skip;
  multiNode("a change on one node is read on another within a second", async () => {
    const other = await startTestService();
    try {
      const { agent } = await seedAccount(t);
      expect((await other.api("GET", `/v1/mailboxes/${agent.id}/policy`)).body.policy.allow_outbound).toBe(true);
      await t.api("PUT", `/v1/mailboxes/${agent.id}/policy`, { body: { allow_outbound: false } });
      // The promise is "no node keeps a stale copy longer than CACHE_TTL_MS (1 s)": once that much
      // time has passed, the other node must see the change, however loaded the machine.
      await sleep(1_000);
      expect((await other.api("GET", `/v1/mailboxes/${agent.id}/policy`)).body.policy.allow_outbound).toBe(false);
    } finally {
      await other.stop();
    }
  });
});
