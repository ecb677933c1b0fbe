import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { outbox } from "../db/schema/index.ts";
import { wellFormedJson } from "../db/schema/json.ts";
import { startTestService, type TestService } from "./harness.ts";

describe("wellFormedJson", () => {
  test("a lone surrogate in a value or a key becomes U+FFFD; pairs and escaped backslashes stay", () => {
    expect(JSON.parse(wellFormedJson({ a: "x\ud800y", b: ["\udc00"] }))).toEqual({ a: "x\ufffdy", b: ["\ufffd"] });
    expect(JSON.parse(wellFormedJson({ ["k\ud83d"]: 1 }))).toEqual({ ["k\ufffd"]: 1 });
    expect(wellFormedJson({ a: "😀", b: "\\ud800" })).toBe(JSON.stringify({ a: "😀", b: "\\ud800" }));
  });
});

describe("jsonb columns", () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    await t?.stop();
  });

  // A summary cut inside a surrogate pair used to fail its write with a 500 (PostgreSQL refuses
  // `\ud83d` in jsonb); every jsonb column now stores the replacement character instead.
  test("a value cut inside a surrogate pair is stored, with U+FFFD in place of the half", async () => {
    const db = t.service.internals.database.db;
    const id = randomUUID();
    const cut = "smile 😀".slice(0, -1);
    await db.insert(outbox).values({ id, kind: "event", topic: "test.jsonb", payload: { text: cut, [cut]: true }, doneAt: new Date() });
    const [row] = await db.select({ payload: outbox.payload }).from(outbox).where(eq(outbox.id, id));
    expect(row!.payload).toEqual({ text: "smile \ufffd", ["smile \ufffd"]: true });
  });
});
