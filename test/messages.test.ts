import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, fieldPaths, freshDatabase, ISO, seedAccount, sleep, startTestService, usingPostgres, UUID, type TestService } from "./harness.ts";
import { startRelaySink } from "./mail-support.ts";

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

type Seed = Awaited<ReturnType<typeof seedAccount>>;

const GHOST = "00000000-0000-4000-8000-000000000000";
const LIST_FIELDS = ["created_at", "direction", "from_address", "id", "labels", "risk_level", "snippet", "status", "subject", "thread_id", "to_address", "transport", "triage_label"];
const FULL_FIELDS = [
  ...LIST_FIELDS,
  "archived_at",
  "attachments",
  "authentication",
  "extracted_text",
  "headers",
  "html_body",
  "mailbox_id",
  "message_id_header",
  // What extracted_text left out (issue 18).
  "quoted_text",
  "reviewed_at",
  "suspicious_signals",
  "text_body",
].sort();

let counter = 0;
/** A plain RFC 5322 message with CRLF line endings. */
function mail(to: string, subject: string, opts: { from?: string; body?: string; headers?: Record<string, string> } = {}): string {
  const head: Record<string, string> = {
    From: opts.from ?? "Sender <sender@example.com>",
    To: to,
    Subject: subject,
    Date: new Date().toUTCString(),
    "Message-ID": `<m${++counter}.${crypto.randomUUID()}@example.com>`,
    "MIME-Version": "1.0",
    "Content-Type": "text/plain; charset=utf-8",
    ...opts.headers,
  };
  return `${Object.entries(head)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\r\n")}\r\n\r\n${opts.body ?? "Hello there.\r\n"}`;
}

/** POST /v1/inbound/email with the raw bytes as they are; answers the new message ids. */
async function deliver(raw: string | Uint8Array, to: string): Promise<string[]> {
  const res = await fetch(`${t.url}/v1/inbound/email?to=${encodeURIComponent(to)}`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.admin}`, "content-type": "message/rfc822" },
    body: typeof raw === "string" ? raw : new Uint8Array(raw),
  });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`inbound failed: ${res.status} ${text}`);
  return JSON.parse(text).message_ids;
}

/** Polls GET /v1/messages/:id until `ready` holds (processing is asynchronous). */
async function waitFor(id: string, ready: (m: any) => boolean = (m) => m.status === "processed", timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.api("GET", `/v1/messages/${id}`);
    if (res.status === 200 && ready(res.body.message)) return res.body.message;
    if (Date.now() > deadline) throw new Error(`message ${id} not ready: ${res.status} ${res.text.slice(0, 300)}`);
    await sleep(20);
  }
}

/** Delivers one message to the seed's agent mailbox and waits until it is processed. */
async function receive(s: Seed, subject: string, opts: Parameters<typeof mail>[2] = {}): Promise<any> {
  const [id] = await deliver(mail(s.agent.email_address, subject, opts), s.agent.email_address);
  return waitFor(id!);
}

async function createLabel(mailboxId: string, name: string): Promise<string> {
  const res = await t.api("POST", `/v1/mailboxes/${mailboxId}/labels`, { body: { name } });
  if (res.status !== 201) throw new Error(`create label failed: ${res.status} ${res.text}`);
  return res.body.label.id;
}

async function getBytes(path: string, token = t.admin) {
  const res = await fetch(t.url + path, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const list = (s: Seed, query = "", token?: string) => t.api("GET", `/v1/mailboxes/${s.agent.id}/messages${query ? `?${query}` : ""}`, { token });
const subjects = (res: { body: any }) => res.body.items.map((m: any) => m.subject);

const B64_LINE = 76;
const base64 = (bytes: Uint8Array) => (Buffer.from(bytes).toString("base64").match(new RegExp(`.{1,${B64_LINE}}`, "g")) ?? []).join("\r\n");

/** A multipart/mixed message with a text part and the given attachments. */
function withAttachments(to: string, subject: string, files: { filename: string; type: string; bytes: Uint8Array }[]): string {
  const boundary = `b-${crypto.randomUUID()}`;
  const parts = [
    `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nSee attached.\r\n`,
    ...files.map(
      (f) =>
        `--${boundary}\r\nContent-Type: ${f.type}\r\nContent-Disposition: attachment; filename*=UTF-8''${encodeURIComponent(f.filename)}\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64(f.bytes)}\r\n`,
    ),
  ];
  return mail(to, subject, { headers: { "Content-Type": `multipart/mixed; boundary="${boundary}"` }, body: `${parts.join("")}--${boundary}--\r\n` });
}

describe("GET /v1/messages/:messageId", () => {
  test("a processed inbound message has every field of the spec, and ours", async () => {
    const s = await seedAccount(t);
    const m = await receive(s, "Full fields", { from: "Alice Example <alice@example.com>", body: "The body text.\r\n" });
    const res = await t.api("GET", `/v1/messages/${m.id}`, { token: s.agentKey.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["message"]);
    const msg = res.body.message;
    expect(Object.keys(msg).sort()).toEqual(FULL_FIELDS);
    expect(msg).toMatchObject({
      mailbox_id: s.agent.id,
      transport: "smtp",
      direction: "inbound",
      status: "processed",
      from_address: "alice@example.com",
      subject: "Full fields",
      attachments: [],
      labels: [],
      archived_at: null,
      reviewed_at: null,
    });
    expect(msg.to_address).toContain(s.agent.email_address);
    expect(msg.id).toMatch(UUID);
    expect(msg.thread_id).toMatch(UUID);
    expect(msg.created_at).toMatch(ISO);
    expect(msg.text_body).toContain("The body text.");
    expect(msg.message_id_header).toMatch(/^<.+@example\.com>$/);
    expect(msg.headers).toContainEqual({ key: "Subject", value: "Full fields" });
    for (const h of msg.headers) expect(Object.keys(h).sort()).toEqual(["key", "value"]);
    expect(Array.isArray(msg.suspicious_signals)).toBe(true);
    expect(["low", "medium", "high"]).toContain(msg.risk_level);
    expect(typeof msg.triage_label).toBe("string");
  });

  test("attachments are listed in the order of the message, with id, filename, mime_type and size", async () => {
    const s = await seedAccount(t);
    const files = [
      { filename: "notes.txt", type: "text/plain", bytes: new TextEncoder().encode("first file\n") },
      { filename: "pixel.png", type: "image/png", bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]) },
      { filename: "résumé.pdf", type: "application/pdf", bytes: new TextEncoder().encode("%PDF-1.4 fake") },
    ];
    const [id] = await deliver(withAttachments(s.agent.email_address, "With files", files), s.agent.email_address);
    const m = await waitFor(id!);
    expect(m.attachments.map((a: any) => ({ filename: a.filename, mime_type: a.mime_type, size: a.size }))).toEqual(
      files.map((f) => ({ filename: f.filename, mime_type: f.type, size: f.bytes.byteLength })),
    );
    for (const a of m.attachments) {
      expect(Object.keys(a).sort()).toEqual(["filename", "id", "mime_type", "size"]);
      expect(a.id).toMatch(UUID);
    }
  });

  test("404 for an unknown message, 400 naming params.messageId for a malformed id", async () => {
    expectError(await t.api("GET", `/v1/messages/${GHOST}`), 404, "not_found");
    const bad = await t.api("GET", "/v1/messages/not-a-uuid");
    expectError(bad, 400, "validation_error");
    expect(fieldPaths(bad)).toEqual(["params.messageId"]);
  });

  test("another mailbox's key gets 403; the mailbox's own key and an upper-case id work", async () => {
    const s = await seedAccount(t);
    const m = await receive(s, "Scoped");
    expectError(await t.api("GET", `/v1/messages/${m.id}`, { token: s.primaryKey.token }), 403, "forbidden");
    expect((await t.api("GET", `/v1/messages/${m.id}`, { token: s.agentKey.token })).status).toBe(200);
    const upper = await t.api("GET", `/v1/messages/${m.id.toUpperCase()}`, { token: s.agentKey.token });
    expect(upper.status).toBe(200);
    expect(upper.body.message.id).toBe(m.id);
  });
});

describe("GET /v1/messages/:messageId/raw", () => {
  test("answers the message byte for byte: CRLF, 8-bit bytes, trailing white space", async () => {
    const s = await seedAccount(t);
    const head = new TextEncoder().encode(
      `From: sender@example.com\r\nTo: ${s.agent.email_address}\r\nSubject: Raw bytes \t \r\nMessage-ID: <raw.${crypto.randomUUID()}@example.com>\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n`,
    );
    // Latin-1 "café", a lone 0xFF, a bare LF, trailing spaces and tabs, blank lines at the end.
    const body = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0xff, 0x0d, 0x0a, 0x6c, 0x66, 0x0a, 0x74, 0x72, 0x61, 0x69, 0x6c, 0x20, 0x20, 0x09, 0x0d, 0x0a, 0x0d, 0x0a, 0x20, 0x20, 0x0d, 0x0a, 0x0d, 0x0a]);
    const raw = new Uint8Array([...head, ...body]);
    const [id] = await deliver(raw, s.agent.email_address);
    await waitFor(id!);
    const res = await getBytes(`/v1/messages/${id}/raw`, s.agentKey.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("message/rfc822");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    // The pipeline's headers reach a byte response too.
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.headers.get("x-ratelimit-limit")).toBeTruthy();
    expect(res.bytes.byteLength).toBe(raw.byteLength);
    expect(Buffer.from(res.bytes).equals(Buffer.from(raw))).toBe(true);
  });

  test("is there before processing, and 404 for an unknown message", async () => {
    const s = await seedAccount(t);
    const raw = mail(s.agent.email_address, "Early raw");
    const [id] = await deliver(raw, s.agent.email_address);
    const res = await getBytes(`/v1/messages/${id}/raw`);
    expect(res.status).toBe(200);
    expect(new TextDecoder().decode(res.bytes)).toBe(raw);
    expectError(await t.api("GET", `/v1/messages/${GHOST}/raw`), 404, "not_found");
  });

  test("another mailbox's key gets 403", async () => {
    const s = await seedAccount(t);
    const m = await receive(s, "Raw scope");
    expectError(await t.api("GET", `/v1/messages/${m.id}/raw`, { token: s.primaryKey.token }), 403, "forbidden");
  });
});

describe("GET /v1/messages/:messageId/attachments/:attachmentId", () => {
  const binary = new Uint8Array(256).map((_, i) => i);
  const files = [
    { filename: "all-bytes.bin", type: "application/octet-stream", bytes: binary },
    { filename: "chart.png", type: "image/png", bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]) },
    { filename: 'Ünïcode "quoted"; name.txt', type: "text/plain", bytes: new TextEncoder().encode("héllo\r\n") },
    { filename: "page.html", type: "text/html", bytes: new TextEncoder().encode("<script>alert(1)</script>") },
  ];
  let s: Seed;
  let m: any;
  beforeAll(async () => {
    s = await seedAccount(t);
    const [id] = await deliver(withAttachments(s.agent.email_address, "Attachments", files), s.agent.email_address);
    m = await waitFor(id!);
  });

  test("each attachment's bytes, with its original Content-Type, as a download", async () => {
    expect(m.attachments).toHaveLength(files.length);
    for (const [i, f] of files.entries()) {
      const a = m.attachments[i];
      const res = await getBytes(`/v1/messages/${m.id}/attachments/${a.id}`, s.agentKey.token);
      expect(res.status).toBe(200);
      expect(Buffer.from(res.bytes).equals(Buffer.from(f.bytes))).toBe(true);
      expect(res.headers.get("content-type")).toBe(f.type);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const disposition = res.headers.get("content-disposition")!;
      expect(disposition).toStartWith("attachment;");
      expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent(f.filename).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`);
      // The quoted fallback is plain ASCII without quotes or semicolons of the name.
      const fallback = /filename="([^"]*)"/.exec(disposition)![1]!;
      expect(fallback).toMatch(/^[\x20-\x7e]*$/);
      expect(fallback).not.toContain(";");
    }
  });

  test("an attachment of another message is 404, as are unknown ids; malformed ids are 400", async () => {
    const other = await receive(s, "No attachments");
    expectError(await t.api("GET", `/v1/messages/${other.id}/attachments/${m.attachments[0].id}`), 404, "not_found");
    expectError(await t.api("GET", `/v1/messages/${m.id}/attachments/${GHOST}`), 404, "not_found");
    expectError(await t.api("GET", `/v1/messages/${GHOST}/attachments/${m.attachments[0].id}`), 404, "not_found");
    const bad = await t.api("GET", `/v1/messages/${m.id}/attachments/nope`);
    expectError(bad, 400, "validation_error");
    expect(fieldPaths(bad)).toEqual(["params.attachmentId"]);
  });

  test("another mailbox's key gets 403", async () => {
    expectError(await t.api("GET", `/v1/messages/${m.id}/attachments/${m.attachments[0].id}`, { token: s.primaryKey.token }), 403, "forbidden");
  });
});

describe("GET /v1/messages/:messageId/delivery", () => {
  test("an inbound message has no delivery events; unknown is 404", async () => {
    const s = await seedAccount(t);
    const m = await receive(s, "Delivery");
    const res = await t.api("GET", `/v1/messages/${m.id}/delivery`, { token: s.agentKey.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ events: [] });
    expectError(await t.api("GET", `/v1/messages/${GHOST}/delivery`), 404, "not_found");
    expectError(await t.api("GET", `/v1/messages/${m.id}/delivery`, { token: s.primaryKey.token }), 403, "forbidden");
  });
});

describe("GET /v1/mailboxes/:mailboxId/messages", () => {
  test("newest first, items with exactly the list fields, and pagination totals", async () => {
    const s = await seedAccount(t);
    for (const n of [1, 2, 3, 4, 5]) await deliver(mail(s.agent.email_address, `Page ${n}`), s.agent.email_address);
    const all = await list(s, "", s.agentKey.token);
    expect(all.status).toBe(200);
    expect(Object.keys(all.body).sort()).toEqual(["items", "limit", "page", "total", "total_pages"]);
    expect(all.body).toMatchObject({ page: 1, limit: 50, total: 5, total_pages: 1 });
    expect(subjects(all)).toEqual(["Page 5", "Page 4", "Page 3", "Page 2", "Page 1"]);
    for (const item of all.body.items) expect(Object.keys(item).sort()).toEqual(LIST_FIELDS);

    const p1 = await list(s, "limit=2");
    expect(p1.body).toMatchObject({ page: 1, limit: 2, total: 5, total_pages: 3 });
    expect(subjects(p1)).toEqual(["Page 5", "Page 4"]);
    const p3 = await list(s, "limit=2&page=3");
    expect(subjects(p3)).toEqual(["Page 1"]);
    const beyond = await list(s, "limit=2&page=4");
    expect(beyond.body).toMatchObject({ items: [], page: 4, total: 5, total_pages: 3 });
  });

  test("an empty mailbox lists nothing", async () => {
    const s = await seedAccount(t);
    expect((await list(s)).body).toEqual({ items: [], page: 1, limit: 50, total: 0, total_pages: 0 });
  });

  test("query matches the subject's words by prefix, case-insensitive; text without letters or digits as a substring", async () => {
    const s = await seedAccount(t);
    for (const subject of ["100% done", "100 percent", "snake_case", "snakeXcase", "back\\slash", "Quarterly REPORT"]) {
      await deliver(mail(s.agent.email_address, subject), s.agent.email_address);
    }
    const q = async (query: string) => subjects(await list(s, `query=${encodeURIComponent(query)}`)).sort();
    expect(await q("%")).toEqual(["100% done"]);
    expect(await q("_")).toEqual(["snake_case"]);
    expect(await q("\\")).toEqual(["back\\slash"]);
    expect(await q("SNAKE")).toEqual(["snakeXcase", "snake_case"].sort());
    expect(await q("report")).toEqual(["Quarterly REPORT"]);
    expect(await q("nothing like it")).toEqual([]);
    const counted = await list(s, "query=100&limit=1");
    expect(counted.body).toMatchObject({ total: 2, total_pages: 2 });
  });

  test("status, direction and transport filter", async () => {
    const s = await seedAccount(t);
    const a = await receive(s, "To archive");
    const r = await receive(s, "To review");
    await receive(s, "Untouched");
    expect((await t.api("POST", `/v1/messages/${a.id}/archive`)).status).toBe(200);
    expect((await t.api("POST", `/v1/messages/${r.id}/review`)).status).toBe(200);
    expect(subjects(await list(s, "status=archived"))).toEqual(["To archive"]);
    expect(subjects(await list(s, "status=reviewed"))).toEqual(["To review"]);
    expect(subjects(await list(s, "status=processed"))).toEqual(["Untouched"]);
    expect(subjects(await list(s, "status=sent"))).toEqual([]);
    expect((await list(s, "direction=inbound")).body.total).toBe(3);
    expect((await list(s, "direction=outbound")).body.total).toBe(0);
    expect((await list(s, "transport=smtp")).body.total).toBe(3);
    expect((await list(s, "transport=agent-json")).body.total).toBe(0);
    expect(subjects(await list(s, "status=archived&direction=inbound&transport=smtp"))).toEqual(["To archive"]);
  });

  test("risk_level and triage_label filter on what assessment set", async () => {
    const s = await seedAccount(t);
    const msgs = [await receive(s, "Plain note"), await receive(s, "URGENT: verify your password now", { body: "Click http://192.0.2.1/login to verify your account password immediately.\r\n" })];
    for (const level of ["low", "medium", "high"]) {
      const res = await list(s, `risk_level=${level}`);
      expect(res.status).toBe(200);
      expect(res.body.items.map((m: any) => m.id).sort()).toEqual(msgs.filter((m) => m.risk_level === level).map((m) => m.id).sort());
    }
    for (const label of ["action_required", "reply_needed", "fyi", "newsletter", "notification", "spam"]) {
      const res = await list(s, `triage_label=${label}`);
      expect(res.status).toBe(200);
      expect(res.body.items.map((m: any) => m.id).sort()).toEqual(msgs.filter((m) => m.triage_label === label).map((m) => m.id).sort());
    }
  });

  test("label lists the messages carrying a label; an unknown or foreign label lists nothing", async () => {
    const s = await seedAccount(t);
    const a = await receive(s, "Labelled");
    await receive(s, "Not labelled");
    const label = await createLabel(s.agent.id, "Important");
    const unused = await createLabel(s.agent.id, "Unused");
    const foreign = await createLabel(s.primary.id, "Elsewhere");
    expect((await t.api("POST", `/v1/messages/${a.id}/labels/${label}`)).status).toBe(200);
    const res = await list(s, `label=${label}`);
    expect(subjects(res)).toEqual(["Labelled"]);
    expect(res.body.items[0].labels).toEqual([label]);
    expect((await list(s, `label=${unused}`)).body).toMatchObject({ items: [], total: 0 });
    expect((await list(s, `label=${foreign}`)).body).toMatchObject({ items: [], total: 0 });
    expect((await list(s, `label=${GHOST}`)).body).toMatchObject({ items: [], total: 0 });
  });

  test("thread_id lists one thread's messages", async () => {
    const s = await seedAccount(t);
    const first = await receive(s, "Thread start");
    await receive(s, "Re: Thread start", { headers: { "In-Reply-To": first.message_id_header, References: first.message_id_header } });
    await receive(s, "Something else");
    const res = await list(s, `thread_id=${first.thread_id}`);
    expect(subjects(res)).toEqual(["Re: Thread start", "Thread start"]);
    expect((await list(s, `thread_id=${GHOST}`)).body.total).toBe(0);
  });

  test.each([
    ["status=bogus", "query.status"],
    ["status=ARCHIVED", "query.status"],
    ["direction=sideways", "query.direction"],
    ["transport=fax", "query.transport"],
    ["triage_label=urgent", "query.triage_label"],
    ["risk_level=extreme", "query.risk_level"],
    ["label=not-a-uuid", "query.label"],
    ["thread_id=123", "query.thread_id"],
    ["page=0", "query.page"],
    ["page=abc", "query.page"],
    ["limit=0", "query.limit"],
    ["limit=101", "query.limit"],
    ["limit=1.5", "query.limit"],
    [`query=${"x".repeat(501)}`, "query.query"],
    ["query=a%00b", "query.query"],
  ])("%s → 400 naming %s", async (q, path) => {
    const s = await seedAccount(t);
    const res = await list(s, q);
    expectError(res, 400, "validation_error");
    expect(fieldPaths(res)).toEqual([path]);
  });

  test("404 for an unknown mailbox, 400 for a malformed id, 403 for another mailbox's key", async () => {
    const s = await seedAccount(t);
    expectError(await t.api("GET", `/v1/mailboxes/${GHOST}/messages`), 404, "not_found");
    const bad = await t.api("GET", "/v1/mailboxes/nope/messages");
    expectError(bad, 400, "validation_error");
    expect(fieldPaths(bad)).toEqual(["params.mailboxId"]);
    expectError(await list(s, "", s.primaryKey.token), 403, "forbidden");
    expect((await list(s, "", s.agentKey.token)).status).toBe(200);
  });

  test("a mailbox lists only its own messages", async () => {
    const s = await seedAccount(t);
    await receive(s, "Mine");
    const [other] = await deliver(mail(s.primary.email_address, "Primary's"), s.primary.email_address);
    await waitFor(other!);
    expect(subjects(await list(s))).toEqual(["Mine"]);
    const primary = await t.api("GET", `/v1/mailboxes/${s.primary.id}/messages`);
    expect(subjects(primary)).toEqual(["Primary's"]);
  });
});

describe("archive and review", () => {
  test("archive: {message_id, status: archived}, archived_at set; again changes nothing", async () => {
    const s = await seedAccount(t);
    const m = await receive(s, "Archive me");
    const res = await t.api("POST", `/v1/messages/${m.id}/archive`, { token: s.agentKey.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message_id: m.id, status: "archived" });
    const after = (await t.api("GET", `/v1/messages/${m.id}`)).body.message;
    expect(after.status).toBe("archived");
    expect(after.archived_at).toMatch(ISO);
    expect(after.reviewed_at).toBeNull();
    await sleep(5);
    const again = await t.api("POST", `/v1/messages/${m.id}/archive`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ message_id: m.id, status: "archived" });
    expect((await t.api("GET", `/v1/messages/${m.id}`)).body.message.archived_at).toBe(after.archived_at);
  });

  test("review: {message_id, status: reviewed}, reviewed_at set; the later of archive and review sets the status", async () => {
    const s = await seedAccount(t);
    const m = await receive(s, "Review me");
    const res = await t.api("POST", `/v1/messages/${m.id}/review`, { token: s.agentKey.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message_id: m.id, status: "reviewed" });
    const reviewed = (await t.api("GET", `/v1/messages/${m.id}`)).body.message;
    expect(reviewed).toMatchObject({ status: "reviewed", archived_at: null });
    expect(reviewed.reviewed_at).toMatch(ISO);
    expect((await t.api("POST", `/v1/messages/${m.id}/review`)).body).toEqual({ message_id: m.id, status: "reviewed" });
    expect((await t.api("GET", `/v1/messages/${m.id}`)).body.message.reviewed_at).toBe(reviewed.reviewed_at);

    expect((await t.api("POST", `/v1/messages/${m.id}/archive`)).status).toBe(200);
    const archived = (await t.api("GET", `/v1/messages/${m.id}`)).body.message;
    expect(archived.status).toBe("archived");
    expect(archived.reviewed_at).toBe(reviewed.reviewed_at);
    expect(archived.archived_at).toMatch(ISO);
  });

  test("an archive that comes before processing is kept by it", async () => {
    const s = await seedAccount(t);
    const [id] = await deliver(mail(s.agent.email_address, "Archived early"), s.agent.email_address);
    expect((await t.api("POST", `/v1/messages/${id}/archive`)).body).toEqual({ message_id: id, status: "archived" });
    const m = await waitFor(id!, (msg) => msg.thread_id !== null);
    expect(m.status).toBe("archived");
    expect(m.subject).toBe("Archived early");
  });

  test("404 for an unknown message, 403 for another mailbox's key, 400 for a malformed id", async () => {
    const s = await seedAccount(t);
    const m = await receive(s, "Guarded");
    for (const action of ["archive", "review"]) {
      expectError(await t.api("POST", `/v1/messages/${GHOST}/${action}`), 404, "not_found");
      expectError(await t.api("POST", `/v1/messages/${m.id}/${action}`, { token: s.primaryKey.token }), 403, "forbidden");
      const bad = await t.api("POST", `/v1/messages/x/${action}`);
      expectError(bad, 400, "validation_error");
      expect(fieldPaths(bad)).toEqual(["params.messageId"]);
    }
    expect((await t.api("GET", `/v1/messages/${m.id}`)).body.message.status).toBe("processed");
  });
});

describe("labels on messages", () => {
  test("apply, apply again, remove, remove again: each 200 with the labels now applied", async () => {
    const s = await seedAccount(t);
    const m = await receive(s, "Label me");
    const zeta = await createLabel(s.agent.id, "zeta");
    const alpha = await createLabel(s.agent.id, "Alpha");
    const path = (l: string) => `/v1/messages/${m.id}/labels/${l}`;

    const first = await t.api("POST", path(zeta), { token: s.agentKey.token });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ message_id: m.id, labels: [zeta] });
    expect((await t.api("POST", path(zeta))).body).toEqual({ message_id: m.id, labels: [zeta] });
    // By label name, regardless of case.
    expect((await t.api("POST", path(alpha))).body).toEqual({ message_id: m.id, labels: [alpha, zeta] });
    expect((await t.api("GET", `/v1/messages/${m.id}`)).body.message.labels).toEqual([alpha, zeta]);

    const removed = await t.api("DELETE", path(zeta), { token: s.agentKey.token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ message_id: m.id, labels: [alpha] });
    expect((await t.api("DELETE", path(zeta))).body).toEqual({ message_id: m.id, labels: [alpha] });
    expect((await t.api("GET", `/v1/messages/${m.id}`)).body.message.labels).toEqual([alpha]);
  });

  test("deleting a label takes it off its messages", async () => {
    const s = await seedAccount(t);
    const m = await receive(s, "Label then delete");
    const l = await createLabel(s.agent.id, "Temporary");
    expect((await t.api("POST", `/v1/messages/${m.id}/labels/${l}`)).status).toBe(200);
    expect((await t.api("DELETE", `/v1/labels/${l}`)).status).toBe(200);
    expect((await t.api("GET", `/v1/messages/${m.id}`)).body.message.labels).toEqual([]);
    expectError(await t.api("POST", `/v1/messages/${m.id}/labels/${l}`), 404, "not_found");
  });

  test("a label of another mailbox, an unknown label or message is 404; another mailbox's key 403; malformed 400", async () => {
    const s = await seedAccount(t);
    const m = await receive(s, "Label guard");
    const own = await createLabel(s.agent.id, "Own");
    const foreign = await createLabel(s.primary.id, "Foreign");
    for (const method of ["POST", "DELETE"]) {
      const res = await t.api(method, `/v1/messages/${m.id}/labels/${foreign}`);
      expectError(res, 404, "not_found");
      expect(res.body.error.message).toContain("label");
      expectError(await t.api(method, `/v1/messages/${m.id}/labels/${GHOST}`), 404, "not_found");
      expectError(await t.api(method, `/v1/messages/${GHOST}/labels/${own}`), 404, "not_found");
      expectError(await t.api(method, `/v1/messages/${m.id}/labels/${own}`, { token: s.primaryKey.token }), 403, "forbidden");
      const bad = await t.api(method, `/v1/messages/${m.id}/labels/zzz`);
      expectError(bad, 400, "validation_error");
      expect(fieldPaths(bad)).toEqual(["params.labelId"]);
    }
    expect((await t.api("GET", `/v1/messages/${m.id}`)).body.message.labels).toEqual([]);
  });
});

describe("outbound messages", () => {
  let relay: Awaited<ReturnType<typeof startRelaySink>>;
  let o: TestService;
  // On PostgreSQL, a database of its own: the file's other service has no relay, and its job
  // runner, sharing the database, could take this one's delivery and keep the mail locally.
  let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  beforeAll(async () => {
    relay = await startRelaySink();
    db = usingPostgres ? await freshDatabase("mailroom_outbound") : undefined;
    o = await startTestService({ SMTP_RELAY_URL: relay.url, ...(db ? { DATABASE_URL: db.url } : {}) });
  });
  afterAll(async () => {
    await o.stop();
    await relay.close();
    await db?.drop();
  });

  test("delivery events oldest first; direction, status and raw as handed to the relay", async () => {
    const s = await seedAccount(o);
    const sent = await o.api("POST", `/v1/mailboxes/${s.agent.id}/send`, {
      token: s.agentKey.token,
      body: { to: ["someone@example.com"], subject: "Outbound one", textBody: "Hi.\n" },
    });
    expect(sent.status).toBe(201);
    const id = sent.body.message.id;
    const deadline = Date.now() + 20_000;
    let events: any[] = [];
    while (Date.now() < deadline) {
      events = (await o.api("GET", `/v1/messages/${id}/delivery`, { token: s.agentKey.token })).body.events;
      if (events.some((e) => e.status === "sent")) break;
      await sleep(20);
    }
    expect(events.map((e) => e.status)).toEqual(["queued", "sent"]);
    for (const e of events) {
      expect(Object.keys(e).sort()).toEqual(["created_at", "detail", "id", "status"]);
      expect(e.id).toMatch(UUID);
      expect(e.created_at).toMatch(ISO);
      expect(typeof e.detail).toBe("string");
    }
    expect(Date.parse(events[0].created_at)).toBeLessThanOrEqual(Date.parse(events[1].created_at));

    const outbound = await o.api("GET", `/v1/mailboxes/${s.agent.id}/messages?direction=outbound`);
    expect(outbound.body.items.map((m: any) => m.id)).toEqual([id]);
    expect(outbound.body.items[0]).toMatchObject({ direction: "outbound", transport: "smtp", status: "sent", subject: "Outbound one" });
    expect((await o.api("GET", `/v1/mailboxes/${s.agent.id}/messages?status=sent`)).body.total).toBe(1);
    expect((await o.api("GET", `/v1/mailboxes/${s.agent.id}/messages?direction=inbound`)).body.total).toBe(0);

    const raw = await fetch(`${o.url}/v1/messages/${id}/raw`, { headers: { authorization: `Bearer ${o.admin}` } });
    expect(raw.status).toBe(200);
    const bytes = Buffer.from(await raw.arrayBuffer());
    const handed = relay.received.find((r) => Buffer.from(r.raw).toString("latin1").includes("Outbound one"));
    expect(handed).toBeDefined();
    expect(bytes.equals(Buffer.from(handed!.raw))).toBe(true);
  });
});
