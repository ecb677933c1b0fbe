import { describe, expect, test } from "bun:test";
import { StatementChoice } from "../db/prepared.ts";

describe("which statements go prepared (db/prepared.ts)", () => {
  test("a text is prepared from its second use on, and stays prepared", () => {
    const choice = new StatementChoice();
    expect(choice.prepare("select $1")).toBe(false);
    expect(choice.prepare("select $1")).toBe(true);
    expect(choice.prepare("select $1")).toBe(true);
    expect(choice.prepare("select $2")).toBe(false);
  });

  test("at most maxStatements texts are prepared, and none longer than maxLength", () => {
    const choice = new StatementChoice(2, 20);
    for (const text of ["a $1", "b $1", "c $1", "a $1", "b $1", "c $1", "c $1"]) choice.prepare(text);
    expect(choice.size).toBe(2);
    expect(choice.prepare("a $1")).toBe(true);
    expect(choice.prepare("c $1")).toBe(false);
    const long = `select ${"x".repeat(30)} where y = $1`;
    const wide = new StatementChoice(10, 20);
    wide.prepare(long);
    expect(wide.prepare(long)).toBe(false);
  });

  test("texts seen once are forgotten when too many pile up, so one-off texts cannot grow it without bound", () => {
    const choice = new StatementChoice(10, 100, 3);
    for (const text of ["a", "b", "c", "d"]) choice.prepare(text);
    // "d" cleared the three before it: "a" counts as a first use again.
    expect(choice.prepare("a")).toBe(false);
    expect(choice.prepare("d")).toBe(true);
  });
});
