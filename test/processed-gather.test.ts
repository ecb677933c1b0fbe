import { describe, expect, test } from "bun:test";
import { MAX_HELD, ProcessedGather, type ProcessedUpdate } from "../src/mail/processed-gather.ts";

/**
 * Processing results wait for the others of their mailbox being processed now, at most the
 * linger, and then reach the actor in one turn (src/mail/processed-gather.ts): one batch, one
 * transaction. A result with nothing else of its mailbox in progress goes at once.
 */

const update = (messageId: string) => ({ messageId, jobId: null, tokenThreadId: null, result: {}, contentStored: true }) as unknown as ProcessedUpdate;

/** An actor that records what it was sent, and in which turn of the event loop. */
function actor(fail?: (messageId: string) => boolean) {
  let turn = 0;
  const sent: { mailboxId: string; messageId: string; turn: number }[] = [];
  const send = async (mailboxId: string, u: ProcessedUpdate) => {
    sent.push({ mailboxId, messageId: u.messageId, turn });
    if (fail?.(u.messageId)) throw new Error(`no ${u.messageId}`);
    return u.messageId;
  };
  // A new turn begins after each macrotask.
  const tick = () => new Promise<void>((r) => setTimeout(() => (turn++, r()), 0));
  return { sent, send, tick, turnsOf: () => new Set(sent.map((s) => s.turn)).size };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("ProcessedGather", () => {
  test("a lone result goes at once", async () => {
    const a = actor();
    const gather = new ProcessedGather(a.send, 10_000);
    const slot = gather.begin("mb");
    expect(await slot.apply(update("m1"))).toBe("m1");
    expect(a.sent.map((s) => s.messageId)).toEqual(["m1"]);
  });

  test("a result waits for the others of its mailbox in progress, and all go in one turn", async () => {
    const a = actor();
    const gather = new ProcessedGather(a.send, 10_000);
    const slots = ["m1", "m2", "m3"].map(() => gather.begin("mb"));
    const replies = [slots[0]!.apply(update("m1"))];
    await a.tick();
    replies.push(slots[1]!.apply(update("m2")));
    await a.tick();
    expect(a.sent).toEqual([]);
    replies.push(slots[2]!.apply(update("m3")));
    // Sent before the last result's apply returned: the actor finds them queued together.
    expect(a.sent.map((s) => s.messageId)).toEqual(["m1", "m2", "m3"]);
    expect(await Promise.all(replies)).toEqual(["m1", "m2", "m3"]);
    expect(a.turnsOf()).toBe(1);
  });

  test("the linger bounds the wait for a job still in progress", async () => {
    const a = actor();
    const gather = new ProcessedGather(a.send, 30);
    const first = gather.begin("mb");
    gather.begin("mb"); // still parsing when the linger ends
    const reply = first.apply(update("m1"));
    await sleep(5);
    expect(a.sent).toEqual([]);
    expect(await reply).toBe("m1");
    expect(a.sent.map((s) => s.messageId)).toEqual(["m1"]);
  });

  test("a job that ends without a result does not keep the others waiting", async () => {
    const a = actor();
    const gather = new ProcessedGather(a.send, 10_000);
    const first = gather.begin("mb");
    const second = gather.begin("mb");
    const reply = first.apply(update("m1"));
    await a.tick();
    expect(a.sent).toEqual([]);
    second.release();
    expect(await reply).toBe("m1");
    // Released twice, or applied after its release, a slot counts once.
    second.release();
    expect(await second.apply(update("m2"))).toBe("m2");
    const third = gather.begin("mb");
    expect(await third.apply(update("m3"))).toBe("m3");
  });

  test("mailboxes wait only for their own", async () => {
    const a = actor();
    const gather = new ProcessedGather(a.send, 10_000);
    const one = gather.begin("one");
    gather.begin("one");
    const other = gather.begin("other");
    void one.apply(update("m1"));
    expect(await other.apply(update("m2"))).toBe("m2");
    expect(a.sent.map((s) => s.messageId)).toEqual(["m2"]);
  });

  test(`at most ${MAX_HELD} results are held`, async () => {
    const a = actor();
    const gather = new ProcessedGather(a.send, 10_000);
    const slots = Array.from({ length: MAX_HELD + 1 }, () => gather.begin("mb"));
    const replies = slots.slice(0, MAX_HELD).map((s, i) => s.apply(update(`m${i}`)));
    expect(a.sent.length).toBe(MAX_HELD);
    expect((await Promise.all(replies)).length).toBe(MAX_HELD);
    expect(a.turnsOf()).toBe(1);
    slots[MAX_HELD]!.release();
  });

  test("a failure is the failed result's alone", async () => {
    const a = actor((id) => id === "m2");
    const gather = new ProcessedGather(a.send, 10_000);
    const slots = [gather.begin("mb"), gather.begin("mb")];
    const one = slots[0]!.apply(update("m1"));
    const two = slots[1]!.apply(update("m2"));
    expect(await one).toBe("m1");
    await expect(two).rejects.toThrow("no m2");
  });

  test("a send that throws fails its own result and no other", async () => {
    const sent: string[] = [];
    const gather = new ProcessedGather((_, u) => {
      if (u.messageId === "m1") throw new Error("no m1");
      sent.push(u.messageId);
      return Promise.resolve(u.messageId);
    }, 10_000);
    const slots = [gather.begin("mb"), gather.begin("mb")];
    const one = slots[0]!.apply(update("m1"));
    const two = slots[1]!.apply(update("m2"));
    await expect(one).rejects.toThrow("no m1");
    expect(await two).toBe("m2");
    expect(sent).toEqual(["m2"]);
  });
});
