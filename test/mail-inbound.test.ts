import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { outbox } from "../db/schema/index.ts";
import { expectError, seedAccount, startTestService, type TestService, UUID } from "./harness.ts";
import { outboxRows, postInbound, rfc822, smtpSend, waitForMessage } from "./mail-support.ts";

let t: TestService;
let seed: Awaited<ReturnType<typeof seedAccount>>;
beforeAll(async () => {
  t = await startTestService();
  seed = await seedAccount(t);
});
afterAll(() => t.stop());

const smtpError = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err as { responseCode?: number; response?: string; rejectedErrors?: { responseCode?: number; response?: string }[] };
  }
  throw new Error("expected the SMTP transaction to fail");
};

describe("SMTP ingress", () => {
  test("mail to a mailbox address is stored byte for byte, parsed and listed", async () => {
    const raw = rfc822(
      { From: '"Alice Example" <alice@example.com>', To: seed.agent.email_address, Subject: "Quarterly numbers", "Message-ID": "<q1@example.com>", Date: "Sat, 21 Nov 2026 10:00:00 +0000" },
      "Hi there,\r\n\r\nCould you send the numbers by Friday?\r\n\r\n-- \r\nAlice\r\n",
    );
    const info = await smtpSend(t.service.smtpPort, { from: "alice@example.com", to: [seed.agent.email_address] }, raw);
    expect(info.accepted).toEqual([seed.agent.email_address]);
    const id = /queued as ([0-9a-f-]{36})/.exec(info.response)?.[1];
    expect(id).toMatch(UUID);

    const message = await waitForMessage(t, id!);
    expect(message).toMatchObject({
      mailbox_id: seed.agent.id,
      direction: "inbound",
      transport: "smtp",
      status: "processed",
      from_address: "alice@example.com",
      to_address: seed.agent.email_address,
      subject: "Quarterly numbers",
      message_id_header: "<q1@example.com>",
    });
    expect(message.thread_id).toMatch(UUID);
    expect(message.text_body).toContain("Could you send the numbers by Friday?");
    expect(message.extracted_text).toContain("Could you send the numbers by Friday?");
    expect(message.extracted_text).not.toContain("Alice\n");
    // The signature it left out is kept beside it.
    expect(message.quoted_text).toContain("Alice");
    expect(["low", "medium", "high"]).toContain(message.risk_level);
    expect(message.headers.slice(0, 3)).toEqual([
      { key: "From", value: '"Alice Example" <alice@example.com>' },
      { key: "To", value: seed.agent.email_address },
      { key: "Subject", value: "Quarterly numbers" },
    ]);

    const rawRes = await fetch(`${t.url}/v1/messages/${id}/raw`, { headers: { authorization: `Bearer ${seed.agentKey.token}` } });
    expect(rawRes.status).toBe(200);
    expect(rawRes.headers.get("content-type")).toContain("message/rfc822");
    expect(Buffer.from(await rawRes.arrayBuffer()).toString("latin1")).toBe(raw);

    const list = await t.api("GET", `/v1/mailboxes/${seed.agent.id}/messages`, { token: seed.agentKey.token });
    expect(list.body.items.map((m: { id: string }) => m.id)).toContain(id);
  });

  test("received and processed events are written to the outbox with the spec's payload", async () => {
    const body = "Grüße – the figures: 12 % up.\r\n\r\nBob\r\n";
    const mime = { "MIME-Version": "1.0", "Content-Type": "text/plain; charset=utf-8", "Content-Transfer-Encoding": "8bit" };
    const res = await postInbound(t, Buffer.from(rfc822({ From: "bob@example.com", To: seed.agent.email_address, Subject: "Events", ...mime }, body), "utf8"), [seed.agent.email_address]);
    const [id] = res.body.message_ids;
    const stored = await waitForMessage(t, id);
    const received = await outboxRows(t, "message.received", id);
    const processed = await outboxRows(t, "message.processed", id);
    expect(received).toHaveLength(1);
    expect(processed).toHaveLength(1);
    expect(Object.keys(processed[0]!.payload).sort()).toEqual(
      ["attachments", "direction", "from_address", "html_body", "id", "mailbox_id", "risk_level", "status", "subject", "suspicious_signals", "text_body", "thread_id", "to_address", "transport", "triage_label"].sort(),
    );
    expect(processed[0]!.payload).toMatchObject({ id, status: "processed", mailbox_id: seed.agent.id, from_address: "bob@example.com" });
    // The event's bodies are the ones stored (the update does not read them back; they are put back as written).
    expect(stored.text_body).toContain("Grüße – the figures");
    expect(processed[0]!.payload).toMatchObject({ text_body: stored.text_body, html_body: stored.html_body });
    expect(received[0]!.kind).toBe("event");
    // The processing job is done in the same commit that processed the message.
    const jobs = await t.service.internals.database.db.select().from(outbox).where(eq(outbox.kind, "mail.process"));
    const job = jobs.find((j) => (j.payload as { message_id: string }).message_id === id);
    expect(job?.doneAt).toBeInstanceOf(Date);
  });

  test("unknown recipients, other domains and disabled mailboxes are refused at RCPT with clear replies", async () => {
    const unknown = await smtpError(smtpSend(t.service.smtpPort, { from: "x@example.com", to: [`nobody@mail.localhost`] }, rfc822({ Subject: "x" })));
    expect(unknown.responseCode).toBe(550);
    expect(unknown.response).toContain("5.1.1 No such mailbox");

    const relay = await smtpError(smtpSend(t.service.smtpPort, { from: "x@example.com", to: [`someone@example.org`] }, rfc822({ Subject: "x" })));
    expect(relay.responseCode).toBe(550);
    expect(relay.response).toContain("Relaying denied");

    const other = await seedAccount(t);
    await t.api("POST", `/v1/mailboxes/${other.agent.id}/disable`);
    const disabled = await smtpError(smtpSend(t.service.smtpPort, { from: "x@example.com", to: [other.agent.email_address] }, rfc822({ Subject: "x" })));
    expect(disabled.responseCode).toBe(550);
    expect(disabled.response).toContain("Mailbox disabled");
  });

  test("a mailbox that has just taken mail is refused at RCPT as soon as it is disabled, and takes mail again as soon as it is enabled", async () => {
    // The RCPT check keeps active mailboxes for CACHE_TTL_MS; a change on this node must not wait for that.
    const other = await seedAccount(t);
    const to = [other.agent.email_address];
    const send = (subject: string) => smtpSend(t.service.smtpPort, { from: "x@example.com", to }, rfc822({ From: "x@example.com", Subject: subject }));
    expect((await send("first")).accepted).toEqual(to);
    await t.api("POST", `/v1/mailboxes/${other.agent.id}/disable`);
    const refused = await smtpError(send("while disabled"));
    expect(refused.responseCode).toBe(550);
    expect(refused.response).toContain("Mailbox disabled");
    await t.api("POST", `/v1/mailboxes/${other.agent.id}/enable`);
    expect((await send("enabled again")).accepted).toEqual(to);
  });

  test("a mailbox's sub-addresses reach it", async () => {
    const [local, domain] = seed.agent.email_address.split("@");
    const info = await smtpSend(t.service.smtpPort, { from: "x@example.com", to: [`${local}+invoices@${domain}`] }, rfc822({ From: "x@example.com", Subject: "tagged" }));
    const id = /queued as ([0-9a-f-]{36})/.exec(info.response)?.[1];
    expect((await waitForMessage(t, id!)).mailbox_id).toBe(seed.agent.id);
  });

  test("a malformed reply alias is refused at RCPT with 550", async () => {
    const [local, domain] = seed.agent.email_address.split("@");
    for (const alias of [`${local}+reply-notatoken@${domain}`, `${local}+reply-${"a".repeat(26)}@${domain}`]) {
      const err = await smtpError(smtpSend(t.service.smtpPort, { from: "x@example.com", to: [alias] }, rfc822({ Subject: "x" })));
      expect(err.responseCode).toBe(550);
      expect(err.response).toContain("Invalid reply alias");
    }
  });
});

describe("HTTP ingress", () => {
  test("answers 202 with the ids of the stored messages, one per mailbox", async () => {
    const raw = rfc822({ From: "carol@example.com", To: `${seed.agent.email_address}, ${seed.primary.email_address}`, Cc: "someone@example.org", Subject: "To both" });
    const res = await postInbound(t, raw);
    expect(res.status).toBe(202);
    expect(res.body.message_ids).toHaveLength(2);
    const mailboxes = await Promise.all(res.body.message_ids.map(async (id: string) => (await waitForMessage(t, id)).mailbox_id));
    expect(mailboxes.sort()).toEqual([seed.agent.id, seed.primary.id].sort());
  });

  test("404 for an unknown recipient, 403 for a disabled mailbox, nothing stored", async () => {
    expectError(await postInbound(t, rfc822({ Subject: "x" }), ["nobody@mail.localhost"]), 404, "not_found");
    expectError(await postInbound(t, rfc822({ Subject: "x" }), ["someone@example.org"]), 404, "not_found");
    expectError(await postInbound(t, rfc822({ To: "someone@example.org", Subject: "x" })), 404, "not_found");
    const other = await seedAccount(t);
    await t.api("POST", `/v1/mailboxes/${other.agent.id}/disable`);
    expectError(await postInbound(t, rfc822({ Subject: "x" }), [other.agent.email_address]), 403, "mailbox_disabled");
    const list = await t.api("GET", `/v1/mailboxes/${other.agent.id}/messages`);
    expect(list.body.total).toBe(0);
  });

  test("400 invalid_reply_token for an unknown token or another mailbox's token", async () => {
    const [local, domain] = seed.agent.email_address.split("@");
    expectError(await postInbound(t, rfc822({ Subject: "x" }), [`${local}+reply-${"b".repeat(26)}@${domain}`]), 400, "invalid_reply_token");
    // A real token of the primary mailbox, used with the agent's local part.
    const sent = await t.api("POST", `/v1/mailboxes/${seed.primary.id}/send`, { body: { to: ["dave@example.com"], subject: "token", textBody: "x" } });
    expect(sent.status).toBe(201);
    const token = /\+reply-([a-z2-7]{26})@/.exec(sent.body.reply_to)![1];
    expectError(await postInbound(t, rfc822({ Subject: "x" }), [`${local}+reply-${token}@${domain}`]), 400, "invalid_reply_token");
  });

  test("the body must be message/rfc822 and not empty; the admin token is required", async () => {
    expectError(await t.api("POST", "/v1/inbound/email", { body: { raw: "x" } }), 415, "unsupported_media_type");
    expectError(await postInbound(t, ""), 400, "validation_error");
    expectError(await t.api("POST", "/v1/inbound/email", { token: seed.agentKey.token, rawBody: "x", headers: { "content-type": "message/rfc822" } }), 403, "forbidden");
  });
});

describe("expired reply aliases", () => {
  let short: TestService;
  let s: Awaited<ReturnType<typeof seedAccount>>;
  beforeAll(async () => {
    // Not a member of `t`'s cluster: the mailbox's owner, which could be `t`, issues its tokens.
    short = await startTestService({ REPLY_TOKEN_TTL_SECONDS: "1", NATS_URL: "" });
    s = await seedAccount(short);
  });
  afterAll(() => short.stop());

  test("410 expired_reply_token over HTTP and 550 at RCPT over SMTP", async () => {
    const sent = await short.api("POST", `/v1/mailboxes/${s.agent.id}/send`, { body: { to: ["erin@example.com"], subject: "soon gone", textBody: "x" } });
    expect(sent.status).toBe(201);
    const alias = sent.body.reply_to;
    await Bun.sleep(1100);
    expectError(await postInbound(short, rfc822({ Subject: "late" }), [alias]), 410, "expired_reply_token");
    const err = await smtpError(smtpSend(short.service.smtpPort, { from: "erin@example.com", to: [alias] }, rfc822({ Subject: "late" })));
    expect(err.responseCode).toBe(550);
    expect(err.response).toContain("expired");
  });
});
