import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seedAccount, sleep, startTestService, usingPostgres, type TestService } from "./harness.ts";

let t: TestService;
let s: Awaited<ReturnType<typeof seedAccount>>;
beforeAll(async () => {
  t = await startTestService();
  s = await seedAccount(t);
});
afterAll(() => t.stop());

describe("GET /v1/mailboxes/:id", () => {
  test("returns only id, email_address, protocol_host, kind, status, created_at", async () => {
    const res = await t.api("GET", `/v1/mailboxes/${s.agent.id}`, { token: s.agentKey.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["mailbox"]);
    expect(Object.keys(res.body.mailbox).sort()).toEqual(["created_at", "email_address", "id", "kind", "protocol_host", "status"]);
    expect(res.body.mailbox).toEqual({
      id: s.agent.id,
      email_address: s.agent.email_address,
      protocol_host: s.agent.protocol_host,
      kind: "agent",
      status: "active",
      created_at: s.agent.created_at,
    });
  });

  test("the admin token may read any mailbox; unknown ids are 404", async () => {
    expect((await t.api("GET", `/v1/mailboxes/${s.primary.id}`)).body.mailbox.kind).toBe("primary");
    const missing = await t.api("GET", "/v1/mailboxes/00000000-0000-4000-8000-000000000000");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
  });

  test("a key of another mailbox gets 403, even for a mailbox that does not exist", async () => {
    const other = await t.api("GET", `/v1/mailboxes/${s.primary.id}`, { token: s.agentKey.token });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe("forbidden");
    const ghost = await t.api("GET", "/v1/mailboxes/00000000-0000-4000-8000-000000000000", { token: s.agentKey.token });
    expect(ghost.status).toBe(403);
  });
});

describe("disable and enable", () => {
  test("return only id and status, and the state is what GET shows", async () => {
    const { agent, agentKey } = await seedAccount(t);
    const off = await t.api("POST", `/v1/mailboxes/${agent.id}/disable`, { token: agentKey.token });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ mailbox: { id: agent.id, status: "disabled" } });
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}`, { token: agentKey.token })).body.mailbox.status).toBe("disabled");

    // Repeating is harmless.
    expect((await t.api("POST", `/v1/mailboxes/${agent.id}/disable`)).body).toEqual({ mailbox: { id: agent.id, status: "disabled" } });

    const on = await t.api("POST", `/v1/mailboxes/${agent.id}/enable`);
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ mailbox: { id: agent.id, status: "active" } });
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}`)).body.mailbox.status).toBe("active");
  });

  test("the state survives the actor being passivated and reloaded from the database", async () => {
    const { agent } = await seedAccount(t);
    await t.api("POST", `/v1/mailboxes/${agent.id}/disable`);
    // This mailbox's actor only: other actors may be activated meanwhile by background jobs
    // (a shared database can hold jobs of earlier tests), so counting all of them is no proof.
    const actors = t.service.internals.actors;
    expect(actors.isActive("mailbox", agent.id)).toBe(true);
    expect(await actors.passivateMatching((kind, id) => kind === "mailbox" && id === agent.id)).toBe(0);
    expect(actors.isActive("mailbox", agent.id)).toBe(false);
    // With its actor gone, the state can only come from the database; the read activates it again.
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}`)).body.mailbox.status).toBe("disabled");
    expect(actors.isActive("mailbox", agent.id)).toBe(true);
  });

  test("concurrent toggles are serialised by the mailbox actor and end in a consistent state", async () => {
    const { agent } = await seedAccount(t);
    const ops = Array.from({ length: 20 }, (_, i) => t.api("POST", `/v1/mailboxes/${agent.id}/${i % 2 ? "enable" : "disable"}`));
    const results = await Promise.all(ops);
    expect(results.every((r) => r.status === 200)).toBe(true);
    const last = results.at(-1)!.body.mailbox.status;
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}`)).body.mailbox.status).toBe(last);
  });

  test("404 for an unknown mailbox", async () => {
    const res = await t.api("POST", "/v1/mailboxes/00000000-0000-4000-8000-000000000000/disable");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
  });
});

describe("two nodes on one database", () => {
  const multiNode = usingPostgres ? test : test.skip;
  multiNode("a status change on one node is seen by the other within a second (at once with NATS)", async () => {
    const other = await startTestService();
    try {
      const { agent, agentKey } = await seedAccount(t);
      // Node B reads (and keeps) the mailbox first.
      expect((await other.api("GET", `/v1/mailboxes/${agent.id}`, { token: agentKey.token })).body.mailbox.status).toBe("active");
      expect((await t.api("POST", `/v1/mailboxes/${agent.id}/disable`)).status).toBe(200);
      // The promise is "no node keeps a stale copy longer than CACHE_TTL_MS (1 s)": once that much
      // time has passed, the other node must see the change, however loaded the machine.
      await sleep(1_000);
      expect((await other.api("GET", `/v1/mailboxes/${agent.id}`, { token: agentKey.token })).body.mailbox.status).toBe("disabled");
    } finally {
      await other.stop();
    }
  });
});
