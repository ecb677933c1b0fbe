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

  test("an outcome is forgotten once its forwarder has ended the ask; later asks and other forwarders' stay", () => {
    const s = setup(1000);
    for (const [id, source, seq] of [["n1.1", "n1", 1], ["n1.2", "n1", 2], ["n1.3", "n1", 3], ["n2.1", "n2", 1]] as const) {
      s.memory.attempt(id, () => {});
      s.memory.settle(id, `V${id}`, true, { source, seq });
    }
    s.memory.ended("n1", 3);
    expect(s.memory.attempt("n1.1", s.hear("a"))).toBe(false);
    expect(s.memory.attempt("n1.2", s.hear("b"))).toBe(false);
    expect(s.memory.attempt("n1.3", s.hear("c"))).toBe(true);
    expect(s.memory.attempt("n2.1", s.hear("d"))).toBe(true);
    expect(s.heard).toEqual(["c:Vn1.3", "d:Vn2.1"]);
    // A mark that goes back (a late request) forgets nothing more.
    s.memory.ended("n1", 1);
    expect(s.memory.attempt("n1.3", s.hear("e"))).toBe(true);
  });

  test("an ask that settles after its forwarder ended it (it gave up waiting) is answered, not kept", () => {
    const s = setup(1000);
    s.memory.attempt("n1.1", s.hear("first"));
    s.memory.attempt("n1.1", s.hear("retry"));
    s.memory.ended("n1", 2);
    s.memory.settle("n1.1", "V1", true, { source: "n1", seq: 1 });
    expect(s.heard).toEqual(["retry:V1"]);
    expect(s.memory.size).toBe(0);
  });

  test("an outcome that settled after a later ask's waits for that one to go (kept longer, never shorter)", () => {
    const s = setup(1000);
    s.memory.attempt("n1.2", () => {});
    s.memory.settle("n1.2", "V2", true, { source: "n1", seq: 2 });
    s.memory.attempt("n1.1", () => {});
    s.memory.settle("n1.1", "V1", true, { source: "n1", seq: 1 });
    s.memory.ended("n1", 2);
    expect(s.memory.attempt("n1.1", () => {})).toBe(true);
    expect(s.memory.size).toBe(2);
    s.memory.ended("n1", 3);
    expect(s.memory.size).toBe(0);
  });

  test("under steady load the memory holds only the asks not yet ended, not seconds of them", () => {
    const s = setup(5000);
    for (let seq = 1; seq <= 10_000; seq++) {
      const id = `n1.${seq.toString(36)}`;
      s.memory.ended("n1", Math.max(1, seq - 32));
      s.memory.attempt(id, () => {});
      s.memory.settle(id, "V", true, { source: "n1", seq });
      s.advance(0.1);
    }
    expect(s.memory.size).toBeLessThanOrEqual(33);
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
