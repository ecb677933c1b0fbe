import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fieldPaths, UUID, ISO, expectError, seedAccount, startTestService, type ApiResponse, type TestService } from "./harness.ts";

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

const FIELDS = ["color", "created_at", "id", "name"];
const GHOST_MAILBOX = "00000000-0000-4000-8000-000000000000";
const GHOST_LABEL = "00000000-0000-4000-8000-0000000000a1";


async function createLabel(mailboxId: string, body: unknown, token?: string) {
  const res = await t.api("POST", `/v1/mailboxes/${mailboxId}/labels`, { body, token });
  if (res.status !== 201) throw new Error(`create label failed: ${res.status} ${res.text}`);
  return res.body.label;
}

async function listNames(mailboxId: string): Promise<string[]> {
  const res = await t.api("GET", `/v1/mailboxes/${mailboxId}/labels`);
  expect(res.status).toBe(200);
  return res.body.items.map((l: { name: string }) => l.name);
}

describe("creating labels", () => {
  test("201 with exactly id, name, color and created_at", async () => {
    const { agent, agentKey } = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { token: agentKey.token, body: { name: "Urgent", color: "#ff0000" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(Object.keys(res.body)).toEqual(["label"]);
    const l = res.body.label;
    expect(Object.keys(l).sort()).toEqual(FIELDS);
    expect(l).toMatchObject({ name: "Urgent", color: "#ff0000" });
    expect(l.id).toMatch(UUID);
    expect(l.created_at).toMatch(ISO);
    const listed = await t.api("GET", `/v1/mailboxes/${agent.id}/labels`, { token: agentKey.token });
    expect(listed.body).toEqual({ items: [l] });
  });

  test("the name is trimmed and keeps its case", async () => {
    const { agent } = await seedAccount(t);
    expect((await createLabel(agent.id, { name: "  Follow Up\t" })).name).toBe("Follow Up");
    expect((await createLabel(agent.id, { name: "\n Mixed CaSe " })).name).toBe("Mixed CaSe");
    expect((await createLabel(agent.id, { name: "Ünïcödé ✉ label" })).name).toBe("Ünïcödé ✉ label");
    expect(await listNames(agent.id)).toEqual(["Follow Up", "Mixed CaSe", "Ünïcödé ✉ label"]);
  });

  test.each([
    ["#abc", "#abc"],
    ["#ABC", "#abc"],
    ["#1A73E8", "#1a73e8"],
    ["#000000", "#000000"],
    ["#FfF", "#fff"],
    [" #12ab9F ", "#12ab9f"],
  ])("colour %p is stored as %p", async (color, stored) => {
    const { agent } = await seedAccount(t);
    const l = await createLabel(agent.id, { name: "coloured", color });
    expect(l.color).toBe(stored);
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}/labels`)).body.items[0].color).toBe(stored);
  });

  test("a null or absent colour is null", async () => {
    const { agent } = await seedAccount(t);
    const absent = await createLabel(agent.id, { name: "no colour" });
    expect(absent.color).toBeNull();
    expect(Object.keys(absent).sort()).toEqual(FIELDS);
    const explicit = await createLabel(agent.id, { name: "null colour", color: null });
    expect(explicit.color).toBeNull();
  });

  test.each(["red", "", "#", "#ab", "#abcd", "#abcde", "#abcdefa", "#gggggg", "abc", "ffffff", "#12 345", "rgb(0,0,0)", "#ff0000ff", "x".repeat(17)])(
    "colour %p is refused naming body.color",
    async (color) => {
      const { agent } = await seedAccount(t);
      const res = await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { body: { name: "bad colour", color } });
      expectError(res, 400, "validation_error");
      expect(fieldPaths(res)).toContain("body.color");
      expect(await listNames(agent.id)).toEqual([]);
    },
  );

  test.each([
    [{ name: "x", color: 123 }, "body.color"],
    [{ name: "x", color: ["#fff"] }, "body.color"],
  ])("%p is refused naming %s", async (body, path) => {
    const { agent } = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { body });
    expectError(res, 400, "validation_error");
    expect(fieldPaths(res).join(" ")).toContain(path);
  });

  test("a name of up to 64 characters is accepted; longer, blank or with control characters is refused naming body.name", async () => {
    const { agent } = await seedAccount(t);
    expect((await createLabel(agent.id, { name: "n".repeat(64) })).name).toHaveLength(64);
    expect((await createLabel(agent.id, { name: "a" })).name).toBe("a");
    for (const name of [
      "m".repeat(65),
      "",
      " ",
      "   \t\n ",
      "bad\u0000name",
      "bad\nname",
      "bad\rname",
      "tab\tinside",
      "bell\u0007",
      "esc\u001b[31mred",
      "del\u007f",
    ]) {
      const res = await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { body: { name } });
      expectError(res, 400, "validation_error");
      expect(fieldPaths(res)).toContain("body.name");
    }
    expect(await listNames(agent.id)).toEqual(["a", "n".repeat(64)]);
  });

  test("the 64-character limit applies to the trimmed name", async () => {
    const { agent } = await seedAccount(t);
    const padded = await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { body: { name: ` ${"p".repeat(64)}  ` } });
    expect(padded.status).toBe(201);
    expect(padded.body.label.name).toBe("p".repeat(64));
    const long = await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { body: { name: ` ${"q".repeat(65)} ` } });
    expectError(long, 400, "validation_error");
    expect(fieldPaths(long)).toContain("body.name");
  });

  test.each([
    ["U+0080", "c1 control \u0080 start"],
    ["U+0085 (next line)", "c1 control \u0085 next line"],
    ["U+009B (CSI)", "c1 control \u009b[31m red"],
    ["U+009F", "c1 control \u009f end"],
  ])("a name with the C1 control character %s is refused naming body.name", async (_, name) => {
    const { agent } = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { body: { name } });
    expectError(res, 400, "validation_error");
    expect(fieldPaths(res)).toContain("body.name");
    expect(await listNames(agent.id)).toEqual([]);
  });

  test.each([
    [{}, "body.name"],
    [{ color: "#fff" }, "body.name"],
    [{ name: null }, "body.name"],
    [{ name: 5 }, "body.name"],
    [{ name: ["x"] }, "body.name"],
    [{ name: "ok", extra: true }, "body"],
    [{ name: "ok", colour: "#fff" }, "body"],
  ])("%p is refused naming %s", async (body, path) => {
    const { agent } = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { body });
    expectError(res, 400, "validation_error");
    expect(fieldPaths(res).join(" ")).toContain(path);
    expect(await listNames(agent.id)).toEqual([]);
  });

  test("no body and a body that is not JSON are refused", async () => {
    const { agent } = await seedAccount(t);
    expectError(await t.api("POST", `/v1/mailboxes/${agent.id}/labels`), 400, "validation_error");
    expectError(await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { rawBody: "{name:" }), 400, "invalid_json");
    expect(await listNames(agent.id)).toEqual([]);
  });

  test("an unknown mailbox is 404; a malformed mailbox id 400", async () => {
    expectError(await t.api("POST", `/v1/mailboxes/${GHOST_MAILBOX}/labels`, { body: { name: "x" } }), 404, "not_found");
    expectError(await t.api("POST", "/v1/mailboxes/nope/labels", { body: { name: "x" } }), 400, "validation_error");
  });
});

describe("label names are unique per mailbox", () => {
  test("the same name in any letter case, or with white space around it, is 409 label_exists", async () => {
    const { agent } = await seedAccount(t);
    const first = await createLabel(agent.id, { name: "Urgent", color: "#f00" });
    for (const name of ["Urgent", "urgent", "URGENT", "uRgEnT", "  urgent  "]) {
      const res = await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { body: { name, color: "#0f0" } });
      expectError(res, 409, "label_exists");
      expect(res.body.error.message).toContain(name.trim());
    }
    const listed = await t.api("GET", `/v1/mailboxes/${agent.id}/labels`);
    expect(listed.body.items).toEqual([first]);
  });

  test("case-insensitivity is not only ASCII", async () => {
    const { agent } = await seedAccount(t);
    await createLabel(agent.id, { name: "Ärger" });
    expectError(await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { body: { name: "ärger" } }), 409, "label_exists");
    expectError(await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { body: { name: "ÄRGER" } }), 409, "label_exists");
  });

  test("the same name in another mailbox, of the same account or another, is fine", async () => {
    const { primary, agent } = await seedAccount(t);
    const other = await seedAccount(t);
    const a = await createLabel(agent.id, { name: "Invoices" });
    const b = await createLabel(primary.id, { name: "invoices" });
    const c = await createLabel(other.agent.id, { name: "INVOICES" });
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    expect(await listNames(agent.id)).toEqual(["Invoices"]);
    expect(await listNames(primary.id)).toEqual(["invoices"]);
    expect(await listNames(other.agent.id)).toEqual(["INVOICES"]);
  });

  test("concurrent creates of one name in different cases: exactly one lands, the rest are 409", async () => {
    const { agent } = await seedAccount(t);
    const names = ["Team", "team", "TEAM", "tEAM", "Team ", " team", "TeAm", "teaM"];
    const results = await Promise.all(names.map((name) => t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { body: { name } })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 409, "label_exists");
    const listed = await listNames(agent.id);
    expect(listed).toHaveLength(1);
    expect(listed[0]!.toLowerCase()).toBe("team");
  });

  test("concurrent creates of different names all land", async () => {
    const { agent } = await seedAccount(t);
    const names = Array.from({ length: 15 }, (_, i) => `label ${String.fromCharCode(97 + i)}`);
    const results = await Promise.all(names.map((name) => t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { body: { name } })));
    for (const r of results) expect(r.status).toBe(201);
    expect(await listNames(agent.id)).toEqual(names);
  });
});

describe("listing labels", () => {
  test("sorted by name, case-insensitively", async () => {
    const { agent, agentKey } = await seedAccount(t);
    for (const name of ["gamma", "Beta", "alpha", "Delta", "epsilon", "Charlie", "bravo"]) await createLabel(agent.id, { name });
    const res = await t.api("GET", `/v1/mailboxes/${agent.id}/labels`, { token: agentKey.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["items"]);
    expect(res.body.items.map((l: { name: string }) => l.name)).toEqual(["alpha", "Beta", "bravo", "Charlie", "Delta", "epsilon", "gamma"]);
    for (const l of res.body.items) expect(Object.keys(l).sort()).toEqual(FIELDS);
  });

  test("an empty mailbox lists nothing; an unknown mailbox is 404", async () => {
    const { agent } = await seedAccount(t);
    const res = await t.api("GET", `/v1/mailboxes/${agent.id}/labels`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [] });
    expectError(await t.api("GET", `/v1/mailboxes/${GHOST_MAILBOX}/labels`), 404, "not_found");
    expectError(await t.api("GET", "/v1/mailboxes/not-a-uuid/labels"), 400, "validation_error");
  });
});

describe("deleting labels", () => {
  test("DELETE returns the label; then it is gone and a second DELETE is 404", async () => {
    const { agent, agentKey } = await seedAccount(t);
    const gone = await createLabel(agent.id, { name: "Temporary", color: "#ABCDEF" });
    const stays = await createLabel(agent.id, { name: "Stays" });
    const res = await t.api("DELETE", `/v1/labels/${gone.id}`, { token: agentKey.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ label: gone });
    expect(res.body.label.color).toBe("#abcdef");
    const listed = await t.api("GET", `/v1/mailboxes/${agent.id}/labels`);
    expect(listed.body.items).toEqual([stays]);
    expectError(await t.api("DELETE", `/v1/labels/${gone.id}`, { token: agentKey.token }), 404, "not_found");
    expectError(await t.api("DELETE", `/v1/labels/${gone.id}`), 404, "not_found");
  });

  test("after a delete the name can be created again, in any case, as a new label", async () => {
    const { agent } = await seedAccount(t);
    const first = await createLabel(agent.id, { name: "Reused", color: "#111" });
    expect((await t.api("DELETE", `/v1/labels/${first.id}`)).status).toBe(200);
    const again = await createLabel(agent.id, { name: "REUSED" });
    expect(again.id).not.toBe(first.id);
    expect(again).toMatchObject({ name: "REUSED", color: null });
    expect(await listNames(agent.id)).toEqual(["REUSED"]);
    expectError(await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { body: { name: "reused" } }), 409, "label_exists");
  });

  test("the admin token may delete any label", async () => {
    const { agent } = await seedAccount(t);
    const l = await createLabel(agent.id, { name: "admin-deleted" });
    const res = await t.api("DELETE", `/v1/labels/${l.id}`);
    expect(res.status).toBe(200);
    expect(res.body.label).toEqual(l);
  });

  test("an unknown label id is 404 for the admin and for a key; a malformed one is 400", async () => {
    const { agentKey } = await seedAccount(t);
    for (const token of [undefined, agentKey.token]) {
      expectError(await t.api("DELETE", `/v1/labels/${GHOST_LABEL}`, { token }), 404, "not_found");
      for (const bad of ["not-a-uuid", "42", "00000000-0000-4000-8000-00000000000z"]) {
        const res = await t.api("DELETE", `/v1/labels/${bad}`, { token });
        expectError(res, 400, "validation_error");
        expect(fieldPaths(res).join(" ")).toContain("params.labelId");
      }
    }
  });
});

describe("label auth", () => {
  test("the owning mailbox's key and the admin token may create, list and delete", async () => {
    const { agent, agentKey } = await seedAccount(t);
    const byKey = await createLabel(agent.id, { name: "by key" }, agentKey.token);
    const byAdmin = await createLabel(agent.id, { name: "by admin" });
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}/labels`, { token: agentKey.token })).body.items).toEqual([byAdmin, byKey]);
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}/labels`)).body.items).toEqual([byAdmin, byKey]);
    expect((await t.api("DELETE", `/v1/labels/${byAdmin.id}`, { token: agentKey.token })).status).toBe(200);
    expect((await t.api("DELETE", `/v1/labels/${byKey.id}`)).status).toBe(200);
    expect(await listNames(agent.id)).toEqual([]);
  });

  test("another mailbox's key is 403 on DELETE /v1/labels/{id} and on the mailbox routes, and changes nothing", async () => {
    const { primary, agent, primaryKey } = await seedAccount(t);
    const other = await seedAccount(t);
    const l = await createLabel(agent.id, { name: "Private" });
    for (const token of [primaryKey.token, other.agentKey.token]) {
      expectError(await t.api("DELETE", `/v1/labels/${l.id}`, { token }), 403, "forbidden");
      expectError(await t.api("DELETE", `/v1/labels/${l.id.toUpperCase()}`, { token }), 403, "forbidden");
      expectError(await t.api("GET", `/v1/mailboxes/${agent.id}/labels`, { token }), 403, "forbidden");
      expectError(await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { token, body: { name: "Planted" } }), 403, "forbidden");
    }
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}/labels`)).body.items).toEqual([l]);
    expect(await listNames(primary.id)).toEqual([]);
  });

  test("no token, a malformed token and a wrong token are 401", async () => {
    const { agent } = await seedAccount(t);
    const l = await createLabel(agent.id, { name: "guarded" });
    expectError(await t.api("DELETE", `/v1/labels/${l.id}`, { token: null }), 401, "missing_authorization");
    expectError(await t.api("DELETE", `/v1/labels/${l.id}`, { token: "svc_broken" }), 401, "invalid_authorization");
    expectError(await t.api("POST", `/v1/mailboxes/${agent.id}/labels`, { token: "wrong-admin-token", body: { name: "x" } }), 401, "invalid_token");
    expectError(await t.api("GET", `/v1/mailboxes/${agent.id}/labels`, { token: null }), 401, "missing_authorization");
    expect(await listNames(agent.id)).toEqual(["guarded"]);
  });
});
