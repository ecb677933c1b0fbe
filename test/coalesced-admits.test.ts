import { describe, expect, test } from "bun:test";
import { MAX_ADMITS, type ManyAdmitted } from "../actors/mailbox/admission.ts";
import { CoalescedAdmits } from "../src/cluster/coalesced-admits.ts";

/**
 * The calls of one key made while an ask of it is on its way go to the owner together at the
 * end of their turn (src/cluster/coalesced-admits.ts), each answered with its own place in the
 * row the owner counted; a call of a key with nothing on its way is asked for at once.
 */

interface Asked {
  mailboxId: string;
  keyId: string;
  count: number;
  answer(a: ManyAdmitted): void;
  fail(err: unknown): void;
}

/** An owner whose answers the test gives, in its own time. */
function owner() {
  const asked: Asked[] = [];
  return {
    asked,
    admitMany: (mailboxId: string, keyId: string, count: number) =>
      new Promise<ManyAdmitted>((answer, fail) => {
        asked.push({ mailboxId, keyId, count, answer, fail });
      }),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("coalesced admits", () => {
  test("a lone call is asked for at once; the calls made while it is on its way go at the end of their turn as one ask, each with its own remaining", async () => {
    const o = owner();
    const admits = new CoalescedAdmits(o);
    const first = admits.admit("m1", "k1");
    expect(o.asked.map((a) => a.count)).toEqual([1]);
    const rest = [admits.admit("m1", "k1"), admits.admit("m1", "k1"), admits.admit("m1", "k1")];
    expect(o.asked).toHaveLength(1);
    // The end of the turn, not the first answer, sends them.
    await tick();
    expect(o.asked.map((a) => [a.mailboxId, a.keyId, a.count])).toEqual([
      ["m1", "k1", 1],
      ["m1", "k1", 3],
    ]);
    o.asked[0]!.answer({ granted: 1, limit: 10, remaining: 9, resetInMs: 1000 });
    expect(await first).toEqual({ allowed: true, limit: 10, remaining: 9, resetInMs: 1000 });
    o.asked[1]!.answer({ granted: 3, limit: 10, remaining: 6, resetInMs: 900 });
    // As three admits in a row would have answered: 8, 7, 6 left.
    expect((await Promise.all(rest)).map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 8],
      [true, 7],
      [true, 6],
    ]);
    expect(admits.pending).toBe(0);
    // Nothing on its way any more: the next call goes at once again.
    void admits.admit("m1", "k1");
    expect(o.asked.map((a) => a.count)).toEqual([1, 3, 1]);
  });

  test("past the limit the owner grants the first of a row only: the rest are refused", async () => {
    const o = owner();
    const admits = new CoalescedAdmits(o);
    void admits.admit("m1", "k1");
    const rest = [admits.admit("m1", "k1"), admits.admit("m1", "k1"), admits.admit("m1", "k1")];
    await tick();
    o.asked[1]!.answer({ granted: 2, limit: 10, remaining: 0, resetInMs: 400 });
    expect(await Promise.all(rest)).toEqual([
      { allowed: true, limit: 10, remaining: 1, resetInMs: 400 },
      { allowed: true, limit: 10, remaining: 0, resetInMs: 400 },
      { allowed: false, limit: 10, remaining: 0, resetInMs: 400 },
    ]);
  });

  test("a failed ask fails the calls in it only", async () => {
    const o = owner();
    const admits = new CoalescedAdmits(o);
    const first = admits.admit("m1", "k1");
    const second = admits.admit("m1", "k1");
    await tick();
    const gone = new Error("owner unreachable");
    o.asked[0]!.fail(gone);
    await expect(first).rejects.toBe(gone);
    o.asked[1]!.answer({ granted: 1, limit: 10, remaining: 4, resetInMs: 100 });
    expect((await second).allowed).toBe(true);
    expect(admits.pending).toBe(0);
  });

  test("keys do not wait for each other, nor one key's calls on two mailboxes", async () => {
    const o = owner();
    const admits = new CoalescedAdmits(o);
    void admits.admit("m1", "k1");
    void admits.admit("m1", "k2");
    void admits.admit("m2", "k1");
    expect(o.asked.map((a) => `${a.mailboxId}/${a.keyId}/${a.count}`)).toEqual(["m1/k1/1", "m1/k2/1", "m2/k1/1"]);
    expect(admits.pending).toBe(3);
  });

  test(`an ask carries at most ${MAX_ADMITS} calls; the rest go in another`, async () => {
    const o = owner();
    const admits = new CoalescedAdmits(o);
    void admits.admit("m1", "k1");
    const many = Array.from({ length: MAX_ADMITS + 5 }, () => admits.admit("m1", "k1"));
    await tick();
    expect(o.asked.map((a) => a.count)).toEqual([1, MAX_ADMITS, 5]);
    o.asked[1]!.answer({ granted: MAX_ADMITS, limit: 1e6, remaining: 10, resetInMs: 1 });
    o.asked[2]!.answer({ granted: 5, limit: 1e6, remaining: 5, resetInMs: 1 });
    const answers = await Promise.all(many);
    expect(answers.every((d) => d.allowed)).toBe(true);
    expect(answers.at(-1)!.remaining).toBe(5);
  });
});
