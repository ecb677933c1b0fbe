/**
 * A small message's raw bytes go with its arrival to the mailbox's actor and are stored in the
 * transaction that records it; a larger one's are written first, apart (src/mail/ingest.ts
 * INLINE_RAW_MAX). Either way the raw download is the bytes received, a message to several
 * mailboxes is stored once, and nothing that got its 250 or 202 lacks its bytes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import type { Mailboxes } from "../actors/mailbox/client.ts";
import type { Arrival as ArrivalCommand } from "../actors/mailbox/types.ts";
import { rowsOf } from "../db/migrate.ts";
import { messages } from "../db/schema/index.ts";
import { sha256Hex, type BlobItem } from "../src/mail/blobs.ts";
import { INLINE_RAW_MAX, Ingest } from "../src/mail/ingest.ts";
import type { Recipient } from "../src/mail/recipients.ts";
import { seedAccount, startTestService, type TestService } from "./harness.ts";
import { postInbound, rfc822, waitForMessage } from "./mail-support.ts";

/** A message of exactly `size` bytes. */
function messageOf(size: number, to: string, tag: string): Uint8Array {
  const head = rfc822({ From: "ann@example.com", To: to, Subject: `inline ${tag}`, "Message-ID": `<${tag}@example.com>` }, "");
  const line = "All work and no play makes a dull message.\r\n";
  let body = line.repeat(Math.ceil(size / line.length));
  body = body.slice(0, size - head.length - 2) + "\r\n";
  const raw = new TextEncoder().encode(head + body);
  expect(raw.byteLength).toBe(size);
  return raw;
}

describe("which way a raw message is stored (Ingest, with the actors faked)", () => {
  const recipient = (mailboxId: string): Recipient => ({ address: `${mailboxId}@mail.test`, mailboxId, replyToken: null });

  function ingestWith() {
    const writes: BlobItem[][] = [];
    const received: ArrivalCommand[] = [];
    const receive = async (_mailboxId: string, cmd: ArrivalCommand) => {
      received.push(cmd);
      return { id: `m${received.length}` };
    };
    const mailboxes = { receive, followUp: { receive } } as unknown as Mailboxes;
    const ingest = new Ingest({} as never, mailboxes, () => {}, undefined, {
      write: async (items) => {
        writes.push(items);
      },
    });
    return { ingest, writes, received };
  }

  test("up to INLINE_RAW_MAX bytes, the first mailbox's copy carries them and nothing is written apart", async () => {
    const { ingest, writes, received } = ingestWith();
    const raw = messageOf(INLINE_RAW_MAX, "a@mail.test", "small");
    const { ids } = await ingest.accept({ raw, mailFrom: "ann@example.com", recipients: [recipient("a"), recipient("b"), recipient("a")], remoteAddress: null, heloName: null });
    expect(ids).toEqual(["m1", "m2"]);
    expect(writes).toEqual([]);
    // The second copy is recorded only once the first has committed, bytes and all.
    expect(received.map((c) => c.raw)).toEqual([raw, undefined]);
    expect(received.map((c) => [c.rawSha256, c.rawSize])).toEqual([
      [sha256Hex(raw), raw.byteLength],
      [sha256Hex(raw), raw.byteLength],
    ]);
  });

  test("a byte more, and the bytes are written first, once, and no copy carries them", async () => {
    const { ingest, writes, received } = ingestWith();
    const raw = messageOf(INLINE_RAW_MAX + 1, "a@mail.test", "large");
    await ingest.accept({ raw, mailFrom: null, recipients: [recipient("a"), recipient("b")], remoteAddress: null, heloName: null });
    expect(writes.length).toBe(1);
    expect(writes[0]!.map((w) => [w.sha256, w.bytes])).toEqual([[sha256Hex(raw), raw]]);
    expect(received.map((c) => c.raw)).toEqual([undefined, undefined]);
    expect(received.every((c) => c.rawSha256 === sha256Hex(raw))).toBe(true);
  });
});

describe("small and large mail through the service", () => {
  let t: TestService;
  let s: Awaited<ReturnType<typeof seedAccount>>;
  beforeAll(async () => {
    t = await startTestService();
    s = await seedAccount(t);
  });
  afterAll(() => t.stop());

  const db = () => t.service.internals.database.db;
  const rawOf = async (id: string) => {
    const res = await fetch(`${t.url}/v1/messages/${id}/raw`, { headers: { authorization: `Bearer ${t.admin}` } });
    expect(res.status).toBe(200);
    return new Uint8Array(await res.arrayBuffer());
  };

  for (const [label, size] of [
    ["a small message", 2 * 1024],
    ["a message just over INLINE_RAW_MAX (written apart on PostgreSQL)", INLINE_RAW_MAX + 512],
  ] as const) {
    test(`${label} to two mailboxes: both copies processed, each raw download the bytes sent, the bytes stored once`, async () => {
      const tag = `${label.replace(/\W+/g, "-")}-${crypto.randomUUID()}`;
      const raw = messageOf(size, s.primary.email_address, tag);
      const res = await postInbound(t, raw, [s.primary.email_address, s.agent.email_address]);
      expect(res.status).toBe(202);
      const ids = res.body.message_ids as string[];
      expect(ids.length).toBe(2);
      for (const id of ids) {
        await waitForMessage(t, id);
        expect(Buffer.compare(Buffer.from(await rawOf(id)), Buffer.from(raw))).toBe(0);
      }
      const sha = sha256Hex(raw);
      const counted = rowsOf<{ n: number }>(await db().execute(sql`select count(*)::int as n from blobs where sha256 = ${sha} and size = ${raw.byteLength}`));
      expect(counted).toEqual([{ n: 1 }]);
      const rows = await db().select({ rawSha256: messages.rawSha256, rawSize: messages.rawSize }).from(messages).where(eq(messages.rawSha256, sha));
      expect(rows).toEqual([
        { rawSha256: sha, rawSize: raw.byteLength },
        { rawSha256: sha, rawSize: raw.byteLength },
      ]);
    });
  }

  test("a burst of small messages to one mailbox, stored in the arrivals' group commits: every one processed with its own bytes", async () => {
    const raws = Array.from({ length: 24 }, (_, i) => messageOf(1024 + i * 37, s.agent.email_address, `burst-${i}-${crypto.randomUUID()}`));
    const answers = await Promise.all(raws.map((raw) => postInbound(t, raw, [s.agent.email_address])));
    expect(answers.map((a) => a.status)).toEqual(raws.map(() => 202));
    for (const [i, a] of answers.entries()) {
      const id = (a.body.message_ids as string[])[0]!;
      await waitForMessage(t, id);
      expect(Buffer.compare(Buffer.from(await rawOf(id)), Buffer.from(raws[i]!))).toBe(0);
    }
  });
});
