import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fieldPaths, UUID, ISO, expectError, seedAccount, sleep, startTestService, type ApiResponse, type TestService } from "./harness.ts";

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

const FIELDS = ["bcc", "cc", "created_at", "html_body", "id", "subject", "text_body", "to", "updated_at"];
const GHOST_MAILBOX = "00000000-0000-4000-8000-000000000000";
const GHOST_DRAFT = "00000000-0000-4000-8000-0000000000d1";


async function createDraft(mailboxId: string, body: unknown, token?: string) {
  const res = await t.api("POST", `/v1/mailboxes/${mailboxId}/drafts`, { body, token });
  if (res.status !== 201) throw new Error(`create draft failed: ${res.status} ${res.text}`);
  return res.body.draft;
}

/** A draft's fields as stored, read back through GET. */
async function fetchDraft(id: string) {
  const res = await t.api("GET", `/v1/drafts/${id}`);
  expect(res.status).toBe(200);
  return res.body.draft;
}

describe("creating drafts", () => {
  test("with every field: 201 and exactly the draft's fields", async () => {
    const { agent, agentKey } = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/drafts`, {
      token: agentKey.token,
      body: {
        to: ["alice@example.com", "bob@example.org"],
        cc: ["carol@example.net"],
        bcc: ["dave@example.com"],
        subject: "Quarterly report",
        textBody: "Hello,\nthe report is attached.\n",
        htmlBody: "<p>Hello,</p><p>the report is attached.</p>",
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(Object.keys(res.body)).toEqual(["draft"]);
    const d = res.body.draft;
    expect(Object.keys(d).sort()).toEqual(FIELDS);
    expect(d).toMatchObject({
      to: ["alice@example.com", "bob@example.org"],
      cc: ["carol@example.net"],
      bcc: ["dave@example.com"],
      subject: "Quarterly report",
      text_body: "Hello,\nthe report is attached.\n",
      html_body: "<p>Hello,</p><p>the report is attached.</p>",
    });
    expect(d.id).toMatch(UUID);
    expect(d.created_at).toMatch(ISO);
    expect(d.updated_at).toMatch(ISO);
    expect(d.updated_at).toBe(d.created_at);
    // What GET returns is what create returned.
    expect(await fetchDraft(d.id)).toEqual(d);
  });

  test("with no body at all: an empty draft", async () => {
    const { agent } = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/drafts`);
    expect(res.status).toBe(201);
    const d = res.body.draft;
    expect(Object.keys(d).sort()).toEqual(FIELDS);
    expect(d).toMatchObject({ to: [], cc: [], bcc: [], subject: null, text_body: null, html_body: null });
    expect(await fetchDraft(d.id)).toEqual(d);
  });

  test("with {}: an empty draft", async () => {
    const { agent } = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/drafts`, { body: {} });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.draft).sort()).toEqual(FIELDS);
    expect(res.body.draft).toMatchObject({ to: [], cc: [], bcc: [], subject: null, text_body: null, html_body: null });
  });

  test("with some fields: the rest are empty arrays and nulls", async () => {
    const { agent } = await seedAccount(t);
    const d = await createDraft(agent.id, { cc: ["x@example.com"], textBody: "only text" });
    expect(d).toMatchObject({ to: [], cc: ["x@example.com"], bcc: [], subject: null, text_body: "only text", html_body: null });
    const nulls = await createDraft(agent.id, { subject: null, textBody: null, htmlBody: null, to: [] });
    expect(nulls).toMatchObject({ to: [], cc: [], bcc: [], subject: null, text_body: null, html_body: null });
  });

  test("the domain part of an address is lowercased and white space trimmed; the local part keeps its case", async () => {
    const { agent } = await seedAccount(t);
    const d = await createDraft(agent.id, { to: ["Alice.Smith@Example.COM"], cc: ["  bob@EXAMPLE.org "], bcc: ["X+Tag@Sub.Example.Net"] });
    expect(d.to).toEqual(["Alice.Smith@example.com"]);
    expect(d.cc).toEqual(["bob@example.org"]);
    expect(d.bcc).toEqual(["X+Tag@sub.example.net"]);
    expect((await fetchDraft(d.id)).to).toEqual(["Alice.Smith@example.com"]);
  });

  test.each([
    ["to", ["good@example.com", "not an address"], "body.to.1"],
    ["to", ["plain"], "body.to.0"],
    ["cc", ["a@localhost"], "body.cc.0"],
    ["cc", ["ok@example.com", "ok2@example.com", "Name <a@example.com>"], "body.cc.2"],
    ["bcc", ['"quoted"@example.com'], "body.bcc.0"],
    ["bcc", ["a@example.com\r\nBcc: victim@example.com"], "body.bcc.0"],
    ["to", ["a\u0000@example.com"], "body.to.0"],
    ["to", ["a..b@example.com"], "body.to.0"],
    ["to", ["a@[127.0.0.1]"], "body.to.0"],
    ["to", [""], "body.to.0"],
    ["to", [`${"x".repeat(65)}@example.com`], "body.to.0"],
    ["to", [`a@${"x".repeat(260)}.com`], "body.to.0"],
    ["to", [42], "body.to.0"],
  ])("%s %p is refused naming %s", async (field, list, path) => {
    const { agent } = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/drafts`, { body: { [field]: list, subject: "kept out" } });
    expectError(res, 400, "validation_error");
    expect(fieldPaths(res)).toContain(path);
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}/drafts`)).body.total).toBe(0);
  });

  test("every bad address is named, across lists", async () => {
    const { agent } = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/drafts`, { body: { to: ["ok@example.com", "bad"], cc: ["worse@"], bcc: ["fine@example.com", "@nope.com"] } });
    expectError(res, 400, "validation_error");
    expect(fieldPaths(res)).toEqual(expect.arrayContaining(["body.to.1", "body.cc.0", "body.bcc.1"]));
    expect(fieldPaths(res)).not.toContain("body.to.0");
    expect(fieldPaths(res)).not.toContain("body.bcc.0");
  });

  test("at most 100 addresses per list", async () => {
    const { agent } = await seedAccount(t);
    const list = (n: number) => Array.from({ length: n }, (_, i) => `r${i}@example.com`);
    for (const field of ["to", "cc", "bcc"]) {
      const res = await t.api("POST", `/v1/mailboxes/${agent.id}/drafts`, { body: { [field]: list(101) } });
      expectError(res, 400, "validation_error");
      expect(fieldPaths(res).some((p) => p === `body.${field}` || p.startsWith(`body.${field}.`))).toBe(true);
    }
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}/drafts`)).body.total).toBe(0);
    const hundred = await createDraft(agent.id, { to: list(100), cc: list(100), bcc: list(100) });
    expect(hundred.to).toHaveLength(100);
    expect(hundred.bcc[99]).toBe("r99@example.com");
  });

  test.each([
    ["CR", "Hello\rBcc: victim@example.com"],
    ["LF", "Hello\nBcc: victim@example.com"],
    ["CRLF", "Hello\r\nX-Injected: yes"],
    ["NUL", "Hello\u0000there"],
  ])("a subject with %s is refused naming body.subject", async (_, subject) => {
    const { agent } = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/drafts`, { body: { subject } });
    expectError(res, 400, "validation_error");
    expect(fieldPaths(res)).toContain("body.subject");
  });

  test("a subject longer than 998 characters is refused; 998 is fine", async () => {
    const { agent } = await seedAccount(t);
    const long = await t.api("POST", `/v1/mailboxes/${agent.id}/drafts`, { body: { subject: "s".repeat(999) } });
    expectError(long, 400, "validation_error");
    expect(fieldPaths(long)).toContain("body.subject");
    expect((await createDraft(agent.id, { subject: "s".repeat(998) })).subject).toHaveLength(998);
  });

  test("bodies may contain line breaks and any text; a NUL character is refused, never a server error", async () => {
    const { agent } = await seedAccount(t);
    const d = await createDraft(agent.id, { textBody: "line 1\r\nline 2\n\ttabbed — ünïcödé ✉", htmlBody: "<b>x</b>\n" });
    expect(d.text_body).toBe("line 1\r\nline 2\n\ttabbed — ünïcödé ✉");
    for (const field of ["textBody", "htmlBody"]) {
      const path = `body.${field}`;
      const res = await t.api("POST", `/v1/mailboxes/${agent.id}/drafts`, { body: { [field]: "before\u0000after" } });
      expectError(res, 400, "validation_error");
      expect(fieldPaths(res)).toContain(path);
    }
  });

  test.each([
    [{ to: ["a@example.com"], from: "me@example.com" }, "body"],
    [{ text_body: "snake case is the response's spelling" }, "body"],
    [{ attachments: [] }, "body"],
    [{ to: "a@example.com" }, "body.to"],
    [{ to: null }, "body.to"],
    [{ subject: 5 }, "body.subject"],
    [{ textBody: ["x"] }, "body.textBody"],
    [{ htmlBody: { html: "x" } }, "body.htmlBody"],
  ])("%p is refused naming %s", async (body, path) => {
    const { agent } = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/drafts`, { body });
    expectError(res, 400, "validation_error");
    expect(fieldPaths(res).join(" ")).toContain(path);
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}/drafts`)).body.total).toBe(0);
  });

  test("a body that is not JSON is refused", async () => {
    const { agent } = await seedAccount(t);
    expectError(await t.api("POST", `/v1/mailboxes/${agent.id}/drafts`, { rawBody: "{not json" }), 400, "invalid_json");
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}/drafts`)).body.total).toBe(0);
  });

  test.each([["[]"], ['["a@example.com"]'], ['"draft"'], ["42"], ["true"]])("a JSON body that is not an object (%s) is refused, not taken for an empty draft", async (rawBody) => {
    const { agent } = await seedAccount(t);
    const res = await t.api("POST", `/v1/mailboxes/${agent.id}/drafts`, { rawBody });
    expectError(res, 400, "validation_error");
    expect(fieldPaths(res)).toContain("body");
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}/drafts`)).body.total).toBe(0);
  });

  test("an unknown mailbox is 404", async () => {
    expectError(await t.api("POST", `/v1/mailboxes/${GHOST_MAILBOX}/drafts`, { body: { subject: "x" } }), 404, "not_found");
  });
});

describe("listing drafts", () => {
  test("newest-changed first, with page, limit, total and total_pages", async () => {
    const { agent, agentKey } = await seedAccount(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await createDraft(agent.id, { subject: `draft ${i}` })).id);
      await sleep(3); // distinct timestamps; nothing is asserted about speed
    }
    const base = `/v1/mailboxes/${agent.id}/drafts`;
    const all = await t.api("GET", base, { token: agentKey.token });
    expect(all.status).toBe(200);
    expect(Object.keys(all.body).sort()).toEqual(["items", "limit", "page", "total", "total_pages"]);
    expect(all.body).toMatchObject({ page: 1, limit: 50, total: 5, total_pages: 1 });
    expect(all.body.items.map((d: { id: string }) => d.id)).toEqual([...ids].reverse());
    for (const item of all.body.items) expect(Object.keys(item).sort()).toEqual(FIELDS);

    // Changing the oldest draft moves it to the front.
    const put = await t.api("PUT", `/v1/drafts/${ids[0]}`, { body: { subject: "edited" } });
    expect(put.status).toBe(200);
    const after = await t.api("GET", base);
    expect(after.body.items.map((d: { id: string }) => d.id)).toEqual([ids[0], ids[4], ids[3], ids[2], ids[1]]);
    expect(after.body.items[0].subject).toBe("edited");

    const p1 = await t.api("GET", `${base}?limit=2`);
    expect(p1.body).toMatchObject({ page: 1, limit: 2, total: 5, total_pages: 3 });
    const p2 = await t.api("GET", `${base}?limit=2&page=2`);
    expect(p2.body).toMatchObject({ page: 2, limit: 2, total: 5, total_pages: 3 });
    const p3 = await t.api("GET", `${base}?page=3&limit=2`);
    expect(p3.body).toMatchObject({ page: 3, limit: 2, total: 5, total_pages: 3 });
    const pagedIds = [...p1.body.items, ...p2.body.items, ...p3.body.items].map((d: { id: string }) => d.id);
    expect(pagedIds).toEqual(after.body.items.map((d: { id: string }) => d.id));
    expect(p3.body.items).toHaveLength(1);

    const beyond = await t.api("GET", `${base}?page=4&limit=2`);
    expect(beyond.status).toBe(200);
    expect(beyond.body).toMatchObject({ items: [], page: 4, limit: 2, total: 5, total_pages: 3 });

    const max = await t.api("GET", `${base}?limit=100&page=1`);
    expect(max.body).toMatchObject({ page: 1, limit: 100, total: 5, total_pages: 1 });
  });

  test("an empty mailbox lists nothing; lists are per mailbox", async () => {
    const { primary, agent } = await seedAccount(t);
    await createDraft(primary.id, { subject: "primary's" });
    const res = await t.api("GET", `/v1/mailboxes/${agent.id}/drafts`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], page: 1, limit: 50, total: 0, total_pages: 0 });
    expect((await t.api("GET", `/v1/mailboxes/${primary.id}/drafts`)).body.total).toBe(1);
  });

  test.each(["page=0", "page=-1", "limit=0", "limit=101", "limit=-5", "page=abc", "limit=abc", "limit=1.5", "page=2.5", "page=", "limit=1e400"])(
    "%s is refused",
    async (q) => {
      const { agent } = await seedAccount(t);
      expectError(await t.api("GET", `/v1/mailboxes/${agent.id}/drafts?${q}`), 400, "validation_error");
    },
  );

  test.each(["page=0", "page=-1", "limit=0", "limit=101", "page=abc", "limit=1.5"])("the refusal of %s names the query parameter", async (q) => {
    const { agent } = await seedAccount(t);
    const res = await t.api("GET", `/v1/mailboxes/${agent.id}/drafts?${q}`);
    expectError(res, 400, "validation_error");
    const name = q.split("=")[0]!;
    expect(fieldPaths(res)).toEqual([`query.${name}`]);
    expect(res.body.error.message).toStartWith(`query.${name}: `);
  });

  test("an unknown mailbox is 404, a malformed mailbox id 400", async () => {
    expectError(await t.api("GET", `/v1/mailboxes/${GHOST_MAILBOX}/drafts`), 404, "not_found");
    expectError(await t.api("GET", "/v1/mailboxes/not-a-uuid/drafts"), 400, "validation_error");
  });
});

describe("updating drafts", () => {
  test("PUT replaces only the given fields; updated_at moves, created_at stays", async () => {
    const { agent, agentKey } = await seedAccount(t);
    const d = await createDraft(agent.id, {
      to: ["a@example.com"],
      cc: ["c@example.com"],
      bcc: ["b@example.com"],
      subject: "first",
      textBody: "text one",
      htmlBody: "<p>one</p>",
    });
    await sleep(5);
    const res = await t.api("PUT", `/v1/drafts/${d.id}`, { token: agentKey.token, body: { subject: "second", to: ["New@Example.COM", "z@example.com"] } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["draft"]);
    const u = res.body.draft;
    expect(Object.keys(u).sort()).toEqual(FIELDS);
    expect(u).toMatchObject({
      id: d.id,
      to: ["New@example.com", "z@example.com"],
      cc: ["c@example.com"],
      bcc: ["b@example.com"],
      subject: "second",
      text_body: "text one",
      html_body: "<p>one</p>",
      created_at: d.created_at,
    });
    expect(u.updated_at).toMatch(ISO);
    expect(Date.parse(u.updated_at)).toBeGreaterThan(Date.parse(d.updated_at));
    expect(Date.parse(u.updated_at)).toBeGreaterThanOrEqual(Date.parse(u.created_at));
    expect(await fetchDraft(d.id)).toEqual(u);

    await sleep(5);
    const second = await t.api("PUT", `/v1/drafts/${d.id}`, { body: { htmlBody: "<p>two</p>", cc: [] } });
    expect(second.status).toBe(200);
    expect(second.body.draft).toMatchObject({ to: ["New@example.com", "z@example.com"], cc: [], bcc: ["b@example.com"], subject: "second", text_body: "text one", html_body: "<p>two</p>" });
    expect(Date.parse(second.body.draft.updated_at)).toBeGreaterThan(Date.parse(u.updated_at));
  });

  test("null clears subject, textBody and htmlBody", async () => {
    const { agent } = await seedAccount(t);
    const d = await createDraft(agent.id, { to: ["a@example.com"], subject: "s", textBody: "t", htmlBody: "<p>h</p>" });
    const cleared = await t.api("PUT", `/v1/drafts/${d.id}`, { body: { subject: null, textBody: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.draft).toMatchObject({ to: ["a@example.com"], subject: null, text_body: null, html_body: "<p>h</p>" });
    const all = await t.api("PUT", `/v1/drafts/${d.id}`, { body: { htmlBody: null } });
    expect(all.body.draft).toMatchObject({ to: ["a@example.com"], subject: null, text_body: null, html_body: null });
    expect(await fetchDraft(d.id)).toEqual(all.body.draft);
  });

  test("an empty body changes no field", async () => {
    const { agent } = await seedAccount(t);
    const d = await createDraft(agent.id, { to: ["a@example.com"], subject: "keep", textBody: "keep" });
    const res = await t.api("PUT", `/v1/drafts/${d.id}`, { body: {} });
    expect(res.status).toBe(200);
    const { updated_at: _u, ...rest } = res.body.draft;
    const { updated_at: _d, ...before } = d;
    expect(rest).toEqual(before);
  });

  test("a refused update changes nothing", async () => {
    const { agent } = await seedAccount(t);
    const d = await createDraft(agent.id, { to: ["a@example.com"], subject: "keep" });
    for (const body of [
      { to: ["b@example.com", "broken"], subject: "never" },
      { subject: "line\r\nbreak" },
      { subject: "never", surprise: true },
      { to: null },
      { cc: Array.from({ length: 101 }, (_, i) => `c${i}@example.com`) },
    ]) {
      const res = await t.api("PUT", `/v1/drafts/${d.id}`, { body });
      expectError(res, 400, "validation_error");
    }
    const bad = await t.api("PUT", `/v1/drafts/${d.id}`, { body: { bcc: ["ok@example.com", "no way@example.com"] } });
    expect(fieldPaths(bad)).toContain("body.bcc.1");
    expect(await fetchDraft(d.id)).toEqual(d);
  });
});

describe("deleting drafts", () => {
  test("DELETE returns the deleted draft; then GET, PUT and DELETE are 404", async () => {
    const { agent, agentKey } = await seedAccount(t);
    const d = await createDraft(agent.id, { to: ["a@example.com"], subject: "bye" });
    const keep = await createDraft(agent.id, { subject: "stays" });
    const res = await t.api("DELETE", `/v1/drafts/${d.id}`, { token: agentKey.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ draft: d });

    for (const token of [undefined, agentKey.token]) {
      expectError(await t.api("GET", `/v1/drafts/${d.id}`, { token }), 404, "not_found");
      expectError(await t.api("PUT", `/v1/drafts/${d.id}`, { token, body: { subject: "back?" } }), 404, "not_found");
      expectError(await t.api("DELETE", `/v1/drafts/${d.id}`, { token }), 404, "not_found");
    }
    const list = await t.api("GET", `/v1/mailboxes/${agent.id}/drafts`);
    expect(list.body.total).toBe(1);
    expect(list.body.items.map((x: { id: string }) => x.id)).toEqual([keep.id]);
  });
});

describe("draft auth", () => {
  test("the owning mailbox's key and the admin token may read, change and delete", async () => {
    const { agent, agentKey } = await seedAccount(t);
    const byKey = await createDraft(agent.id, { subject: "by key" }, agentKey.token);
    const byAdmin = await createDraft(agent.id, { subject: "by admin" });
    for (const token of [undefined, agentKey.token]) {
      expect((await t.api("GET", `/v1/drafts/${byKey.id}`, { token })).status).toBe(200);
      expect((await t.api("GET", `/v1/drafts/${byAdmin.id}`, { token })).status).toBe(200);
      expect((await t.api("GET", `/v1/mailboxes/${agent.id}/drafts`, { token })).body.total).toBe(2);
      expect((await t.api("PUT", `/v1/drafts/${byAdmin.id}`, { token, body: { textBody: String(token) } })).status).toBe(200);
    }
    expect((await t.api("DELETE", `/v1/drafts/${byAdmin.id}`, { token: agentKey.token })).status).toBe(200);
    expect((await t.api("DELETE", `/v1/drafts/${byKey.id}`)).status).toBe(200);
  });

  test("another mailbox's key is 403 on the draft and on the mailbox routes, and changes nothing", async () => {
    const { primary, agent, primaryKey } = await seedAccount(t);
    const other = await seedAccount(t);
    const d = await createDraft(agent.id, { to: ["a@example.com"], subject: "private" });
    for (const token of [primaryKey.token, other.agentKey.token]) {
      expectError(await t.api("GET", `/v1/drafts/${d.id}`, { token }), 403, "forbidden");
      expectError(await t.api("PUT", `/v1/drafts/${d.id}`, { token, body: { subject: "hijacked" } }), 403, "forbidden");
      expectError(await t.api("DELETE", `/v1/drafts/${d.id}`, { token }), 403, "forbidden");
      expectError(await t.api("GET", `/v1/mailboxes/${agent.id}/drafts`, { token }), 403, "forbidden");
      expectError(await t.api("POST", `/v1/mailboxes/${agent.id}/drafts`, { token, body: { subject: "planted" } }), 403, "forbidden");
    }
    expect(await fetchDraft(d.id)).toEqual(d);
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}/drafts`)).body.total).toBe(1);
    expect((await t.api("GET", `/v1/mailboxes/${primary.id}/drafts`)).body.total).toBe(0);
  });

  test("no token, a malformed token and a wrong token are 401", async () => {
    const { agent } = await seedAccount(t);
    const d = await createDraft(agent.id, {});
    expectError(await t.api("GET", `/v1/drafts/${d.id}`, { token: null }), 401, "missing_authorization");
    expectError(await t.api("PUT", `/v1/drafts/${d.id}`, { token: "svc_nodot", body: {} }), 401, "invalid_authorization");
    expectError(await t.api("DELETE", `/v1/drafts/${d.id}`, { token: "not-the-admin-token" }), 401, "invalid_token");
    expectError(await t.api("POST", `/v1/mailboxes/${agent.id}/drafts`, { token: null, body: {} }), 401, "missing_authorization");
    expect((await t.api("GET", `/v1/mailboxes/${agent.id}/drafts`)).body.total).toBe(1);
  });

  test("an unknown draft id is 404 for the admin and for a key; a malformed one is 400", async () => {
    const { agentKey } = await seedAccount(t);
    for (const token of [undefined, agentKey.token]) {
      expectError(await t.api("GET", `/v1/drafts/${GHOST_DRAFT}`, { token }), 404, "not_found");
      expectError(await t.api("PUT", `/v1/drafts/${GHOST_DRAFT}`, { token, body: { subject: "x" } }), 404, "not_found");
      expectError(await t.api("DELETE", `/v1/drafts/${GHOST_DRAFT}`, { token }), 404, "not_found");
      for (const bad of ["not-a-uuid", "12345", "00000000-0000-4000-8000-00000000000g"]) {
        for (const method of ["GET", "PUT", "DELETE"]) {
          const res = await t.api(method, `/v1/drafts/${bad}`, { token, body: method === "PUT" ? { subject: "x" } : undefined });
          expectError(res, 400, "validation_error");
          expect(fieldPaths(res).join(" ")).toContain("params.draftId");
        }
      }
    }
  });

  test("an upper-case draft id names the same draft, and its owner's key is still checked", async () => {
    const { agent, agentKey, primaryKey } = await seedAccount(t);
    const d = await createDraft(agent.id, { subject: "case" });
    const upper = d.id.toUpperCase();
    const res = await t.api("GET", `/v1/drafts/${upper}`, { token: agentKey.token });
    expect(res.status).toBe(200);
    expect(res.body.draft.id).toBe(d.id);
    expectError(await t.api("GET", `/v1/drafts/${upper}`, { token: primaryKey.token }), 403, "forbidden");
    expectError(await t.api("DELETE", `/v1/drafts/${upper}`, { token: primaryKey.token }), 403, "forbidden");
  });
});

describe("concurrent changes", () => {
  test("concurrent PUTs of different fields on one draft all land", async () => {
    const { agent, agentKey } = await seedAccount(t);
    const d = await createDraft(agent.id, {});
    const changes: Record<string, unknown>[] = [
      { to: ["t1@example.com", "t2@example.com"] },
      { cc: ["c1@example.com"] },
      { bcc: ["b1@example.com"] },
      { subject: "concurrent subject" },
      { textBody: "concurrent text" },
      { htmlBody: "<p>concurrent html</p>" },
    ];
    const results = await Promise.all(
      changes.flatMap((body, i) => [
        t.api("PUT", `/v1/drafts/${d.id}`, { body, token: i % 2 === 0 ? agentKey.token : undefined }),
        // The same change twice, so that more writes than fields are in flight at once.
        t.api("PUT", `/v1/drafts/${d.id}`, { body }),
      ]),
    );
    for (const r of results) expect(r.status).toBe(200);
    const final = await fetchDraft(d.id);
    expect(final).toMatchObject({
      to: ["t1@example.com", "t2@example.com"],
      cc: ["c1@example.com"],
      bcc: ["b1@example.com"],
      subject: "concurrent subject",
      text_body: "concurrent text",
      html_body: "<p>concurrent html</p>",
    });
    // The last write's answer carries every field written before it: the writes ran one at a time.
    const latest = results.map((r) => r.body.draft).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0];
    expect(Date.parse(final.updated_at)).toBe(Date.parse(latest.updated_at));
  });

  test("concurrent creates in one mailbox all land, each with its own id", async () => {
    const { agent } = await seedAccount(t);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => t.api("POST", `/v1/mailboxes/${agent.id}/drafts`, { body: { subject: `n${i}` } })));
    for (const r of results) expect(r.status).toBe(201);
    expect(new Set(results.map((r) => r.body.draft.id)).size).toBe(20);
    const list = await t.api("GET", `/v1/mailboxes/${agent.id}/drafts?limit=100`);
    expect(list.body.total).toBe(20);
    expect(new Set(list.body.items.map((x: { subject: string }) => x.subject))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => `n${i}`)));
  });

  test("a PUT racing a DELETE either lands before it or is 404; it never brings the draft back", async () => {
    const { agent } = await seedAccount(t);
    const d = await createDraft(agent.id, { subject: "race" });
    const [put, del] = await Promise.all([t.api("PUT", `/v1/drafts/${d.id}`, { body: { subject: "raced" } }), t.api("DELETE", `/v1/drafts/${d.id}`)]);
    expect(del.status).toBe(200);
    expect([200, 404]).toContain(put.status);
    expectError(await t.api("GET", `/v1/drafts/${d.id}`), 404, "not_found");
  });
});
