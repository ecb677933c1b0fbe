import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { simpleParser } from "mailparser";
import { expectError, fieldPaths, seedAccount, sleep, startTestService, type TestService, UUID } from "./harness.ts";
import { outboxRows, postInbound, rfc822, smtpSend, startRelaySink, waitForMessage } from "./mail-support.ts";

let relayReply: { code: number; message: string } | null = null;
let relay: Awaited<ReturnType<typeof startRelaySink>>;
let t: TestService;
let seed: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  relay = await startRelaySink(() => relayReply);
  t = await startTestService({ SMTP_RELAY_URL: relay.url, DELIVERY_MAX_ATTEMPTS: "2" });
  seed = await seedAccount(t);
});
afterAll(async () => {
  await t.stop();
  await relay.close();
});

const send = (body: unknown, token = seed.agentKey.token, mailboxId = seed.agent.id) => t.api("POST", `/v1/mailboxes/${mailboxId}/send`, { token, body });
const ALIAS = (mailboxAddress: string) => {
  const [local, domain] = mailboxAddress.split("@");
  return new RegExp(`^${local!.replace(/[.+]/g, "\\$&")}\\+reply-[a-z2-7]{26}@${domain!.replace(/\./g, "\\.")}$`);
};

describe("send", () => {
  test("goes through the relay with a Message-ID and a fresh reply alias as Reply-To", async () => {
    const before = relay.received.length;
    const res = await send({ to: ["Frank@Example.com"], cc: ["grace@example.com"], bcc: ["hidden@example.com"], subject: "Proposal", textBody: "Here it is.", htmlBody: "<p>Here it is.</p>" });
    expect(res.status).toBe(201);
    expect(res.body.message).toMatchObject({ status: "sent", direction: "outbound", transport: "smtp", from_address: seed.agent.email_address, to_address: "Frank@example.com", subject: "Proposal" });
    expect(res.body.reply_to).toMatch(ALIAS(seed.agent.email_address));
    expect(res.body.provider_message_id).toBe("RELAY123");

    expect(relay.received.length).toBe(before + 1);
    const delivered = relay.received.at(-1)!;
    expect(delivered.from).toBe(seed.agent.email_address);
    expect(delivered.to.sort()).toEqual(["frank@example.com", "grace@example.com", "hidden@example.com"]);
    const parsed = await simpleParser(Buffer.from(delivered.raw));
    expect(parsed.replyTo?.text).toBe(res.body.reply_to);
    expect(parsed.messageId).toBe(res.body.message.message_id_header);
    expect(parsed.messageId).toMatch(/^<[0-9a-f-]{36}@mail\.localhost>$/);
    expect(parsed.headers.has("bcc")).toBe(false);

    // What the relay received is what we keep.
    const raw = await fetch(`${t.url}/v1/messages/${res.body.message.id}/raw`, { headers: { authorization: `Bearer ${t.admin}` } });
    expect(Buffer.from(await raw.arrayBuffer()).equals(Buffer.from(delivered.raw))).toBe(true);

    const delivery = await t.api("GET", `/v1/messages/${res.body.message.id}/delivery`);
    expect(delivery.body.events.map((e: { status: string }) => e.status)).toEqual(["queued", "sent"]);
    expect(delivery.body.events[1].detail).toContain("queued as RELAY123");
    expect(await outboxRows(t, "message.sent", res.body.message.id)).toHaveLength(1);
  });

  test("a large send (bodies staged, answer spliced, event built by the database) keeps every body whole", async () => {
    const before = relay.received.length;
    const textBody = `Dear Frank, ${"ünïcødé \" \\ \u2028 line\n".repeat(20_000)}`;
    const htmlBody = `<p>${"<b>é</b> & \"q\" ".repeat(20_000)}</p>`;
    const res = await send({ to: ["frank@example.com"], subject: "Big", textBody, htmlBody });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.body.message).toMatchObject({ status: "sent", subject: "Big", text_body: textBody, html_body: htmlBody });
    expect(res.body.reply_to).toMatch(ALIAS(seed.agent.email_address));

    const stored = await t.api("GET", `/v1/messages/${res.body.message.id}`);
    expect(stored.body.message.text_body).toBe(textBody);
    expect(stored.body.message.html_body).toBe(htmlBody);
    expect(stored.body.message.snippet).toBe(res.body.message.snippet);

    expect(relay.received.length).toBe(before + 1);
    const parsed = await simpleParser(Buffer.from(relay.received.at(-1)!.raw));
    expect(parsed.text?.replace(/\s+$/, "")).toBe(textBody.replace(/\s+$/, ""));

    const [event] = await outboxRows(t, "message.sent", res.body.message.id);
    expect(event!.payload).toEqual({
      id: res.body.message.id,
      transport: "smtp",
      mailbox_id: seed.agent.id,
      thread_id: res.body.message.thread_id,
      direction: "outbound",
      from_address: seed.agent.email_address,
      to_address: "frank@example.com",
      subject: "Big",
      status: "sent",
      risk_level: "low",
      triage_label: null,
      text_body: textBody,
      html_body: htmlBody,
      attachments: [],
      suspicious_signals: [],
    });
  });

  test("a reply to the alias lands in the same thread, even without threading headers", async () => {
    const sent = await send({ to: ["henry@example.com"], subject: "Lunch?", textBody: "Tuesday?" });
    const info = await smtpSend(t.service.smtpPort, { from: "henry@example.com", to: [sent.body.reply_to] }, rfc822({ From: "henry@example.com", To: sent.body.reply_to, Subject: "Something else entirely" }, "Yes!\r\n"));
    const id = /queued as ([0-9a-f-]{36})/.exec(info.response)![1]!;
    const reply = await waitForMessage(t, id);
    expect(reply.mailbox_id).toBe(seed.agent.id);
    expect(reply.thread_id).toBe(sent.body.message.thread_id);
  });

  test("replies by In-Reply-To and by subject within the same participants join the thread", async () => {
    const sent = await send({ to: ["ivy@example.com"], subject: "Budget 2027", textBody: "Draft attached." });
    const byHeader = await postInbound(t, rfc822({ From: "ivy@example.com", To: seed.agent.email_address, Subject: "different", "In-Reply-To": sent.body.message.message_id_header }), [seed.agent.email_address]);
    expect((await waitForMessage(t, byHeader.body.message_ids[0])).thread_id).toBe(sent.body.message.thread_id);
    const bySubject = await postInbound(t, rfc822({ From: "ivy@example.com", To: seed.agent.email_address, Subject: "RE: Fwd: Budget  2027" }), [seed.agent.email_address]);
    expect((await waitForMessage(t, bySubject.body.message_ids[0])).thread_id).toBe(sent.body.message.thread_id);
    const stranger = await postInbound(t, rfc822({ From: "mallory@example.com", To: seed.agent.email_address, Subject: "Re: Budget 2027" }), [seed.agent.email_address]);
    expect((await waitForMessage(t, stranger.body.message_ids[0])).thread_id).not.toBe(sent.body.message.thread_id);
  });

  test("validation comes first: addresses are checked strictly, with field paths", async () => {
    for (const bad of ["not-an-address", "a@b", "x@example.com\r\nBcc: y@example.com", "\"quoted\"@example.com", "a@[127.0.0.1]"]) {
      const res = await send({ to: [bad], subject: "x", textBody: "x" });
      expectError(res, 400, "validation_error");
      expect(fieldPaths(res)).toContain("body.to.0");
    }
    expectError(await send({ to: [], subject: "x", textBody: "x" }), 400, "validation_error");
    expectError(await send({ to: ["a@example.com"], textBody: "x" }), 400, "validation_error");
    expectError(await send({ to: ["a@example.com"], subject: "x" }), 400, "validation_error");
    const header = await send({ to: ["a@example.com"], subject: "x\r\nBcc: y@example.com", textBody: "x" });
    expectError(header, 400, "validation_error");
    expect(fieldPaths(header)).toContain("body.subject");
  });
});

describe("the order of the send checks", () => {
  test("suppression 409 beats disabled, outbound_disabled and a used-up window; each then applies in turn", async () => {
    const s = await seedAccount(t);
    const key = s.agentKey.token;
    await t.api("POST", `/v1/accounts/${s.account.id}/suppressions`, { body: { address: "Blocked@Example.com" } });
    await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { body: { max_outbound_per_day: 1 } });
    expect((await send({ to: ["ok@example.com"], subject: "1", textBody: "x" }, key, s.agent.id)).status).toBe(201);

    // Window used up, sending disabled by policy, mailbox disabled: the suppressed address still wins.
    await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { body: { allow_outbound: false } });
    await t.api("POST", `/v1/mailboxes/${s.agent.id}/disable`);
    const suppressed = await send({ to: ["ok@example.com"], bcc: ["blocked@example.com"], subject: "2", textBody: "x" }, key, s.agent.id);
    expectError(suppressed, 409, "address_suppressed");
    expect(suppressed.body.error.details.address).toBe("blocked@example.com");
    // An invalid address is still a 400 before the suppression list.
    expectError(await send({ to: ["blocked@example.com", "bad"], subject: "2", textBody: "x" }, key, s.agent.id), 400, "validation_error");

    expectError(await send({ to: ["ok@example.com"], subject: "3", textBody: "x" }, key, s.agent.id), 403, "mailbox_disabled");
    await t.api("POST", `/v1/mailboxes/${s.agent.id}/enable`);
    expectError(await send({ to: ["ok@example.com"], subject: "4", textBody: "x" }, key, s.agent.id), 403, "outbound_disabled");
    await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { body: { allow_outbound: true } });
    const limited = await send({ to: ["ok@example.com"], subject: "5", textBody: "x" }, key, s.agent.id);
    expectError(limited, 429, "rate_limit_exceeded");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { body: { max_outbound_per_day: 2 } });
    expect((await send({ to: ["ok@example.com"], subject: "6", textBody: "x" }, key, s.agent.id)).status).toBe(201);
  });

  test("the send window survives a restart of the actor (it is rebuilt from the stored sends)", async () => {
    const s = await seedAccount(t);
    await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { body: { max_outbound_per_day: 1 } });
    expect((await send({ to: ["ok@example.com"], subject: "1", textBody: "x" }, s.agentKey.token, s.agent.id)).status).toBe(201);
    // Another value and back rebuilds the window from the database.
    await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { body: { max_outbound_per_day: 5 } });
    await t.api("PUT", `/v1/mailboxes/${s.agent.id}/policy`, { body: { max_outbound_per_day: 1 } });
    expectError(await send({ to: ["ok@example.com"], subject: "2", textBody: "x" }, s.agentKey.token, s.agent.id), 429, "rate_limit_exceeded");
  });
});

describe("reply", () => {
  test("answers the sender in the same thread with In-Reply-To and References", async () => {
    const inbound = await postInbound(
      t,
      rfc822({ From: "Jack <jack@example.com>", "Reply-To": "jack.replies@example.com", To: seed.agent.email_address, Subject: "Question", "Message-ID": "<jack-1@example.com>", References: "<jack-0@example.com>" }),
      [seed.agent.email_address],
    );
    const original = await waitForMessage(t, inbound.body.message_ids[0]);
    const res = await t.api("POST", `/v1/messages/${original.id}/reply`, { token: seed.agentKey.token, body: { textBody: "Answer." } });
    expect(res.status).toBe(201);
    expect(res.body.message).toMatchObject({ subject: "Re: Question", to_address: "jack.replies@example.com", thread_id: original.thread_id, status: "sent" });
    expect(res.body.reply_to).toMatch(ALIAS(seed.agent.email_address));
    const parsed = await simpleParser(Buffer.from(relay.received.at(-1)!.raw));
    expect(parsed.inReplyTo).toBe("<jack-1@example.com>");
    expect(parsed.references).toEqual(["<jack-0@example.com>", "<jack-1@example.com>"]);
  });

  test("400 reply_not_supported for a message with no one to answer; 404 for an unknown message", async () => {
    const inbound = await postInbound(t, rfc822({ To: seed.agent.email_address, Subject: "anonymous" }), [seed.agent.email_address]);
    const original = await waitForMessage(t, inbound.body.message_ids[0]);
    expectError(await t.api("POST", `/v1/messages/${original.id}/reply`, { body: { textBody: "?" } }), 400, "reply_not_supported");
    expectError(await t.api("POST", `/v1/messages/${crypto.randomUUID()}/reply`, { body: { textBody: "?" } }), 404, "not_found");
  });
});

describe("drafts", () => {
  test("a draft sends through the same checks and is removed when sent", async () => {
    const draft = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/drafts`, { body: { to: ["kim@example.com"], subject: "From a draft", textBody: "Hello Kim" } });
    const res = await t.api("POST", `/v1/drafts/${draft.body.draft.id}/send`, { token: seed.agentKey.token });
    expect(res.status).toBe(201);
    expect(res.body.message).toMatchObject({ status: "sent", subject: "From a draft", to_address: "kim@example.com" });
    expectError(await t.api("GET", `/v1/drafts/${draft.body.draft.id}`), 404, "not_found");

    const empty = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/drafts`, { body: { subject: "nobody" } });
    const refused = await t.api("POST", `/v1/drafts/${empty.body.draft.id}/send`);
    expectError(refused, 400, "validation_error");
    expect((await t.api("GET", `/v1/drafts/${empty.body.draft.id}`)).status).toBe(200);

    await t.api("POST", `/v1/accounts/${seed.account.id}/suppressions`, { body: { address: "lee@example.com" } });
    const suppressed = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/drafts`, { body: { to: ["lee@example.com"], subject: "no", textBody: "no" } });
    expectError(await t.api("POST", `/v1/drafts/${suppressed.body.draft.id}/send`), 409, "address_suppressed");
  });
});

describe("relay failures", () => {
  test("a temporary failure is retried and reported; a permanent one fails at once", async () => {
    relayReply = { code: 451, message: "4.3.0 try later" };
    const res = await send({ to: ["retry@example.com"], subject: "retry", textBody: "x" });
    expect(res.status).toBe(201);
    expect(res.body.message.status).toBe("queued");
    relayReply = null;
    const sent = await waitForMessage(t, res.body.message.id, ["sent", "failed"], 15_000);
    expect(sent.status).toBe("sent");
    const events = (await t.api("GET", `/v1/messages/${res.body.message.id}/delivery`)).body.events;
    expect(events.map((e: { status: string }) => e.status)).toEqual(["queued", "retrying", "sent"]);
    expect(events[1].detail).toContain("try later");

    relayReply = { code: 550, message: "5.1.1 no such user" };
    const bounced = await send({ to: ["nouser@example.com"], subject: "bounce", textBody: "x" });
    relayReply = null;
    expect(bounced.body.message.status).toBe("failed");
    const failed = (await t.api("GET", `/v1/messages/${bounced.body.message.id}/delivery`)).body.events;
    expect(failed.map((e: { status: string }) => e.status)).toEqual(["queued", "failed"]);
    expect(failed[1].detail).toContain("no such user");
    expect(await outboxRows(t, "message.sent", bounced.body.message.id)).toHaveLength(0);
  });

  test("after the last attempt a temporary failure becomes failed", async () => {
    relayReply = { code: 421, message: "4.7.0 go away" };
    const res = await send({ to: ["never@example.com"], subject: "never", textBody: "x" });
    const done = await waitForMessage(t, res.body.message.id, ["sent", "failed"], 15_000);
    relayReply = null;
    expect(done.status).toBe("failed");
    const events = (await t.api("GET", `/v1/messages/${res.body.message.id}/delivery`)).body.events;
    expect(events.map((e: { status: string }) => e.status)).toEqual(["queued", "retrying", "failed"]);
  });
});

describe("without a relay", () => {
  let local: TestService;
  beforeAll(async () => {
    local = await startTestService();
  });
  afterAll(() => local.stop());

  test("mail to our own addresses goes through the inbound pipeline; other mail stays in the local outbox", async () => {
    const a = await seedAccount(local);
    const b = await seedAccount(local);
    const res = await local.api("POST", `/v1/mailboxes/${a.agent.id}/send`, { body: { to: [b.agent.email_address, "outside@example.com"], subject: "Internal hello", textBody: "Hi B" } });
    expect(res.status).toBe(201);
    expect(res.body.message.status).toBe("sent");
    const events = (await local.api("GET", `/v1/messages/${res.body.message.id}/delivery`)).body.events;
    expect(events[1].detail).toContain("delivered internally");
    expect(events[1].detail).toContain("local outbox");

    let arrived: any;
    for (let i = 0; i < 200 && !arrived; i++) {
      const list = await local.api("GET", `/v1/mailboxes/${b.agent.id}/messages`);
      arrived = list.body.items.find((m: { subject: string }) => m.subject === "Internal hello");
      if (!arrived) await sleep(25);
    }
    expect(arrived).toBeDefined();
    const message = await waitForMessage(local, arrived.id);
    expect(message.from_address).toBe(a.agent.email_address);
    expect(message.id).toMatch(UUID);

    // B answers; the reply goes to A's alias and lands in A's thread.
    const answer = await local.api("POST", `/v1/messages/${message.id}/reply`, { body: { textBody: "Hi A" } });
    expect(answer.status).toBe(201);
    expect(answer.body.message.to_address).toBe(res.body.reply_to);
    let back: any;
    for (let i = 0; i < 200 && !back; i++) {
      const list = await local.api("GET", `/v1/mailboxes/${a.agent.id}/messages?direction=inbound`);
      back = list.body.items.find((m: { subject: string }) => m.subject === "Re: Internal hello");
      if (!back) await sleep(25);
    }
    expect((await waitForMessage(local, back.id)).thread_id).toBe(res.body.message.thread_id);
  });
});
