import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { processedEventsInsert } from "../actors/mailbox/inbound.ts";
import { rowsOf } from "../db/migrate.ts";
import { putBlob } from "../src/mail/blobs.ts";
import { seedAccount, startTestService, type TestService } from "./harness.ts";

/**
 * The `message.processed` events of a batch are inserted by one statement that reads each
 * message's row by its key. Joined plainly to the batch's JSON array, the planner hashed the
 * batch against a scan of the whole `messages` table while the table held a few thousand rows:
 * every batch read every message, and an ingest burst grew slower as the table grew.
 */

let t: TestService;
let s: Awaited<ReturnType<typeof seedAccount>>;
beforeAll(async () => {
  t = await startTestService();
  s = await seedAccount(t);
});
afterAll(() => t.stop());

const db = () => t.service.internals.database.db;

test("a batch's processed events read each message by its key, whatever the table holds, and come out in batch order", async () => {
  const raw = new TextEncoder().encode("Subject: Plan\r\n\r\nBody.\r\n");
  const rawSha256 = await putBlob(db(), raw);
  // A table of a few thousand messages, as a mailbox has after a day of mail, with fresh statistics.
  await db().execute(sql`
    insert into messages (id, mailbox_id, transport, direction, status, from_address, subject, text_body, raw_sha256, raw_size)
    select gen_random_uuid(), ${s.agent.id}::uuid, 'smtp', 'inbound', 'processed', 'ann@example.com', 'Row ' || i, 'Body ' || i, ${rawSha256}, ${raw.byteLength}
    from generate_series(1, 4000) i`);
  await db().execute(sql`analyze messages`);
  const ids = rowsOf<{ id: string; subject: string }>(await db().execute(sql`select id, subject from messages where mailbox_id = ${s.agent.id}::uuid order by subject desc limit 3`));
  const items = ids.map((m) => ({ id: randomUUID(), message_id: m.id, attachments: [], payload: null }));

  const plan = rowsOf<{ "QUERY PLAN": string }>(await db().execute(sql`explain ${processedEventsInsert(items)}`))
    .map((r) => r["QUERY PLAN"])
    .join("\n");
  expect(plan).toMatch(/Index Scan using messages_pkey on messages/);
  expect(plan).not.toMatch(/Seq Scan on messages/);

  await db().execute(processedEventsInsert(items));
  const events = rowsOf<{ id: string; mailbox_id: string; payload: { id: string; subject: string; text_body: string } }>(
    await db().execute(sql`select id, mailbox_id, payload from outbox where topic = 'message.processed' and id = any(${`{${items.map((i) => i.id).join(",")}}`}::uuid[]) order by seq`),
  );
  expect(events.map((e) => e.id)).toEqual(items.map((i) => i.id));
  expect(events.map((e) => e.payload.id)).toEqual(ids.map((m) => m.id));
  expect(events.map((e) => e.payload.subject)).toEqual(ids.map((m) => m.subject));
  expect(events.every((e) => e.mailbox_id === s.agent.id && e.payload.text_body === `Body ${e.payload.subject.slice(4)}`)).toBe(true);
});
