import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { Mailboxes } from "../actors/mailbox/client.ts";
import { LocalPlacement } from "../actors/runtime/index.ts";
import { attachments, messages } from "../db/schema/index.ts";
import { putBlob } from "../src/mail/blobs.ts";
import { storeContent } from "../src/mail/content.ts";
import type { ProcessedMail } from "../src/mail/types.ts";
import { seedAccount, startTestService, type TestService } from "./harness.ts";
import { outboxRows, rfc822, smtpSend, waitForMessage } from "./mail-support.ts";

/**
 * Processing writes a message's content (texts, headers, sender, subject: what its full-text
 * vector is made of) from the job, before the mailbox's actor applies the rest
 * (src/mail/content.ts). These tests pin the split: the actor leaves stored content alone,
 * writes it itself when told it is not stored, and stored content never changes once the
 * message is processed.
 */

let t: TestService;
let s: Awaited<ReturnType<typeof seedAccount>>;
let mailboxes: Mailboxes;
beforeAll(async () => {
  t = await startTestService();
  s = await seedAccount(t);
  mailboxes = new Mailboxes(new LocalPlacement(t.service.internals.actors));
});
afterAll(() => t.stop());

const db = () => t.service.internals.database.db;

/** A received message with no processing job: the test runs its processing by hand. */
async function receivedMessage(): Promise<string> {
  const raw = new TextEncoder().encode(rfc822({ From: "ann@example.com", To: s.agent.email_address, Subject: "Stored by hand" }, "Body.\r\n"));
  const sha = await putBlob(db(), raw);
  const id = randomUUID();
  await db().insert(messages).values({
    id,
    mailboxId: s.agent.id,
    transport: "smtp",
    direction: "inbound",
    status: "received",
    fromAddress: "ann@example.com",
    toAddress: s.agent.email_address,
    subject: "Stored by hand",
    rawSha256: sha,
    rawSize: raw.byteLength,
  });
  return id;
}

function result(word: string, files: string[] = []): ProcessedMail {
  return {
    headers: [{ key: "Subject", value: `About ${word}` }],
    messageIdHeader: null,
    inReplyTo: null,
    references: [],
    subject: `About ${word}`,
    fromAddress: `${word}@example.com`,
    toAddresses: [s.agent.email_address],
    ccAddresses: [],
    replyTo: [],
    textBody: `The text says ${word}.`,
    htmlBody: null,
    extractedText: `The text says ${word}.`,
    snippet: `The text says ${word}.`,
    attachments: files.map((filename) => ({ filename, mimeType: "text/plain", size: 5, contentId: null, sha256: null, rawOffset: 0, rawLength: 5, transferEncoding: "identity" as const })),
    assessment: { riskLevel: "low", triageLabel: "fyi", signals: [], auth: { spf: "none", dkim: "none", dmarc: "none" }, autoReplyBlocked: false },
  };
}

async function row(id: string) {
  const [r] = await db()
    .select({ status: messages.status, subject: messages.subject, fromAddress: messages.fromAddress, textBody: messages.textBody, headers: messages.headers, processedAt: messages.processedAt })
    .from(messages)
    .where(eq(messages.id, id));
  return r!;
}

/** Whether the message's full-text vector holds `word` (the generated column of migration 0006). */
async function indexed(id: string, word: string): Promise<boolean> {
  const res = await db().execute(sql`select search_tsv @@ to_tsquery('english', ${word}) as hit from messages where id = ${id}`);
  const rows = (Array.isArray(res) ? res : (res as { rows: unknown[] }).rows) as { hit: boolean }[];
  return rows[0]!.hit;
}

describe("a processed message's content", () => {
  test("stored before the actor applies the result: the actor marks it processed and leaves the content as stored", async () => {
    const id = await receivedMessage();
    await storeContent(db(), id, result("alpha"), "");
    expect(await row(id)).toMatchObject({ status: "received", subject: "About alpha", fromAddress: "alpha@example.com", textBody: "The text says alpha." });
    expect(await indexed(id, "alpha")).toBe(true);

    // A different result with contentStored: the actor's update sets none of the content columns.
    const applied = await mailboxes.applyProcessed(s.agent.id, { messageId: id, jobId: null, tokenThreadId: null, result: result("beta"), contentStored: true });
    expect(applied.id).toBe(id);
    const after = await row(id);
    expect(after).toMatchObject({ status: "processed", subject: "About alpha", fromAddress: "alpha@example.com", textBody: "The text says alpha." });
    expect(after.headers).toEqual([{ key: "Subject", value: "About alpha" }]);
    expect(after.processedAt).not.toBeNull();
    expect(await indexed(id, "alpha")).toBe(true);
    expect(await indexed(id, "beta")).toBe(false);
  });

  test("not stored beforehand (contentStored absent): the actor writes it with the rest", async () => {
    const id = await receivedMessage();
    await mailboxes.applyProcessed(s.agent.id, { messageId: id, jobId: null, tokenThreadId: null, result: result("gamma") });
    expect(await row(id)).toMatchObject({ status: "processed", subject: "About gamma", fromAddress: "gamma@example.com", textBody: "The text says gamma." });
    expect(await indexed(id, "gamma")).toBe(true);
  });

  test("a late or repeated store leaves a processed message as it is", async () => {
    const id = await receivedMessage();
    await storeContent(db(), id, result("delta"), "");
    await mailboxes.applyProcessed(s.agent.id, { messageId: id, jobId: null, tokenThreadId: null, result: result("delta"), contentStored: true });
    // A second run of the job (or a node that lost its lease) comes after: nothing changes.
    await storeContent(db(), id, result("epsilon"), "");
    expect(await row(id)).toMatchObject({ status: "processed", subject: "About delta", textBody: "The text says delta." });
    expect(await indexed(id, "epsilon")).toBe(false);
    // And applied twice, the message stays as the first application left it, texts included.
    const again = await mailboxes.applyProcessed(s.agent.id, { messageId: id, jobId: null, tokenThreadId: null, result: result("epsilon"), contentStored: true });
    expect(again).toMatchObject({ id, subject: "About delta", textBody: "The text says delta." });
  });

  test("the store reads the sender's disposition in the account of the message, in the same statement", async () => {
    const made = await t.api("POST", `/v1/accounts/${s.account.id}/sender-profiles`, { body: { address: "Pest@Spam.example", disposition: "blocked" } });
    expect(made.status).toBe(201);
    // Another account's word about the same sender does not count here.
    const other = await seedAccount(t);
    await t.api("POST", `/v1/accounts/${other.account.id}/sender-profiles`, { body: { address: "friend@example.com", disposition: "trusted" } });
    expect(await storeContent(db(), await receivedMessage(), result("zeta"), "PEST@spam.example")).toBe("blocked");
    expect(await storeContent(db(), await receivedMessage(), result("eta"), "friend@example.com")).toBe("neutral");
    expect(await storeContent(db(), await receivedMessage(), result("theta"), "")).toBe("neutral");
    // Nothing written (processed already, or gone): nothing read either; the job reads it apart.
    const done = await receivedMessage();
    await storeContent(db(), done, result("iota"), "");
    await mailboxes.applyProcessed(s.agent.id, { messageId: done, jobId: null, tokenThreadId: null, result: result("iota"), contentStored: true });
    expect(await storeContent(db(), done, result("kappa"), "pest@spam.example")).toBeUndefined();
    expect(await storeContent(db(), randomUUID(), result("lambda"), "pest@spam.example")).toBeUndefined();
  });

  test("mail through SMTP is processed with its content stored and searchable", async () => {
    const raw = rfc822({ From: "zed@example.com", To: s.agent.email_address, Subject: "Pelican report", "Message-ID": `<${randomUUID()}@example.com>` }, "The pelicans arrived on Tuesday.\r\n");
    const info = await smtpSend(t.service.smtpPort, { from: "zed@example.com", to: [s.agent.email_address] }, raw);
    const id = /queued as ([0-9a-f-]{36})/.exec(info.response)![1]!;
    const message = await waitForMessage(t, id);
    expect(message).toMatchObject({ status: "processed", subject: "Pelican report", from_address: "zed@example.com" });
    expect(message.text_body).toContain("The pelicans arrived on Tuesday.");
    expect(await indexed(id, "pelican")).toBe(true);
  });

  test("results applied in one batch: each message gets its own attachments and one processed event; one message twice is processed once", async () => {
    const [a, b] = [await receivedMessage(), await receivedMessage()];
    await storeContent(db(), a, result("one", ["a1.txt", "a2.txt"]), "");
    await storeContent(db(), b, result("two", ["b1.txt"]), "");
    // Asked in one turn, they wait in the actor's inbox together and are applied as one batch.
    const applied = await Promise.all([
      mailboxes.applyProcessed(s.agent.id, { messageId: a, jobId: null, tokenThreadId: null, result: result("one", ["a1.txt", "a2.txt"]), contentStored: true }),
      mailboxes.applyProcessed(s.agent.id, { messageId: b, jobId: null, tokenThreadId: null, result: result("two", ["b1.txt"]), contentStored: true }),
    ]);
    expect(applied.map((m) => m.id)).toEqual([a, b]);
    const files = async (id: string) =>
      (await db().select({ filename: attachments.filename, position: attachments.position }).from(attachments).where(eq(attachments.messageId, id))).sort((x, y) => x.position - y.position).map((r) => r.filename);
    expect(await files(a)).toEqual(["a1.txt", "a2.txt"]);
    expect(await files(b)).toEqual(["b1.txt"]);
    expect(await outboxRows(t, "message.processed", a)).toHaveLength(1);
    expect(await outboxRows(t, "message.processed", b)).toHaveLength(1);
    const event = (await outboxRows(t, "message.processed", a))[0]!.payload as { attachments: { filename: string }[]; text_body?: string };
    expect(event.attachments.map((x) => x.filename)).toEqual(["a1.txt", "a2.txt"]);
    expect(await row(b)).toMatchObject({ status: "processed", textBody: "The text says two." });

    // The same message twice in one batch (a job that ran twice): processed once.
    const c = await receivedMessage();
    await storeContent(db(), c, result("three", ["c1.txt"]), "");
    const twice = await Promise.all([0, 1].map(() => mailboxes.applyProcessed(s.agent.id, { messageId: c, jobId: null, tokenThreadId: null, result: result("three", ["c1.txt"]), contentStored: true })));
    expect(twice.map((m) => m.id)).toEqual([c, c]);
    expect(await files(c)).toEqual(["c1.txt"]);
    expect(await outboxRows(t, "message.processed", c)).toHaveLength(1);
  });
});
