/**
 * The local engine in its worker pool (src/intel/pooled.ts): the same results as the engine
 * run in-process, and a call over its budget answers the documented 503 while the pool goes
 * on serving.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../src/errors.ts";
import { extractText } from "../src/mail/extract.ts";
import { localEngine } from "../src/intel/local/index.ts";
import { PooledLocalEngine } from "../src/intel/pooled.ts";
import type { IntelMessage } from "../src/intel/types.ts";
import { FIXTURES, loadMessage } from "./intel-quality.ts";

const pooled = new PooledLocalEngine({ workers: 2, timeoutMs: 30_000 });
afterAll(() => pooled.close());

async function fixtures(count: number): Promise<IntelMessage[]> {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith(".eml")).sort().slice(0, count);
  return Promise.all(files.map((f) => loadMessage(readFileSync(join(FIXTURES, f)), f)));
}

/** A 200 KB message dense with dates, amounts and phone numbers: what made the engine slow. */
const hostileText = "On 3/4 call +44 20 7946 0958 re INV-2231 $400 by Friday 5pm, 12 Baker Street, London https://x.y/z ann@x.io.\n".repeat(1900);
const hostile = (over: Partial<IntelMessage> = {}): IntelMessage => ({
  id: "hostile",
  direction: "inbound",
  from: "pat@example.com",
  fromName: "Pat",
  to: ["me@example.org"],
  cc: [],
  subject: "Numbers",
  text: hostileText,
  date: new Date("2026-03-04T15:00:00Z"),
  ...over,
});

describe("local engine in workers", () => {
  test("extractions and summaries equal the in-process engine's on the fixtures", async () => {
    const messages = await fixtures(12);
    for (const m of messages) {
      expect(await pooled.extract(m)).toEqual(await localEngine.extract(m));
      expect(await pooled.summarize(m)).toEqual(await localEngine.summarize(m));
    }
  });

  test("a digest equals the in-process engine's", async () => {
    const messages = await fixtures(5);
    const thread = { id: "t1", subject: "Mixed", status: "open" as const, self: "me@example.org", messages };
    expect(await pooled.digest(thread)).toEqual(await localEngine.digest(thread));
  });

  test("calls at once each get their own result", async () => {
    const messages = await fixtures(6);
    const results = await Promise.all(messages.map((m) => pooled.extract(m)));
    for (const [i, m] of messages.entries()) expect(results[i]).toEqual(await localEngine.extract(m));
  });

  test("texts of messages without extracted_text are made as extractText makes them", async () => {
    const parts = [
      { text: null, html: '<p>Hello <b>there</b><span style="display:none">hidden</span></p><blockquote>old</blockquote>' },
      { text: "New words.\n\nOn Mon, 2 Mar 2026, Pat wrote:\n> old words", html: null },
      { text: null, html: null },
    ];
    expect(await pooled.extractTexts(parts)).toEqual(parts.map(extractText));
  });

  test("a hostile message extracts the same in the pool", async () => {
    const m = hostile();
    expect(await pooled.extract(m)).toEqual(await localEngine.extract(m));
  });

  test("a call over its budget, even on the bounded text, is a 503 service_unavailable; the pool then serves others", async () => {
    const tight = new PooledLocalEngine({ workers: 1, timeoutMs: 1 });
    try {
      const err = await tight.extract(hostile()).catch((e) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err.code).toBe("service_unavailable");
      expect(err.status).toBe(503);
      expect(err.headers["Retry-After"]).toBeDefined();
    } finally {
      await tight.close();
    }
    const [m] = await fixtures(1);
    expect(await pooled.extract(m!)).toEqual(await localEngine.extract(m!));
  });

  test("a closed pool answers 503", async () => {
    const closed = new PooledLocalEngine({ workers: 1, timeoutMs: 1000 });
    await closed.close();
    const err = await closed.summarize(hostile()).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe("service_unavailable");
  });
});
