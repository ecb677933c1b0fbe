import { describe, expect, test } from "bun:test";
import { RecentRaw } from "../src/mail/recent-raw.ts";

const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill);

describe("RecentRaw", () => {
  test("returns what was put, by key", () => {
    const r = new RecentRaw(100);
    const a = bytes(10);
    r.put("a", a);
    expect(r.get("a")).toBe(a);
    expect(r.get("b")).toBeUndefined();
    expect(r.size).toBe(10);
  });

  test("evicts the oldest entries once over its byte bound", () => {
    const r = new RecentRaw(100);
    r.put("a", bytes(40));
    r.put("b", bytes(40));
    r.put("c", bytes(40));
    expect(r.get("a")).toBeUndefined();
    expect(r.get("b")).toBeDefined();
    expect(r.get("c")).toBeDefined();
    expect(r.size).toBe(80);
  });

  test("putting a key again refreshes it instead of counting it twice", () => {
    const r = new RecentRaw(100);
    r.put("a", bytes(40));
    r.put("b", bytes(40));
    r.put("a", bytes(40, 2));
    expect(r.size).toBe(80);
    r.put("c", bytes(40));
    expect(r.get("b")).toBeUndefined();
    expect(r.get("a")?.[0]).toBe(2);
  });

  test("an entry larger than the bound is not kept and evicts nothing", () => {
    const r = new RecentRaw(100);
    r.put("a", bytes(50));
    r.put("huge", bytes(101));
    expect(r.get("huge")).toBeUndefined();
    expect(r.get("a")).toBeDefined();
  });
});
