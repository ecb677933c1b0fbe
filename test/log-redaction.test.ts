import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Writable } from "node:stream";
import { randomBytes } from "node:crypto";
import { createLogger, MAX_LOGGED_TEXT } from "../src/log.ts";
import { accounts, suppressions } from "../db/schema/index.ts";
import { seedAccount, startTestService, type TestService } from "./harness.ts";

/** Every line the logger writes, parsed. */
function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  return { log: createLogger("info", "log-test", stream), lines };
}

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t.stop();
});

describe("logged errors never carry SQL parameters", () => {
  test("a failing insert with tenant data logs the statement, not the values", async () => {
    const s = await seedAccount(t);
    const marker = `secret-${randomBytes(8).toString("hex")}`;
    // Many addresses, as in the mail that logged 538 KB of them.
    const addresses = Array.from({ length: 2000 }, (_, i) => `${marker}-${i}@example.com`);
    const db = t.service.internals.database.db;
    let caught: unknown;
    try {
      // A duplicate primary key: the driver refuses it, with our values bound.
      await db.insert(accounts).values({ id: s.account.id, slug: marker, displayName: addresses.join(",") });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Error);
    // The driver's own error does carry the values (else this test could not fail).
    expect(JSON.stringify({ m: (caught as Error).message, p: (caught as { params?: unknown }).params })).toContain(marker);

    const { log, lines } = capture();
    log.error({ err: caught }, "insert failed");
    log.warn(caught as Error, "same error as the first argument");
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).not.toContain(marker);
      expect(line.length).toBeLessThan(12 * MAX_LOGGED_TEXT);
      const parsed = JSON.parse(line);
      expect(parsed.err.message).toContain("Failed query");
      expect(parsed.err.message).toContain("params: [not logged]");
      expect(parsed.err.query).toContain("insert into");
      expect(parsed.err.params).toBeUndefined();
      // The driver's error survives as the cause: its code says what went wrong.
      expect(parsed.err.cause.code).toBe("23505");
      expect(parsed.err.cause.params).toBeUndefined();
      expect(parsed.err.cause.parameters).toBeUndefined();
      expect(parsed.err.stack).toContain("at ");
    }
  });

  test("a unique violation's detail keeps column names and drops the values", async () => {
    const s = await seedAccount(t);
    const marker = `dup-${randomBytes(6).toString("hex")}@example.com`;
    const db = t.service.internals.database.db;
    const row = { accountId: s.account.id, address: marker, reason: "test" };
    await db.insert(suppressions).values({ id: crypto.randomUUID(), ...row });
    const caught = await db
      .insert(suppressions)
      .values({ id: crypto.randomUUID(), ...row })
      .then(() => undefined, (err: unknown) => err);
    expect(caught).toBeInstanceOf(Error);
    const { log, lines } = capture();
    log.error({ err: caught }, "insert failed");
    expect(lines[0]).not.toContain(marker);
    const detail = JSON.parse(lines[0]!).err.cause.detail as string | undefined;
    if (detail !== undefined) expect(detail).toMatch(/^Key \(.+\)=\(…\) already exists/);
  });

  test("a long message is cut, and so is a deep cause chain", () => {
    let err: Error = new Error("x".repeat(100_000));
    for (let i = 0; i < 50; i++) err = new Error(`level ${i}`, { cause: err });
    const { log, lines } = capture();
    log.error({ err }, "deep");
    expect(lines[0]!.length).toBeLessThan(20 * MAX_LOGGED_TEXT);
    expect(JSON.parse(lines[0]!).err.message).toBe("level 49");
  });

  test("parameter fields of any error are dropped, at any depth", () => {
    const { log, lines } = capture();
    const inner = Object.assign(new Error("inner"), { parameters: ["hidden-value"], args: ["hidden-value"] });
    log.error({ err: Object.assign(new Error("boom", { cause: inner }), { params: ["hidden-value"] }) }, "x");
    expect(lines[0]).not.toContain("hidden-value");
    expect(JSON.parse(lines[0]!).err.cause.message).toBe("inner");
  });
});
