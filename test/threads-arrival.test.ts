import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { Mailboxes } from "../actors/mailbox/client.ts";
import { LocalPlacement } from "../actors/runtime/index.ts";
import { arrivalHead } from "../src/mail/arrival-head.ts";
import { putBlob } from "../src/mail/blobs.ts";
import { readHead } from "../src/mail/parse/head.ts";
import { seedAccount, startTestService, UUID, waitFor, type TestService } from "./harness.ts";
import { outboxRows, postInbound, rfc822, smtpSend, waitForMessage } from "./mail-support.ts";

/**
 * Threads are decided when a message arrives: right after the 202 or 250, the message row,
 * the lists and the `message.received` event name the same thread, and processing keeps it.
 */
let t: TestService;
let s: Awaited<ReturnType<typeof seedAccount>>;
beforeAll(async () => {
  t = await startTestService();
  s = await seedAccount(t);
});
afterAll(() => t.stop());

const msgId = () => `<${crypto.randomUUID()}@example.com>`;
const mail = (subject: string, headers: Record<string, string> = {}) =>
  rfc822({ From: "Ann <ann@example.com>", To: s.agent.email_address, Subject: subject, "Message-ID": msgId(), ...headers });

async function deliver(raw: string): Promise<string> {
  const res = await postInbound(t, raw, [s.agent.email_address]);
  if (res.status !== 202) throw new Error(`inbound: ${res.status} ${res.text}`);
  return res.body.message_ids[0];
}

/** Every view of a message's thread read at once: the row, both lists and the received event. */
async function threadViews(id: string, mailboxId = s.agent.id) {
  const row = (await t.api("GET", `/v1/messages/${id}`)).body.message;
  const listed = (await t.api("GET", `/v1/mailboxes/${mailboxId}/messages?limit=100`)).body.items.find((m: { id: string }) => m.id === id);
  const threads = (await t.api("GET", `/v1/mailboxes/${mailboxId}/threads?limit=100`)).body.items.map((x: { id: string }) => x.id);
  const [event] = await outboxRows(t, "message.received", id);
  return { row, listed, threads, event: event?.payload as { thread_id: string | null } | undefined };
}

function expectOneThread(v: Awaited<ReturnType<typeof threadViews>>): string {
  expect(v.row.thread_id).toMatch(UUID);
  expect(v.listed.thread_id).toBe(v.row.thread_id);
  expect(v.event!.thread_id).toBe(v.row.thread_id);
  expect(v.threads).toContain(v.row.thread_id);
  return v.row.thread_id;
}

/** Raw mail header lines folded under 78 characters (a long value stays one field). */
const fold = (value: string) => value.match(/.{1,70}/g)!.join("\r\n ");
const randomCc = (n: number) => Array.from({ length: n }, (_, i) => `${randomBytes(6).toString("hex")}@cc${i}.example.org`);

describe("threads at arrival", () => {
  test("HTTP inbound: the row, the message list, the thread list and message.received agree at the 202", async () => {
    const id = await deliver(mail("Arrival over HTTP"));
    const threadId = expectOneThread(await threadViews(id));
    const processed = await waitForMessage(t, id);
    expect(processed.thread_id).toBe(threadId);
  });

  test("SMTP: the same at the 250", async () => {
    const subject = `Arrival over SMTP ${randomBytes(4).toString("hex")}`;
    const info = await smtpSend(t.service.smtpPort, { from: "ann@example.com", to: [s.agent.email_address] }, mail(subject));
    const id = /queued as ([0-9a-f-]{36})/.exec(info.response)?.[1];
    expect(id).toMatch(UUID);
    expectOneThread(await threadViews(id!));
  });

  test("a reply and a label on the thread work right after arrival, before processing", async () => {
    const id = await deliver(mail("Answer me at once", { "Reply-To": "ann.replies@example.com" }));
    const { row } = await threadViews(id);
    const answer = await t.api("POST", `/v1/messages/${id}/reply`, { token: s.agentKey.token, body: { textBody: "On it." } });
    expect(answer.status).toBe(201);
    expect(answer.body.message).toMatchObject({ thread_id: row.thread_id, to_address: "ann.replies@example.com", subject: "Re: Answer me at once" });
    const label = await t.api("POST", `/v1/mailboxes/${s.agent.id}/labels`, { body: { name: `now-${randomBytes(3).toString("hex")}` } });
    const labelled = await t.api("POST", `/v1/threads/${row.thread_id}/labels/${label.body.label.id}`);
    expect(labelled.status).toBe(200);
    expect(labelled.body).toEqual({ thread_id: row.thread_id, labels: [label.body.label.id] });
  });

  test("a reply arriving before its original is processed joins the original's thread, and processing keeps it", async () => {
    const firstId = msgId();
    const a = await deliver(mail("Quarterly plan", { "Message-ID": firstId }));
    const b = await deliver(mail("A different subject altogether", { "In-Reply-To": firstId, References: firstId }));
    const [va, vb] = [await threadViews(a), await threadViews(b)];
    expect(expectOneThread(vb)).toBe(expectOneThread(va));
    const [pa, pb] = [await waitForMessage(t, a), await waitForMessage(t, b)];
    expect([pa.thread_id, pb.thread_id]).toEqual([va.row.thread_id, va.row.thread_id]);
    const thread = await t.api("GET", `/v1/threads/${va.row.thread_id}`);
    expect(thread.body.thread.message_count).toBe(2);
  });

  test("two mails of one conversation committed in one batch share one thread", async () => {
    const mailboxes = new Mailboxes(new LocalPlacement(t.service.internals.actors));
    const firstId = msgId();
    const raws = [mail("Batch start", { "Message-ID": firstId }), mail("Unrelated words", { "In-Reply-To": firstId })];
    const arrivals = await Promise.all(
      raws.map(async (raw) => {
        const bytes = new TextEncoder().encode(raw);
        return { raw: bytes, sha: await putBlob(t.service.internals.database.db, bytes) };
      }),
    );
    const envelope = { mailFrom: "ann@example.com", rcptTo: [s.agent.email_address], remoteAddress: null, heloName: null };
    // Asked in one turn, both wait in the actor's inbox together: one batch, one transaction.
    const [first, second] = await Promise.all(
      arrivals.map((a) =>
        mailboxes.receive(s.agent.id, { rawSha256: a.sha, rawSize: a.raw.byteLength, recipient: s.agent.email_address, envelope, replyToken: null, head: arrivalHead(readHead(a.raw)) }),
      ),
    );
    const [v1, v2] = [await threadViews(first!.id), await threadViews(second!.id)];
    expect(expectOneThread(v2)).toBe(expectOneThread(v1));
  });

  test("the reply alias decides the thread at arrival", async () => {
    const sent = await t.api("POST", `/v1/mailboxes/${s.agent.id}/send`, { body: { to: ["bob@example.com"], subject: "Offer", textBody: "Hello Bob" } });
    expect(sent.status).toBe(201);
    const alias = sent.body.reply_to as string;
    const res = await postInbound(t, rfc822({ From: "bob@example.com", To: alias, Subject: "Something else", "Message-ID": msgId() }), [alias]);
    expect(res.status).toBe(202);
    const v = await threadViews(res.body.message_ids[0]);
    expect(expectOneThread(v)).toBe(sent.body.message.thread_id);
  });
});

describe("every path that creates a message threads it at insert", () => {
  test("internal delivery of our own outbound mail", async () => {
    const subject = `Internal ${randomBytes(4).toString("hex")}`;
    const sent = await t.api("POST", `/v1/mailboxes/${s.agent.id}/send`, { body: { to: [s.primary.email_address], subject, textBody: "Hi" } });
    expect(sent.status).toBe(201);
    expect(sent.body.message.thread_id).toMatch(UUID);
    const arrived = await waitFor(async () => {
      const list = await t.api("GET", `/v1/mailboxes/${s.primary.id}/messages?direction=inbound`);
      return list.body.items.find((m: { subject: string }) => m.subject === subject);
    }, "internal delivery");
    expectOneThread(await threadViews(arrived.id, s.primary.id));
  });

  test("a protocol message", async () => {
    const res = await t.api("POST", "/.agent/inbox", {
      token: s.primaryKey.token,
      body: { subject: "Protocol hello", body: "Hi" },
      headers: { host: `${s.agent.protocol_host}:${new URL(t.url).port}` },
    });
    expect(res.status).toBe(201);
    expect(expectOneThread(await threadViews(res.body.id))).toBe(res.body.thread_id);
  });
});

describe("long heads are threaded and processed", () => {
  for (const n of [90, 500]) {
    test(`${n} random Cc addresses and a 10 KB subject: processed, threaded, and the next mail joins the thread`, async () => {
      const cc = randomCc(n);
      const subject = randomBytes(5000).toString("hex");
      const headers = { Cc: cc.join(",\r\n "), Subject: fold(subject) };
      const a = await deliver(mail("", headers));
      const first = await waitForMessage(t, a, ["processed"], 20_000);
      expect(first.thread_id).toMatch(UUID);
      expect(first.subject).toBe(fold(subject).replace(/\r\n/g, "")); // unfolding keeps the folding white space
      const b = await deliver(mail("", { ...headers, Subject: `Re: ${fold(subject)}` }));
      const second = await waitForMessage(t, b, ["processed"], 20_000);
      expect(second.thread_id).toBe(first.thread_id);
    }, 60_000);
  }

  test("a 5 KB Message-ID is stored and a reply naming it joins its thread", async () => {
    const long = `<${randomBytes(2500).toString("hex")}@example.com>`;
    const a = await deliver(mail("Long id", { "Message-ID": long }));
    const first = await waitForMessage(t, a, ["processed"], 20_000);
    expect(first.message_id_header).toBe(long);
    const b = await deliver(mail("Elsewhere", { "In-Reply-To": long }));
    const second = await waitFor(async () => {
      const m = (await t.api("GET", `/v1/messages/${b}`)).body.message;
      return m.status === "processed" ? m : undefined;
    }, "reply processed");
    expect(second.thread_id).toBe(first.thread_id);
  }, 60_000);
});
