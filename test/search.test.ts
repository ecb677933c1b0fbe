import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, seedAccount, startTestService, type TestService } from "./harness.ts";
import { postInbound, rfc822, waitForMessage } from "./mail-support.ts";

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

type Seed = Awaited<ReturnType<typeof seedAccount>>;

let n = 0;
async function receive(s: Seed, subject: string, body: string, opts: { from?: string; attachment?: string; headers?: Record<string, string> } = {}): Promise<string> {
  const headers: Record<string, string> = {
    From: opts.from ?? "Sender <sender@example.com>",
    To: s.agent.email_address,
    Subject: subject,
    Date: new Date().toUTCString(),
    "Message-ID": `<search${++n}.${crypto.randomUUID()}@example.com>`,
    ...opts.headers,
  };
  let raw: string;
  if (opts.attachment) {
    const b = "b0undary";
    raw = rfc822(
      { ...headers, "Content-Type": `multipart/mixed; boundary="${b}"` },
      `--${b}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n--${b}\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename="${opts.attachment}"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n--${b}--\r\n`,
    );
  } else raw = rfc822({ ...headers, "Content-Type": "text/plain; charset=utf-8" }, `${body}\r\n`);
  const res = await postInbound(t, raw, [s.agent.email_address]);
  if (res.status !== 202) throw new Error(`inbound failed: ${res.status} ${res.text}`);
  const id = res.body.message_ids[0] as string;
  await waitForMessage(t, id);
  return id;
}

const search = (s: Seed, query: string, limit?: number, token?: string) => t.api("POST", `/v1/mailboxes/${s.agent.id}/search`, { body: limit ? { query, limit } : { query }, token });
const subjects = (res: { body: any }) => res.body.items.map((i: any) => i.subject);

describe("search", () => {
  let s: Seed;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    s = await seedAccount(t);
    ids.invoice = await receive(s, "Invoice 4471 overdue", "Please pay the outstanding balance of $420 by Friday.", { from: "Billing <billing@acme.example>" });
    ids.body = await receive(s, "Quick note", "The invoice for the kayak rental is attached below, thanks!", { from: "Kim <kim@lake.example>" });
    ids.meeting = await receive(s, "Quarterly planning meeting", "Let's meet on Tuesday to discuss the quarterly roadmap.", { from: "Pat <pat@corp.example>" });
    ids.attached = await receive(s, "Documents", "See the file.", { attachment: "contract-renewal.pdf", from: "legal@corp.example" });
    ids.html = await receive(s, "Escaping", 'The word zebra & friends say "hi" in this text.');
    ids.bulk = await receive(s, "Weekly digest", "News about zebra crossings and kayak trips.", {
      from: "news@list.example",
      headers: { "List-Unsubscribe": "<mailto:unsubscribe@list.example>", "List-Id": "<news.list.example>" },
    });
  });

  test("free words match subject, body, addresses and attachment names, with rank and highlight", async () => {
    const res = await search(s, "invoice");
    expect(res.status).toBe(200);
    // The subject match outranks the body match.
    expect(subjects(res)).toEqual(["Invoice 4471 overdue", "Quick note"]);
    const [first, second] = res.body.items;
    expect(first.rank).toBeGreaterThan(second.rank);
    expect(first.highlight.subject).toBe("<mark>Invoice</mark> 4471 overdue");
    expect(second.highlight.text).toContain("<mark>invoice</mark>");
    for (const key of ["id", "thread_id", "from_address", "snippet", "triage_label", "labels", "created_at"]) expect(first).toHaveProperty(key);
    expect(res.body).toMatchObject({ limit: 20, has_more: false, query: { text: "invoice", terms: ["invoice"], filters: [] } });

    expect(subjects(await search(s, "acme"))).toEqual(["Invoice 4471 overdue"]);
    expect(subjects(await search(s, "kim@lake.example"))).toEqual(["Quick note"]);
    expect(subjects(await search(s, "contract"))).toEqual(["Documents"]);
  });

  test("stems, phrases, OR and negation", async () => {
    expect(subjects(await search(s, "invoices")).sort()).toEqual(["Invoice 4471 overdue", "Quick note"]);
    expect(subjects(await search(s, '"quarterly roadmap"'))).toEqual(["Quarterly planning meeting"]);
    expect(subjects(await search(s, '"roadmap quarterly"'))).toEqual([]);
    expect(subjects(await search(s, "kayak -zebra"))).toEqual(["Quick note"]);
    expect(subjects(await search(s, "overdue OR roadmap")).sort()).toEqual(["Invoice 4471 overdue", "Quarterly planning meeting"]);
    expect(subjects(await search(s, "invoice zebra"))).toEqual([]);
  });

  test("operators, alone and negated", async () => {
    expect(subjects(await search(s, "from:acme"))).toEqual(["Invoice 4471 overdue"]);
    expect(subjects(await search(s, `to:${s.agent.email_address}`)).length).toBe(6);
    expect(subjects(await search(s, "subject:invoice"))).toEqual(["Invoice 4471 overdue"]);
    expect(subjects(await search(s, 'subject:"planning meeting"'))).toEqual(["Quarterly planning meeting"]);
    expect(subjects(await search(s, "has:attachment"))).toEqual(["Documents"]);
    expect(subjects(await search(s, "kayak -has:attachment")).sort()).toEqual(["Quick note", "Weekly digest"]);
    expect(subjects(await search(s, "triage:newsletter"))).toEqual(["Weekly digest"]);
    expect(subjects(await search(s, "zebra -triage:newsletter"))).toEqual(["Escaping"]);
    expect(subjects(await search(s, "is:inbound risk:low")).length).toBeGreaterThan(0);
    expect(subjects(await search(s, "is:outbound"))).toEqual([]);
    expect(subjects(await search(s, "before:2000-01-01"))).toEqual([]);
    expect(subjects(await search(s, "after:2000-01-01 invoice")).length).toBe(2);
    expect(subjects(await search(s, "is:unreviewed subject:documents"))).toEqual(["Documents"]);
  });

  test("label: finds messages by label name, on the message or its thread", async () => {
    const label = await t.api("POST", `/v1/mailboxes/${s.agent.id}/labels`, { body: { name: "Finance" } });
    expect(label.status).toBe(201);
    const labelId = label.body.label?.id ?? label.body.id;
    expect((await t.api("POST", `/v1/messages/${ids.invoice}/labels/${labelId}`)).status).toBe(200);
    expect(subjects(await search(s, "label:finance"))).toEqual(["Invoice 4471 overdue"]);
    expect(subjects(await search(s, "invoice -label:Finance"))).toEqual(["Quick note"]);
    const meeting = await t.api("GET", `/v1/messages/${ids.meeting}`);
    expect((await t.api("POST", `/v1/threads/${meeting.body.message.thread_id}/labels/${labelId}`)).status).toBe(200);
    expect(subjects(await search(s, "label:FINANCE")).sort()).toEqual(["Invoice 4471 overdue", "Quarterly planning meeting"]);
  });

  test("highlights are HTML-escaped around the <mark>s", async () => {
    const res = await search(s, "zebra -news");
    expect(subjects(res)).toEqual(["Escaping"]);
    const text: string = res.body.items[0].highlight.text;
    expect(text).toContain("<mark>zebra</mark>");
    expect(text).toContain("&amp; friends say &quot;hi&quot;");
  });

  test("limit and has_more", async () => {
    const res = await search(s, "to:" + s.agent.email_address, 2);
    expect(res.body.items.length).toBe(2);
    expect(res.body).toMatchObject({ limit: 2, has_more: true });
    // Operators only: newest first.
    expect(res.body.items[0].subject).toBe("Weekly digest");
  });

  test("syntax errors are 400 with the position", async () => {
    const cases: [string, number][] = [
      ['invoice "unclosed', 8],
      ["form:bob", 0],
      ["kayak from:", 6],
      ["risk:extreme", 5],
      ["before:2026-02-30", 7],
      ["a (b)", 2],
    ];
    for (const [query, position] of cases) {
      const res = await search(s, query);
      expectError(res, 400, "validation_error");
      expect(res.body.error.details.position).toBe(position);
      expect(res.body.error.message).toContain(`position ${position}`);
    }
    const stop = await search(s, "the and");
    expectError(stop, 400, "validation_error");
    expectError(await search(s, ""), 400, "validation_error");
    expectError(await t.api("POST", `/v1/mailboxes/${s.agent.id}/search`, { body: { query: "x", limit: 101 } }), 400, "validation_error");
    expectError(await t.api("POST", `/v1/mailboxes/${s.agent.id}/search`, { body: { query: "x", extra: 1 } }), 400, "validation_error");
  });

  test("a mailbox key searches its own mailbox only", async () => {
    expect((await search(s, "invoice", undefined, s.agentKey.token)).status).toBe(200);
    expectError(await search(s, "invoice", undefined, s.primaryKey.token), 403, "forbidden");
    expectError(await t.api("POST", `/v1/mailboxes/00000000-0000-4000-8000-000000000000/search`, { body: { query: "x" } }), 404, "not_found");
  });

  test("other mailboxes' mail is never found", async () => {
    const other = await seedAccount(t);
    await receive(other, "Invoice elsewhere", "another invoice");
    expect(subjects(await search(s, "elsewhere"))).toEqual([]);
    expect(subjects(await search(other, "invoice"))).toEqual(["Invoice elsewhere"]);
  });
});

describe("list query through the index", () => {
  test("message and thread lists match subject words by prefix", async () => {
    const s = await seedAccount(t);
    await receive(s, "Invoices for March", "x");
    await receive(s, "Re: shipping update", "the invoice is in the body only");
    const list = async (path: string, q: string) => (await t.api("GET", `/v1/mailboxes/${s.agent.id}/${path}?query=${encodeURIComponent(q)}`)).body.items.map((i: any) => i.subject);
    for (const path of ["messages", "threads"]) {
      expect(await list(path, "invoice")).toEqual(["Invoices for March"]);
      expect(await list(path, "INVOI march")).toEqual(["Invoices for March"]);
      expect(await list(path, "ship")).toEqual(["Re: shipping update"]);
      expect(await list(path, "body")).toEqual([]);
    }
  });
});

describe("ranking windows", () => {
  test("beyond rankAll matches, only the newest rankNewest are ranked", async () => {
    const { searchMessages } = await import("../src/search/search.ts");
    const s = await seedAccount(t);
    // Oldest first: the old one is the best match (the word in its subject), the newer ones mention it once.
    await receive(s, "Walrus walrus walrus", "walrus facts");
    for (const i of [1, 2, 3]) await receive(s, `Note ${i}`, `a walrus was seen, report ${i}`);
    const db = t.service.internals.database.db;
    const all = await searchMessages(db, s.agent.id, "walrus", 10);
    expect(all.hits[0]!.row.subject).toBe("Walrus walrus walrus");
    expect(all.hits.length).toBe(4);
    const windowed = await searchMessages(db, s.agent.id, "walrus", 10, { rankAll: 2, rankNewest: 2 });
    expect(windowed.hits.map((h) => h.row.subject).sort()).toEqual(["Note 2", "Note 3"]);
    // Within the window, operators still apply.
    const filtered = await searchMessages(db, s.agent.id, "walrus -subject:note", 10, { rankAll: 0, rankNewest: 2 });
    expect(filtered.hits.map((h) => h.row.subject)).toEqual(["Walrus walrus walrus"]);
  });
});
