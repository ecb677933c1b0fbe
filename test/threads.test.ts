import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, fieldPaths, ISO, seedAccount, sleep, startTestService, UUID, type TestService } from "./harness.ts";

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

type Seed = Awaited<ReturnType<typeof seedAccount>>;

const GHOST = "00000000-0000-4000-8000-000000000000";
const THREAD_FIELDS = ["created_at", "id", "labels", "last_message_at", "message_count", "status", "subject"];

/** A plain RFC 5322 message with CRLF line endings. */
function mail(to: string, subject: string, headers: Record<string, string> = {}): string {
  const head: Record<string, string> = {
    From: "Sender <sender@example.com>",
    To: to,
    Subject: subject,
    Date: new Date().toUTCString(),
    "Message-ID": `<${crypto.randomUUID()}@example.com>`,
    "Content-Type": "text/plain; charset=utf-8",
    ...headers,
  };
  return `${Object.entries(head)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\r\n")}\r\n\r\nHello.\r\n`;
}

async function deliver(raw: string, to: string): Promise<string> {
  const res = await t.api("POST", `/v1/inbound/email?to=${encodeURIComponent(to)}`, { rawBody: raw, headers: { "content-type": "message/rfc822" } });
  if (res.status !== 202) throw new Error(`inbound failed: ${res.status} ${res.text}`);
  return res.body.message_ids[0];
}

/** Polls GET /v1/messages/:id until it is processed (processing is asynchronous). */
async function waitProcessed(id: string, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.api("GET", `/v1/messages/${id}`);
    if (res.status === 200 && res.body.message.status === "processed") return res.body.message;
    if (Date.now() > deadline) throw new Error(`message ${id} not processed: ${res.status} ${res.text.slice(0, 300)}`);
    await sleep(20);
  }
}

/** A new conversation in the agent mailbox: its first message, processed. */
const start = async (s: Seed, subject: string) => waitProcessed(await deliver(mail(s.agent.email_address, subject), s.agent.email_address));
/** A reply in the conversation of `to` (In-Reply-To / References), processed. */
const replyTo = async (s: Seed, to: any, subject = `Re: ${to.subject}`) =>
  waitProcessed(await deliver(mail(s.agent.email_address, subject, { "In-Reply-To": to.message_id_header, References: to.message_id_header }), s.agent.email_address));

async function createLabel(mailboxId: string, name: string): Promise<string> {
  const res = await t.api("POST", `/v1/mailboxes/${mailboxId}/labels`, { body: { name } });
  if (res.status !== 201) throw new Error(`create label failed: ${res.status} ${res.text}`);
  return res.body.label.id;
}

const list = (s: Seed, query = "", token?: string) => t.api("GET", `/v1/mailboxes/${s.agent.id}/threads${query ? `?${query}` : ""}`, { token });
const subjects = (res: { body: any }) => res.body.items.map((x: any) => x.subject);

describe("GET /v1/threads/:threadId", () => {
  test("a thread has id, subject, status, last_message_at, created_at, and our message_count and labels", async () => {
    const s = await seedAccount(t);
    const m = await start(s, "A conversation");
    const res = await t.api("GET", `/v1/threads/${m.thread_id}`, { token: s.agentKey.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["thread"]);
    const th = res.body.thread;
    expect(Object.keys(th).sort()).toEqual(THREAD_FIELDS);
    expect(th).toMatchObject({ id: m.thread_id, subject: "A conversation", status: "open", message_count: 1, labels: [] });
    expect(th.id).toMatch(UUID);
    expect(th.created_at).toMatch(ISO);
    expect(th.last_message_at).toMatch(ISO);
  });

  test("a reply joins the thread: message_count and last_message_at follow", async () => {
    const s = await seedAccount(t);
    const first = await start(s, "Joined up");
    const before = (await t.api("GET", `/v1/threads/${first.thread_id}`)).body.thread;
    await sleep(5);
    const second = await replyTo(s, first);
    expect(second.thread_id).toBe(first.thread_id);
    const after = (await t.api("GET", `/v1/threads/${first.thread_id}`)).body.thread;
    expect(after.message_count).toBe(2);
    expect(after.subject).toBe("Joined up");
    expect(after.created_at).toBe(before.created_at);
    expect(Date.parse(after.last_message_at)).toBeGreaterThanOrEqual(Date.parse(before.last_message_at));
    expect(after.last_message_at).toBe(second.created_at);
  });

  test("404 unknown, 400 malformed, 403 for another mailbox's key", async () => {
    const s = await seedAccount(t);
    const m = await start(s, "Guarded thread");
    expectError(await t.api("GET", `/v1/threads/${GHOST}`), 404, "not_found");
    const bad = await t.api("GET", "/v1/threads/nope");
    expectError(bad, 400, "validation_error");
    expect(fieldPaths(bad)).toEqual(["params.threadId"]);
    expectError(await t.api("GET", `/v1/threads/${m.thread_id}`, { token: s.primaryKey.token }), 403, "forbidden");
  });
});

describe("GET /v1/threads/:threadId/messages", () => {
  test("the thread's messages, oldest first, paginated, as message list items", async () => {
    const s = await seedAccount(t);
    const first = await start(s, "Long thread");
    let last = first;
    for (let i = 2; i <= 4; i++) last = await replyTo(s, last, `Re: Long thread (${i})`);
    await start(s, "Another thread");
    const res = await t.api("GET", `/v1/threads/${first.thread_id}/messages`, { token: s.agentKey.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, limit: 50, total: 4, total_pages: 1 });
    expect(subjects(res)).toEqual(["Long thread", "Re: Long thread (2)", "Re: Long thread (3)", "Re: Long thread (4)"]);
    for (const item of res.body.items) {
      expect(item.thread_id).toBe(first.thread_id);
      expect(item.text_body).toBeUndefined(); // list items, not full messages
    }
    const p2 = await t.api("GET", `/v1/threads/${first.thread_id}/messages?limit=3&page=2`);
    expect(p2.body).toMatchObject({ page: 2, limit: 3, total: 4, total_pages: 2 });
    expect(subjects(p2)).toEqual(["Re: Long thread (4)"]);
  });

  test("404 unknown thread, 400 bad page values, 403 another mailbox's key", async () => {
    const s = await seedAccount(t);
    const m = await start(s, "Paged");
    expectError(await t.api("GET", `/v1/threads/${GHOST}/messages`), 404, "not_found");
    for (const [q, path] of [
      ["limit=0", "query.limit"],
      ["limit=101", "query.limit"],
      ["page=0", "query.page"],
      ["page=x", "query.page"],
    ]) {
      const res = await t.api("GET", `/v1/threads/${m.thread_id}/messages?${q}`);
      expectError(res, 400, "validation_error");
      expect(fieldPaths(res)).toEqual([path!]);
    }
    expectError(await t.api("GET", `/v1/threads/${m.thread_id}/messages`, { token: s.primaryKey.token }), 403, "forbidden");
  });
});

describe("GET /v1/mailboxes/:mailboxId/threads", () => {
  test("most recent message first, with pagination totals", async () => {
    const s = await seedAccount(t);
    const a = await start(s, "Thread A");
    await start(s, "Thread B");
    await start(s, "Thread C");
    // A reply moves A to the top.
    await sleep(5);
    await replyTo(s, a);
    const res = await list(s, "", s.agentKey.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, limit: 50, total: 3, total_pages: 1 });
    expect(subjects(res)).toEqual(["Thread A", "Thread C", "Thread B"]);
    for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual(THREAD_FIELDS);
    expect(res.body.items.map((x: any) => x.message_count)).toEqual([2, 1, 1]);

    const p2 = await list(s, "limit=2&page=2");
    expect(p2.body).toMatchObject({ page: 2, limit: 2, total: 3, total_pages: 2 });
    expect(subjects(p2)).toEqual(["Thread B"]);
    expect((await list(s, "limit=2&page=3")).body).toMatchObject({ items: [], total: 3 });
  });

  test("query matches the thread subject's words by prefix; text without letters or digits as a substring", async () => {
    const s = await seedAccount(t);
    for (const subject of ["Invoice 42", "invoice_overdue", "invoiceXoverdue", "50% off"]) await start(s, subject);
    const q = async (query: string) => subjects(await list(s, `query=${encodeURIComponent(query)}`)).sort();
    expect(await q("INVOICE")).toEqual(["Invoice 42", "invoiceXoverdue", "invoice_overdue"].sort());
    expect(await q("_")).toEqual(["invoice_overdue"]);
    expect(await q("%")).toEqual(["50% off"]);
    expect(await q("missing")).toEqual([]);
  });

  test("status filters open and archived threads", async () => {
    const s = await seedAccount(t);
    const a = await start(s, "Will archive");
    await start(s, "Stays open");
    expect((await t.api("POST", `/v1/threads/${a.thread_id}/archive`)).status).toBe(200);
    expect(subjects(await list(s, "status=archived"))).toEqual(["Will archive"]);
    expect(subjects(await list(s, "status=open"))).toEqual(["Stays open"]);
    expect((await list(s)).body.total).toBe(2);
  });

  test("label filters threads carrying a label; unknown or foreign labels list nothing", async () => {
    const s = await seedAccount(t);
    const a = await start(s, "Labelled thread");
    await start(s, "Plain thread");
    const label = await createLabel(s.agent.id, "Project");
    const foreign = await createLabel(s.primary.id, "Project");
    expect((await t.api("POST", `/v1/threads/${a.thread_id}/labels/${label}`)).status).toBe(200);
    const res = await list(s, `label=${label}`);
    expect(subjects(res)).toEqual(["Labelled thread"]);
    expect(res.body.items[0].labels).toEqual([label]);
    expect((await list(s, `label=${foreign}`)).body.total).toBe(0);
    expect((await list(s, `label=${GHOST}`)).body.total).toBe(0);
    // A thread label is not a message label.
    expect((await t.api("GET", `/v1/mailboxes/${s.agent.id}/messages?label=${label}`)).body.total).toBe(0);
  });

  test.each([
    ["status=closed", "query.status"],
    ["status=OPEN", "query.status"],
    ["label=x", "query.label"],
    ["page=0", "query.page"],
    ["limit=101", "query.limit"],
    ["limit=abc", "query.limit"],
    [`query=${"q".repeat(501)}`, "query.query"],
  ])("%s → 400 naming %s", async (q, path) => {
    const s = await seedAccount(t);
    const res = await list(s, q);
    expectError(res, 400, "validation_error");
    expect(fieldPaths(res)).toEqual([path]);
  });

  test("404 for an unknown mailbox, 403 for another mailbox's key, an empty list for a new mailbox", async () => {
    const s = await seedAccount(t);
    expectError(await t.api("GET", `/v1/mailboxes/${GHOST}/threads`), 404, "not_found");
    expectError(await list(s, "", s.primaryKey.token), 403, "forbidden");
    expect((await list(s, "", s.agentKey.token)).body).toEqual({ items: [], page: 1, limit: 50, total: 0, total_pages: 0 });
  });
});

describe("archive and reopen", () => {
  test("archive and reopen answer {thread_id, status} and are idempotent; messages keep their status", async () => {
    const s = await seedAccount(t);
    const m = await start(s, "Lifecycle");
    const id = m.thread_id;
    for (let i = 0; i < 2; i++) {
      const res = await t.api("POST", `/v1/threads/${id}/archive`, { token: s.agentKey.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ thread_id: id, status: "archived" });
      expect((await t.api("GET", `/v1/threads/${id}`)).body.thread.status).toBe("archived");
    }
    expect((await t.api("GET", `/v1/messages/${m.id}`)).body.message.status).toBe("processed");
    for (let i = 0; i < 2; i++) {
      const res = await t.api("POST", `/v1/threads/${id}/reopen`, { token: s.agentKey.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ thread_id: id, status: "open" });
      expect((await t.api("GET", `/v1/threads/${id}`)).body.thread.status).toBe("open");
    }
  });

  test("404 unknown, 403 another mailbox's key, 400 malformed", async () => {
    const s = await seedAccount(t);
    const m = await start(s, "Guarded lifecycle");
    for (const action of ["archive", "reopen"]) {
      expectError(await t.api("POST", `/v1/threads/${GHOST}/${action}`), 404, "not_found");
      expectError(await t.api("POST", `/v1/threads/${m.thread_id}/${action}`, { token: s.primaryKey.token }), 403, "forbidden");
      const bad = await t.api("POST", `/v1/threads/bad/${action}`);
      expectError(bad, 400, "validation_error");
      expect(fieldPaths(bad)).toEqual(["params.threadId"]);
    }
    expect((await t.api("GET", `/v1/threads/${m.thread_id}`)).body.thread.status).toBe("open");
  });
});

describe("labels on threads", () => {
  test("apply, apply again, remove, remove again: each 200 with the labels now applied", async () => {
    const s = await seedAccount(t);
    const m = await start(s, "Label the thread");
    const id = m.thread_id;
    const b = await createLabel(s.agent.id, "b-label");
    const a = await createLabel(s.agent.id, "A-label");
    const path = (l: string) => `/v1/threads/${id}/labels/${l}`;
    expect((await t.api("POST", path(b), { token: s.agentKey.token })).body).toEqual({ thread_id: id, labels: [b] });
    expect((await t.api("POST", path(b))).body).toEqual({ thread_id: id, labels: [b] });
    expect((await t.api("POST", path(a))).body).toEqual({ thread_id: id, labels: [a, b] });
    expect((await t.api("GET", `/v1/threads/${id}`)).body.thread.labels).toEqual([a, b]);
    // Thread labels are not message labels.
    expect((await t.api("GET", `/v1/messages/${m.id}`)).body.message.labels).toEqual([]);
    const removed = await t.api("DELETE", path(b), { token: s.agentKey.token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ thread_id: id, labels: [a] });
    expect((await t.api("DELETE", path(b))).body).toEqual({ thread_id: id, labels: [a] });
    expect((await t.api("GET", `/v1/threads/${id}`)).body.thread.labels).toEqual([a]);
  });

  test("a label of another mailbox, an unknown label or thread is 404; another mailbox's key 403; malformed 400", async () => {
    const s = await seedAccount(t);
    const m = await start(s, "Thread label guard");
    const own = await createLabel(s.agent.id, "Own");
    const foreign = await createLabel(s.primary.id, "Foreign");
    for (const method of ["POST", "DELETE"]) {
      const res = await t.api(method, `/v1/threads/${m.thread_id}/labels/${foreign}`);
      expectError(res, 404, "not_found");
      expect(res.body.error.message).toContain("label");
      expectError(await t.api(method, `/v1/threads/${m.thread_id}/labels/${GHOST}`), 404, "not_found");
      expectError(await t.api(method, `/v1/threads/${GHOST}/labels/${own}`), 404, "not_found");
      expectError(await t.api(method, `/v1/threads/${m.thread_id}/labels/${own}`, { token: s.primaryKey.token }), 403, "forbidden");
      const bad = await t.api(method, `/v1/threads/${m.thread_id}/labels/bad`);
      expectError(bad, 400, "validation_error");
      expect(fieldPaths(bad)).toEqual(["params.labelId"]);
    }
    expect((await t.api("GET", `/v1/threads/${m.thread_id}`)).body.thread.labels).toEqual([]);
  });
});
