import { describe, expect, test } from "bun:test";
import { AskMemory } from "../actors/runtime/ask-memory.ts";

function setup(keepMs = 1000) {
  let now = 0;
  const memory = new AskMemory(keepMs, () => now);
  const heard: string[] = [];
  const hear = (tag: string) => (frame: string) => void heard.push(`${tag}:${frame}`);
  return { memory, heard, hear, advance: (ms: number) => (now += ms) };
}

describe("AskMemory: the asks an owner ran, for their retries", () => {
  test("an attempt of a running ask waits for its outcome instead of running it again", () => {
    const s = setup();
    expect(s.memory.attempt("x", s.hear("first"))).toBe(false);
    expect(s.memory.attempt("x", s.hear("retry"))).toBe(true);
    expect(s.heard).toEqual([]);
    s.memory.settle("x", "V1", true);
    expect(s.heard).toEqual(["retry:V1"]);
  });

  test("a settled outcome answers later attempts for at least keepMs, a long-running ask however long it runs", () => {
    const s = setup(1000);
    s.memory.attempt("slow", s.hear("slow"));
    s.advance(5000);
    s.memory.attempt("x", s.hear("x"));
    s.memory.settle("x", "V1", true);
    s.advance(999);
    expect(s.memory.attempt("x", s.hear("again"))).toBe(true);
    expect(s.memory.attempt("slow", s.hear("slow retry"))).toBe(true);
    expect(s.heard).toEqual(["again:V1"]);
    // Past twice keepMs it is forgotten: the next attempt is a new run.
    s.advance(1001);
    s.memory.attempt("y", s.hear("y"));
    s.advance(1000);
    expect(s.memory.attempt("x", s.hear("late"))).toBe(false);
  });

  test("an outcome that ran nothing ('R') is handed to the waiting attempts but not kept", () => {
    const s = setup();
    s.memory.attempt("x", s.hear("first"));
    s.memory.attempt("x", s.hear("retry"));
    s.memory.settle("x", "R", false);
    expect(s.heard).toEqual(["retry:R"]);
    expect(s.memory.attempt("x", s.hear("later"))).toBe(false);
  });

  test("memory stays bounded: old generations are dropped whole", () => {
    const s = setup(1000);
    for (let i = 0; i < 100; i++) {
      s.memory.attempt(`a${i}`, () => {});
      s.memory.settle(`a${i}`, "V", true);
      s.advance(100);
    }
    expect(s.memory.size).toBeLessThanOrEqual(20);
  });
});
