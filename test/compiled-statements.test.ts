import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { Compiled, CompiledList, CompiledRows, slot, slotsOf } from "../db/compiled.ts";
import { messages, outbox } from "../db/schema/index.ts";
import { putBlob } from "../src/mail/blobs.ts";
import { seedAccount, startTestService, type TestService } from "./harness.ts";

/**
 * Statements built once (db/compiled.ts) must write and read exactly what drizzle's builder
 * does with the same values: each column's encoding (jsonb, timestamps, arrays), NULL for a
 * null, the rows mapped back the same way; and they must run on the executor given (a
 * transaction's connection, not the pool), however many times and wherever they are reused.
 */

let t: TestService;
let s: Awaited<ReturnType<typeof seedAccount>>;
beforeAll(async () => {
  t = await startTestService();
  s = await seedAccount(t);
});
afterAll(() => t.stop());

const db = () => t.service.internals.database.db;
/** What `p` fails with. (Not `expect(p).rejects`: it waits without the event loop the embedded database's thread answers through.) */
const failure = (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (err: unknown) => err);

async function message(): Promise<string> {
  const id = randomUUID();
  const raw = new TextEncoder().encode("Subject: Compiled\r\n\r\nBody.\r\n");
  const rawSha256 = await putBlob(db(), raw);
  await db().insert(messages).values({ id, mailboxId: s.agent.id, transport: "smtp", direction: "inbound", status: "received", fromAddress: "ann@example.com", toAddress: s.agent.email_address, subject: "Compiled", rawSha256, rawSize: raw.byteLength });
  return id;
}

const SET = ["auth", "headers", "references", "snippet", "processedAt", "quotedText"] as const;
type Set = Pick<typeof messages.$inferInsert, (typeof SET)[number]> & { snippet: string };
const RETURNED = { id: messages.id, auth: messages.auth, headers: messages.headers, references: messages.references, snippet: messages.snippet, processedAt: messages.processedAt, quotedText: messages.quotedText };
const update = new Compiled<Set & { id: string }, { id: string; auth: unknown; headers: unknown; references: string[]; snippet: string | null; processedAt: Date | null; quotedText: string | null }[]>((d) =>
  d.update(messages).set(slotsOf(SET)).where(eq(messages.id, slot<string>("id"))).returning(RETURNED),
);

describe("Compiled", () => {
  test("writes and returns what the builder does with the same values", async () => {
    const cases: Set[] = [
      { auth: { spf: "pass", dkim: "none", dmarc: "fail" }, headers: [{ key: "Subject", value: 'quote " and \\ and ünïcode \u2028 \ud83d\ude00' }], references: ["<a@x>", "<b@y>"], snippet: "10.5", processedAt: new Date("2026-01-02T03:04:05.678Z"), quotedText: "> earlier" },
      { auth: null, headers: [], references: [], snippet: "", processedAt: null, quotedText: null },
    ];
    for (const values of cases) {
      const [a, b] = [await message(), await message()];
      const compiled = await update.run(db(), { ...values, id: a });
      const built = await db().update(messages).set(values).where(eq(messages.id, b)).returning(RETURNED);
      expect(compiled).toHaveLength(1);
      expect({ ...compiled[0]!, id: "" }).toEqual({ ...built[0]!, id: "" });
      expect(compiled[0]!.id).toBe(a);
      // As stored: a null is NULL (not the JSON null), a string stays a string.
      const [row] = await db()
        .select({ authIsNull: sql<boolean>`${messages.auth} is null`, snippet: messages.snippet })
        .from(messages)
        .where(eq(messages.id, a));
      expect(row!.authIsNull).toBe(values.auth === null);
      expect(row!.snippet).toBe(values.snippet);
    }
  });

  test("returns nothing for no row matched, and refuses a value left undefined", async () => {
    expect(await update.run(db(), { auth: null, headers: [], references: [], snippet: "x", processedAt: null, quotedText: null, id: randomUUID() })).toEqual([]);
    const id = await message();
    expect(String(await failure(update.run(db(), { auth: null, headers: [], references: [], snippet: undefined as unknown as string, processedAt: null, quotedText: null, id })))).toContain('"snippet"');
    const [row] = await db().select({ snippet: messages.snippet }).from(messages).where(eq(messages.id, id));
    expect(row!.snippet).toBe("");
  });

  test("runs on the transaction it is given: rolled back with it, reused across transactions", async () => {
    const id = await message();
    const values = { auth: null, headers: [], references: ["<r@x>"], snippet: "in a transaction", processedAt: null, quotedText: null, id };
    let inside: string | null | undefined;
    const err = await failure(
      db().transaction(async (tx) => {
        const [row] = await update.run(tx, values);
        inside = row!.snippet;
        throw new Error("roll back");
      }),
    );
    expect(String(err)).toContain("roll back");
    expect(inside).toBe("in a transaction");
    const [after] = await db().select({ snippet: messages.snippet }).from(messages).where(eq(messages.id, id));
    expect(after!.snippet).toBe("");
    for (const word of ["first", "second"]) {
      await db().transaction(async (tx) => {
        await update.run(tx, { ...values, snippet: word });
      });
      const [row] = await db().select({ snippet: messages.snippet }).from(messages).where(eq(messages.id, id));
      expect(row!.snippet).toBe(word);
    }
  });
});

describe("CompiledRows", () => {
  const COLUMNS = ["id", "kind", "topic", "mailboxId", "payload", "doneAt"] as const;
  type Row = { id: string; kind: "event"; topic: string; mailboxId: string | null; payload: Record<string, unknown>; doneAt: Date };
  const insert = new CompiledRows<Row, (typeof outbox.$inferSelect)[]>(COLUMNS, (d, rows) => d.insert(outbox).values(rows).returning(), 4);
  // Done already, so that no job runner or relay of the service under test takes them.
  const row = (i: number): Row => ({ id: randomUUID(), kind: "event", topic: `test.compiled.${i}`, mailboxId: i % 2 ? null : s.agent.id, payload: { i, nested: { list: [i, "x"] }, text: "10.5" }, doneAt: new Date(1_700_000_000_000 + i) });

  test("inserts each batch size as the builder does, the columns left out at their defaults", async () => {
    for (const n of [1, 3, 3, 4, 9]) {
      const rows = Array.from({ length: n }, (_, i) => row(i));
      const returned = await insert.run(db(), rows);
      expect(returned.map((r) => r.id)).toEqual(rows.map((r) => r.id));
      const stored = await db().select().from(outbox).where(inArray(outbox.id, rows.map((r) => r.id)));
      expect(stored).toHaveLength(n);
      for (const r of rows) {
        const got = stored.find((x) => x.id === r.id)!;
        expect(got).toMatchObject({ kind: "event", topic: r.topic, mailboxId: r.mailboxId, payload: r.payload, doneAt: r.doneAt, attempts: 0, lastError: null });
      }
    }
  });

  test("refuses a row with a column it was not built for, or one left undefined, at any batch size, and writes nothing", async () => {
    const extra = { ...row(1), lastError: "nope" } as unknown as Row;
    expect(String(await failure(insert.run(db(), [row(0), extra])))).toContain('"lastError"');
    const missing = { ...row(2), topic: undefined } as unknown as Row;
    expect(String(await failure(insert.run(db(), [missing])))).toContain('"0:topic"');
    // The same past the sizes it builds (4 here), where the builder runs the insert.
    const many = Array.from({ length: 6 }, (_, i) => row(i));
    many[5] = { ...many[5]!, topic: undefined } as unknown as Row;
    expect(String(await failure(insert.run(db(), many)))).toContain('"5:topic"');
    const stored = await db().select().from(outbox).where(inArray(outbox.id, [extra.id, missing.id, ...many.map((r) => r.id)]));
    expect(stored).toEqual([]);
  });
});

describe("CompiledList", () => {
  const byIds = new CompiledList<string, { topic: string }, { id: string; topic: string }[]>(
    ["topic"],
    (d, ids, { topic }) => d.select({ id: outbox.id, topic: outbox.topic }).from(outbox).where(and(inArray(outbox.id, ids), eq(outbox.topic, topic))).orderBy(asc(outbox.seq)),
    4,
  );
  const stored = async (n: number, topic: string) => {
    const rows = Array.from({ length: n }, () => ({ id: randomUUID(), kind: "event" as const, topic, mailboxId: null, payload: {}, doneAt: new Date() }));
    await db().insert(outbox).values(rows);
    return rows.map((r) => r.id);
  };

  test("selects by each list length as the builder does, a longer list through the builder", async () => {
    const ids = await stored(6, "test.list.a");
    const others = await stored(2, "test.list.b");
    for (const n of [1, 3, 3, 4, 6]) {
      const asked = [...ids.slice(0, n), ...others];
      const got = await byIds.run(db(), asked, { topic: "test.list.a" });
      expect(got.map((r) => r.id)).toEqual(ids.slice(0, n));
      expect(got.every((r) => r.topic === "test.list.a")).toBe(true);
    }
  });

  test("refuses an undefined value or item, unsent", async () => {
    const [id] = await stored(1, "test.list.c");
    expect(String(await failure(byIds.run(db(), [id!], { topic: undefined as unknown as string })))).toContain('"topic"');
    expect(String(await failure(byIds.run(db(), [id!, undefined as unknown as string], { topic: "test.list.c" })))).toContain("item 1");
  });
});
