import { describe, expect, test } from "bun:test";
import { joinInTurns } from "../src/http/turns.ts";

describe("joinInTurns", () => {
  test("joins parts of any size, across the per-turn step, into a buffer of its own", async () => {
    const parts = [new Uint8Array(0), Buffer.from("head "), new Uint8Array(3 * 1024 * 1024 + 7).map((_, i) => i % 251), Buffer.from(" tail"), new Uint8Array(1024 * 1024).fill(9)];
    const joined = await joinInTurns(parts);
    expect(joined).toEqual(new Uint8Array(Buffer.concat(parts)));
    expect(joined.byteOffset).toBe(0);
    expect(joined.buffer.byteLength).toBe(joined.byteLength);
    expect(await joinInTurns([])).toEqual(new Uint8Array(0));
  });

  test("hands the event loop back while it copies megabytes: work queued meanwhile runs before it ends", async () => {
    const order: string[] = [];
    const joining = joinInTurns([new Uint8Array(4 * 1024 * 1024), new Uint8Array(4 * 1024 * 1024)]).then(() => order.push("joined"));
    setImmediate(() => order.push("other"));
    await joining;
    expect(order).toEqual(["other", "joined"]);
  });
});
