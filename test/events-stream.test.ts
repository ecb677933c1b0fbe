import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, lte } from "drizzle-orm";
import { outbox } from "../db/schema/index.ts";
import { EventFeed } from "../src/events/feed.ts";
import { openEventStream } from "../src/events/stream.ts";
import type { EventTail } from "../src/events/tail.ts";
import { newId } from "../src/domain/ids.ts";
import { Validator } from "@seriousme/openapi-schema-validator";
import { expectError, fieldPaths, ISO, seedAccount, sleep, startTestService, type TestService } from "./harness.ts";
import { postInbound, rfc822, waitForMessage } from "./mail-support.ts";

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

type Seed = Awaited<ReturnType<typeof seedAccount>>;
const GHOST = "00000000-0000-4000-8000-000000000000";

// ---------------------------------------------------------------------------------------
// A tiny SSE reader: frames are blocks of lines ended by a blank line (WHATWG SSE parsing).

interface Frame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comments: string[];
}

class SseReader {
  private readonly reader: { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> };
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private pending: Promise<{ done: boolean; value?: Uint8Array }> | undefined;
  ended = false;

  constructor(readonly res: Response) {
    this.reader = res.body!.getReader();
  }

  /** The next frame; throws after `timeoutMs`, answers null when the stream ends. */
  async next(timeoutMs = 5_000): Promise<Frame | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buffer.search(/\r\n\r\n|\n\n|\r\r/);
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + (this.buffer.startsWith("\r\n\r\n", end) ? 4 : 2));
        return parseBlock(block);
      }
      if (this.ended) return null;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no SSE frame within ${timeoutMs} ms (buffered: ${JSON.stringify(this.buffer)})`);
      this.pending ??= this.reader.read();
      const got = await Promise.race([this.pending, sleep(left).then(() => "timeout" as const)]);
      if (got === "timeout") continue;
      this.pending = undefined;
      if (got.done) this.ended = true;
      else this.buffer += this.decoder.decode(got.value, { stream: true });
    }
  }

  /** The next frame that is an event (skipping `retry:` and comment-only frames). */
  async nextEvent(timeoutMs = 5_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const frame = await this.next(Math.max(1, deadline - Date.now()));
      if (frame === null) throw new Error("the stream ended");
      if (frame.data !== undefined || frame.event !== undefined) return frame;
    }
  }

  /** Asserts that no event arrives within `ms`. */
  async expectQuiet(ms: number): Promise<void> {
    let frame: Frame | null = null;
    try {
      frame = await this.nextEvent(ms);
    } catch (err) {
      if (String(err).includes("no SSE frame")) return;
      throw err;
    }
    throw new Error(`unexpected event: ${JSON.stringify(frame)}`);
  }

  async close(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}

function parseBlock(block: string): Frame {
  const frame: Frame = { comments: [] };
  for (const line of block.split(/\r\n|\n|\r/)) {
    if (line.startsWith(":")) {
      frame.comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
    else if (field === "id" || field === "event" || field === "retry") frame[field] = value;
  }
  return frame;
}

const json = (f: Frame) => JSON.parse(f.data!);

// ---------------------------------------------------------------------------------------

const streams: SseReader[] = [];
afterAll(async () => {
  for (const s of streams) await s.close();
});

/** Opens the stream; answers the reader on 200, or the error response as an ApiResponse-like value. */
async function open(mailboxId: string, opts: { token?: string | null; since?: string; lastEventId?: string; path?: string } = {}) {
  const headers: Record<string, string> = { accept: "text/event-stream" };
  const token = opts.token === undefined ? t.admin : opts.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (opts.lastEventId !== undefined) headers["last-event-id"] = opts.lastEventId;
  const path = opts.path ?? `/v1/mailboxes/${mailboxId}/events${opts.since !== undefined ? `?since=${encodeURIComponent(opts.since)}` : ""}`;
  const res = await fetch(t.url + path, { headers });
  if (res.status !== 200) {
    const text = await res.text();
    return { res, error: { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text } };
  }
  const reader = new SseReader(res);
  streams.push(reader);
  return { res, reader };
}

async function openOk(mailboxId: string, opts: Parameters<typeof open>[1] = {}) {
  const got = await open(mailboxId, opts);
  if (!got.reader) throw new Error(`stream refused: ${got.error?.status} ${got.error?.text}`);
  const first = await got.reader.next();
  expect(first?.retry).toBe("2000");
  return got.reader;
}

let counter = 0;
/** Delivers one message over the HTTP ingress; answers its id without waiting. */
async function deliver(to: string, subject: string): Promise<string> {
  const raw = rfc822({
    From: "Sender <sender@example.com>",
    To: to,
    Subject: subject,
    Date: new Date().toUTCString(),
    "Message-ID": `<ev${++counter}.${crypto.randomUUID()}@example.com>`,
    "MIME-Version": "1.0",
    "Content-Type": "text/plain; charset=utf-8",
  });
  const res = await postInbound(t, raw, [to]);
  if (res.status !== 202) throw new Error(`inbound failed: ${res.status} ${res.text}`);
  return res.body.message_ids[0];
}

/** Delivers and waits until processed: two events, message.received then message.processed. */
async function receive(to: string, subject: string): Promise<string> {
  const id = await deliver(to, subject);
  await waitForMessage(t, id);
  return id;
}

/** Waits until the mailbox has `n` stored events (processing writes them asynchronously). */
async function waitForEvents(mailboxId: string, n: number) {
  const db = t.service.internals.database.db;
  for (let i = 0; i < 500; i++) {
    const rows = await db.select({ seq: outbox.mailboxSeq }).from(outbox).where(and(eq(outbox.kind, "event"), eq(outbox.mailboxId, mailboxId)));
    if (rows.length >= n) return;
    await sleep(20);
  }
  throw new Error(`mailbox ${mailboxId} has fewer than ${n} events`);
}

/** A fresh account whose agent mailbox has received two messages: events 1-4. */
async function seedWithMail(): Promise<{ s: Seed; a: string; b: string }> {
  const s = await seedAccount(t);
  const a = await receive(s.agent.email_address, "first");
  const b = await receive(s.agent.email_address, "second");
  await waitForEvents(s.agent.id, 4);
  return { s, a, b };
}

async function expectEvent(reader: SseReader, seq: number, event: string, messageId: string, timeoutMs = 5_000) {
  const f = await reader.nextEvent(timeoutMs);
  expect({ id: f.id, event: f.event }).toEqual({ id: String(seq), event });
  const data = json(f);
  expect(Object.keys(data).sort()).toEqual(["created_at", "event", "id", "payload"]);
  expect(data.id).toBe(seq);
  expect(data.event).toBe(event);
  expect(data.created_at).toMatch(ISO);
  expect(data.payload.id).toBe(messageId);
  return data;
}

// ---------------------------------------------------------------------------------------

describe("GET /v1/mailboxes/:mailboxId/events", () => {
  let seed: { s: Seed; a: string; b: string };
  beforeAll(async () => {
    seed = await seedWithMail();
  });

  test("replays the stored events in order, numbered 1, 2, 3…, with SSE headers", async () => {
    const { s, a, b } = seed;
    const got = await open(s.agent.id, { token: s.agentKey.token });
    expect(got.res.status).toBe(200);
    expect(got.res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(got.res.headers.get("cache-control")).toBe("no-cache");
    expect(got.res.headers.get("x-accel-buffering")).toBe("no");
    expect(got.res.headers.get("x-request-id")).toBeTruthy();
    const reader = got.reader!;
    const first = await reader.next();
    expect(first).toEqual({ retry: "2000", comments: [] });

    const received = await expectEvent(reader, 1, "message.received", a);
    expect(received.payload.mailbox_id).toBe(s.agent.id);
    expect(received.payload.subject).toBe("first");
    const processed = await expectEvent(reader, 2, "message.processed", a);
    expect(processed.payload.status).toBe("processed");
    await expectEvent(reader, 3, "message.received", b);
    await expectEvent(reader, 4, "message.processed", b);
    await reader.close();
  });

  test("a new event arrives while connected, woken by the notification, and nothing is sent twice", async () => {
    const { s } = seed;
    const reader = await openOk(s.agent.id, { token: s.agentKey.token });
    for (let seq = 1; seq <= 4; seq++) expect((await reader.nextEvent()).id).toBe(String(seq));
    await reader.expectQuiet(300);

    // The commit's notification reaches this node's feed for the mailbox, which wakes the stream
    // (how soon after the commit the event arrives is a figure, not an assertion).
    let woken = 0;
    const unsubscribe = t.service.internals.events.subscribe(s.agent.id, () => woken++);
    const c = await deliver(s.agent.email_address, "live");
    await expectEvent(reader, 5, "message.received", c, 3_000);
    unsubscribe();
    expect(woken).toBeGreaterThan(0);
    await expectEvent(reader, 6, "message.processed", c, 10_000);
    await reader.expectQuiet(2_500); // past a fallback poll: no repeats
    await reader.close();
  }, 20_000);

  test("resumes after Last-Event-ID", async () => {
    const { s, b } = seed;
    const reader = await openOk(s.agent.id, { token: s.agentKey.token, lastEventId: "2" });
    await expectEvent(reader, 3, "message.received", b);
    await expectEvent(reader, 4, "message.processed", b);
    await reader.close();
  });

  test("resumes after ?since=, and Last-Event-ID wins over it", async () => {
    const { s, b } = seed;
    const since = await openOk(s.agent.id, { since: "3" });
    await expectEvent(since, 4, "message.processed", b);
    await since.close();

    const both = await openOk(s.agent.id, { since: "1", lastEventId: "3" });
    await expectEvent(both, 4, "message.processed", b);
    await both.close();

    const zero = await openOk(s.agent.id, { since: "0" });
    expect((await zero.nextEvent()).id).toBe("1");
    await zero.close();

    // An empty Last-Event-ID (what a reset id leaves) counts as absent.
    const empty = await openOk(s.agent.id, { since: "3", lastEventId: "" });
    expect((await empty.nextEvent()).id).toBe("4");
    await empty.close();
  });

  test("resuming at the latest event waits for the next one", async () => {
    const s = await seedAccount(t);
    await receive(s.agent.email_address, "only");
    await waitForEvents(s.agent.id, 2);
    const reader = await openOk(s.agent.id, { token: s.agentKey.token, lastEventId: "2" });
    await reader.expectQuiet(300);
    const c = await deliver(s.agent.email_address, "next");
    await expectEvent(reader, 3, "message.received", c);
    await reader.close();
  });

  test("a mailbox with no events yet streams from 1 once one arrives", async () => {
    const s = await seedAccount(t);
    const reader = await openOk(s.agent.id, { token: s.agentKey.token });
    await reader.expectQuiet(300);
    const a = await deliver(s.agent.email_address, "first ever");
    await expectEvent(reader, 1, "message.received", a);
    await expectEvent(reader, 2, "message.processed", a, 10_000);
    await reader.close();
  }, 15_000);

  test("a bad resume point is 400 validation_error naming it", async () => {
    const { s } = seed;
    for (const since of ["abc", "-1", "1.5", "", " 1", "1e3", "99999999999999999999"]) {
      const { error } = await open(s.agent.id, { token: s.agentKey.token, since });
      expect(error).toBeDefined();
      expectError(error!, 400, "validation_error");
      expect({ since, paths: fieldPaths(error!) }).toEqual({ since, paths: ["query.since"] });
    }
    for (const lastEventId of ["x", "-3", "2.0", "99999999999999999999"]) {
      const { error } = await open(s.agent.id, { token: s.agentKey.token, lastEventId });
      expect(error).toBeDefined();
      expectError(error!, 400, "validation_error");
      expect({ lastEventId, paths: fieldPaths(error!) }).toEqual({ lastEventId, paths: ["headers.last-event-id"] });
    }
  });

  test("a resume point past the mailbox's latest event is 400", async () => {
    const { s } = seed;
    const latest = Number((await t.service.internals.database.db.select({ seq: outbox.mailboxSeq }).from(outbox).where(and(eq(outbox.kind, "event"), eq(outbox.mailboxId, s.agent.id)))).reduce((m, r) => Math.max(m, Number(r.seq)), 0));
    const since = await open(s.agent.id, { since: String(latest + 1) });
    expectError(since.error!, 400, "validation_error");
    expect(fieldPaths(since.error!)).toEqual(["query.since"]);
    const header = await open(s.agent.id, { lastEventId: String(latest + 100) });
    expectError(header.error!, 400, "validation_error");
    expect(fieldPaths(header.error!)).toEqual(["headers.last-event-id"]);
    // A mailbox without events takes 0 only.
    const fresh = await seedAccount(t);
    expectError((await open(fresh.agent.id, { since: "1" })).error!, 400, "validation_error");
  });

  test("auth: no token 401, another mailbox's key 403, unknown mailbox 403 for a key and 404 for admin, malformed id 400", async () => {
    const { s } = seed;
    expectError((await open(s.agent.id, { token: null })).error!, 401, "missing_authorization");
    expectError((await open(s.agent.id, { token: `svc_${crypto.randomUUID()}.${"a".repeat(43)}` })).error!, 401, "invalid_token");
    expectError((await open(s.agent.id, { token: s.primaryKey.token })).error!, 403, "forbidden");
    const other = await seedAccount(t);
    expectError((await open(s.agent.id, { token: other.agentKey.token })).error!, 403, "forbidden");
    expectError((await open(GHOST, { token: s.agentKey.token })).error!, 403, "forbidden");
    expectError((await open(GHOST)).error!, 404, "not_found");
    const bad = await open("not-a-uuid");
    expectError(bad.error!, 400, "validation_error");
    expect(fieldPaths(bad.error!)).toEqual(["params.mailboxId"]);
    // The admin token and the mailbox's own key are both accepted.
    const admin = await openOk(s.agent.id);
    expect((await admin.nextEvent()).id).toBe("1");
    await admin.close();
  });

  test("a key's stream call counts against its rate window", async () => {
    const { s } = seed;
    const got = await open(s.agent.id, { token: s.agentKey.token });
    expect(got.res.headers.get("x-ratelimit-limit")).toBeTruthy();
    expect(got.res.headers.get("x-ratelimit-remaining")).toBeTruthy();
    await got.reader!.close();
  });

  test("two mailboxes do not see each other's events; each is numbered from 1", async () => {
    const s = await seedAccount(t);
    const agentStream = await openOk(s.agent.id, { token: s.agentKey.token });
    const primaryStream = await openOk(s.primary.id, { token: s.primaryKey.token });

    const p = await deliver(s.primary.email_address, "to primary");
    await expectEvent(primaryStream, 1, "message.received", p);
    await expectEvent(primaryStream, 2, "message.processed", p, 10_000);
    const a = await deliver(s.agent.email_address, "to agent");
    // The agent's stream's first event is its own message, numbered 1.
    await expectEvent(agentStream, 1, "message.received", a);
    await expectEvent(agentStream, 2, "message.processed", a, 10_000);
    await primaryStream.expectQuiet(500);
    await agentStream.close();
    await primaryStream.close();
  }, 20_000);

  test("a resume point older than the oldest stored event gets a gap event first", async () => {
    const { s, b } = await seedWithMail();
    const db = t.service.internals.database.db;
    // Retention removed events 1 and 2.
    await db.delete(outbox).where(and(eq(outbox.kind, "event"), eq(outbox.mailboxId, s.agent.id), lte(outbox.mailboxSeq, 2)));

    const fromStart = await openOk(s.agent.id, { token: s.agentKey.token });
    const gap = await fromStart.nextEvent();
    expect(gap.event).toBe("gap");
    expect(gap.id).toBeUndefined();
    expect(json(gap)).toEqual({ from: 1, to: 2 });
    await expectEvent(fromStart, 3, "message.received", b);
    await expectEvent(fromStart, 4, "message.processed", b);
    await fromStart.close();

    const partial = await openOk(s.agent.id, { since: "1" });
    const gap2 = await partial.nextEvent();
    expect({ event: gap2.event, data: json(gap2) }).toEqual({ event: "gap", data: { from: 2, to: 2 } });
    expect((await partial.nextEvent()).id).toBe("3");
    await partial.close();

    // Resuming at or after the oldest stored event: no gap.
    const none = await openOk(s.agent.id, { lastEventId: "2" });
    await expectEvent(none, 3, "message.received", b);
    await none.close();
  });

  test("when every stored event is gone, the gap runs to the latest number, then live events follow", async () => {
    const { s } = await seedWithMail();
    const db = t.service.internals.database.db;
    await db.delete(outbox).where(and(eq(outbox.kind, "event"), eq(outbox.mailboxId, s.agent.id)));

    const reader = await openOk(s.agent.id, { since: "1" });
    const gap = await reader.nextEvent();
    expect({ event: gap.event, data: json(gap) }).toEqual({ event: "gap", data: { from: 2, to: 4 } });
    await reader.expectQuiet(300);
    const c = await deliver(s.agent.email_address, "after the purge");
    await expectEvent(reader, 5, "message.received", c);
    await reader.close();
  }, 15_000);

  test("a client that disconnects releases its subscription", async () => {
    const { s } = seed;
    const feed = t.service.internals.events;
    // Every stream the tests above opened has been closed by its client by now.
    for (let i = 0; i < 100 && feed.size > 0; i++) await sleep(20);
    expect(feed.size).toBe(0);
    const before = feed.size;
    const reader = await openOk(s.agent.id, { token: s.agentKey.token });
    expect(feed.size).toBe(before + 1);
    await reader.close();
    for (let i = 0; i < 100 && feed.size > before; i++) await sleep(20);
    expect(feed.size).toBe(before);
  });

  test("OpenAPI documents the route under Events", async () => {
    const res = await t.api("GET", "/openapi.json", { token: null });
    const op = res.body.paths["/v1/mailboxes/{mailboxId}/events"]?.get;
    expect(op).toBeDefined();
    expect(op.tags).toEqual(["Events"]);
    expect(op.summary).toBeTruthy();
    expect(op.responses["200"].content["text/event-stream"]).toBeDefined();
    expect(op.security).toEqual([{ adminToken: [] }, { mailboxKey: [] }]);
    const names = op.parameters.map((p: any) => `${p.in}:${p.name}`);
    expect(names).toContain("query:since");
    expect(names).toContain("header:last-event-id");
    const unavailable = res.body.components.responses[op.responses["503"].$ref.split("/").pop()];
    expect(unavailable.content["application/json"].schema.allOf[0]).toEqual({ $ref: "#/components/schemas/Error" });
    expect(unavailable.content["application/json"].schema.allOf[1].properties.error.properties.code.enum).toEqual(["service_unavailable"]);
    const result = await new Validator().validate(structuredClone(res.body));
    if (!result.valid) console.error(JSON.stringify(result.errors, null, 2));
    expect(result.valid).toBe(true);
  });
});

describe("shutdown", () => {
  test("stopping the service closes open streams, and stop finishes", async () => {
    const other = await startTestService();
    try {
      const seeded = await seedAccount(other);
      const mailboxId = seeded.agent.id;
      const key = seeded.agentKey;
      const res = await fetch(`${other.url}/v1/mailboxes/${mailboxId}/events`, { headers: { authorization: `Bearer ${key.token}` } });
      expect(res.status).toBe(200);
      const reader = new SseReader(res);
      expect((await reader.next())?.retry).toBe("2000");
      expect(other.service.internals.events.size).toBe(1);

      // stop() resolving at all is the outcome: an open stream that it waited for would hang it
      // past the test's own time limit.
      await other.service.stop();
      expect(await reader.next(2_000)).toBeNull(); // the stream ended cleanly
    } finally {
      await other.stop();
    }
  }, 20_000);
});

// ---------------------------------------------------------------------------------------
// The stream on its own, with a feed of our own: the notification path, the fallback poll,
// keep-alives and paging, without the 2 s / 15 s defaults.

describe("openEventStream", () => {
  let s: Seed;
  beforeAll(async () => {
    s = await seedAccount(t);
  });

  const db = () => t.service.internals.database.db;
  const insertEvent = (mailboxId: string, n: number) =>
    db()
      .insert(outbox)
      .values({ id: newId(), kind: "event", topic: "message.received", mailboxId, payload: { id: `synthetic-${n}` } });

  const readerOf = (stream: ReadableStream<Uint8Array>) => new SseReader(new Response(stream));

  test("is woken by the notification (no poll for a minute)", async () => {
    const database = t.service.internals.database;
    const feed = new EventFeed((channel, fn) => database.listen(channel, fn));
    await feed.start();
    const mailbox = await seedAccount(t);
    const reader = readerOf(openEventStream({ db: db(), feed, mailboxId: mailbox.agent.id, after: 0, pollMs: 60_000 }));
    expect((await reader.next())?.retry).toBe("2000");
    await reader.expectQuiet(200);
    await insertEvent(mailbox.agent.id, 1);
    const f = await reader.nextEvent(2_000);
    expect({ id: f.id, event: f.event, payload: json(f).payload }).toEqual({ id: "1", event: "message.received", payload: { id: "synthetic-1" } });
    await feed.stop();
    expect(await reader.next(1_000)).toBeNull(); // stop closes the stream
  });

  test("the streams of one mailbox share their reads: every stream gets every event, the database one read a commit", async () => {
    const database = t.service.internals.database;
    const feed = new EventFeed((channel, fn) => database.listen(channel, fn));
    await feed.start();
    const mailbox = await seedAccount(t);
    const readers = Array.from({ length: 25 }, () => readerOf(openEventStream({ db: db(), feed, mailboxId: mailbox.agent.id, after: 0, pollMs: 60_000 })));
    for (const r of readers) expect((await r.next())?.retry).toBe("2000");
    await Bun.sleep(100); // every stream has read once (nothing yet)
    const probe = feed.share(mailbox.agent.id, () => null);
    const tail = probe.value as unknown as EventTail;
    probe.release();
    const before = tail.reads;
    for (let n = 1; n <= 3; n++) {
      await insertEvent(mailbox.agent.id, n);
      for (const r of readers) expect((await r.nextEvent(3_000)).id).toBe(String(n));
    }
    // One read per commit (a wake arriving during a read can ask for one more), not one per stream.
    expect(tail.reads - before).toBeGreaterThanOrEqual(3);
    expect(tail.reads - before).toBeLessThanOrEqual(6);
    for (const r of readers) await r.close();
    expect(feed.sharedCount).toBe(0); // the last stream to go dropped the tail
    await feed.stop();
  });

  test("falls back to polling when no notification comes, and sends keep-alive comments", async () => {
    const silent = new EventFeed(async () => async () => {});
    await silent.start();
    const reader = readerOf(openEventStream({ db: db(), feed: silent, mailboxId: s.primary.id, after: 0, pollMs: 150, keepAliveMs: 400 }));
    expect((await reader.next())?.retry).toBe("2000");
    const keepAlive = await reader.next(1_500);
    expect(keepAlive).toEqual({ comments: ["keep-alive"] });
    await insertEvent(s.primary.id, 1);
    const f = await reader.nextEvent(1_500);
    expect(f.id).toBe("1");
    await reader.close();
    expect(silent.size).toBe(0); // cancel released the subscription
    await silent.stop();
  });

  test("the payload goes out as stored: one data line, whatever its text holds", async () => {
    const mailbox = await seedAccount(t);
    const payload = {
      text_body: `line one\nline two\r\n\ttabbed "quoted" back\\slash </script> ü ✓ 😀 \u2028\u2029 \u0001`.repeat(200),
      html_body: null,
      nested: { list: [1, 2.5, -3, true, false, null, "x"], empty: {}, none: [] },
      big: 12345678901234,
    };
    await db().insert(outbox).values({ id: newId(), kind: "event", topic: "message.processed", mailboxId: mailbox.agent.id, payload });
    const feed = new EventFeed(async () => async () => {});
    const reader = readerOf(openEventStream({ db: db(), feed, mailboxId: mailbox.agent.id, after: 0, pollMs: 60_000 }));
    const f = await reader.nextEvent(2_000);
    expect(f.data!.includes("\n")).toBe(false);
    const event = json(f);
    expect(Object.keys(event)).toEqual(["id", "event", "created_at", "payload"]);
    expect(event).toMatchObject({ id: 1, event: "message.processed", created_at: expect.stringMatching(ISO) });
    expect(event.payload).toEqual(payload);
    await feed.stop();
  });

  test("replays in pages without skipping or repeating", async () => {
    const mailbox = await seedAccount(t);
    for (let i = 1; i <= 23; i++) await insertEvent(mailbox.agent.id, i);
    const feed = new EventFeed(async () => async () => {});
    const reader = readerOf(openEventStream({ db: db(), feed, mailboxId: mailbox.agent.id, after: 2, pageSize: 5, pollMs: 60_000 }));
    const ids: string[] = [];
    for (let i = 3; i <= 23; i++) ids.push((await reader.nextEvent(2_000)).id!);
    expect(ids).toEqual(Array.from({ length: 21 }, (_, i) => String(i + 3)));
    await reader.expectQuiet(200);
    await feed.stop();
  });

  test("a stopped feed refuses new streams: they end at once", async () => {
    const feed = new EventFeed(async () => async () => {});
    await feed.stop();
    const reader = readerOf(openEventStream({ db: db(), feed, mailboxId: s.agent.id, after: 0 }));
    expect((await reader.next())?.retry).toBe("2000");
    expect(await reader.next(1_000)).toBeNull();
  });
});

describe("open streams per mailbox (EVENT_STREAMS_PER_MAILBOX)", () => {
  let small: TestService;
  beforeAll(async () => {
    small = await startTestService({ EVENT_STREAMS_PER_MAILBOX: "2" });
  });
  afterAll(() => small?.stop());

  const openOn = (mailboxId: string) => fetch(`${small.url}/v1/mailboxes/${mailboxId}/events`, { headers: { authorization: `Bearer ${small.admin}` } });

  test("one more than the limit is 429 rate_limit_exceeded with Retry-After, until one closes; other mailboxes are not affected", async () => {
    const s = await seedAccount(small);
    const first = new SseReader(await openOn(s.agent.id));
    const second = new SseReader(await openOn(s.agent.id));
    for (const r of [first, second]) expect((await r.next())?.retry).toBe("2000");

    const refused = await openOn(s.agent.id);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("5");
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("rate_limit_exceeded");
    expect(body.error.message).toContain("2 open event streams");

    const other = new SseReader(await openOn(s.primary.id));
    expect((await other.next())?.retry).toBe("2000");

    await first.close();
    // The server sees the client go and lets go of the stream.
    let again: Response | undefined;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      if (again) await again.body?.cancel();
      await sleep(50);
      again = await openOn(s.agent.id);
    }
    expect(again!.status).toBe(200);
    const third = new SseReader(again!);
    expect((await third.next())?.retry).toBe("2000");
    for (const r of [second, other, third]) await r.close();
  });
});
