import { describe, expect, test } from "bun:test";
import type { StoredEvent } from "../src/events/frames.ts";
import { EventTail, type TailSource } from "../src/events/tail.ts";

/*
 * The shared reads of one mailbox's event streams (src/events/tail.ts), against an outbox kept
 * in memory: what each stream is sent, and how many reads the database sees.
 */
class FakeOutbox implements TailSource {
  events: StoredEvent[] = [];
  counter = 0;
  reads = 0;
  /** While set, reads wait for it (to hold one in flight). */
  gate: Promise<void> | undefined;
  failNext = false;

  add(n = 1): void {
    for (let i = 0; i < n; i++) {
      this.counter++;
      this.events.push({ seq: this.counter, topic: "message.received", payloadJson: `{"n":${this.counter}}`, createdAt: new Date(0) });
    }
  }

  delete(seqs: number[]): void {
    this.events = this.events.filter((e) => !seqs.includes(e.seq));
  }

  async eventsAfter(after: number, limit: number): Promise<StoredEvent[]> {
    this.reads++;
    // The snapshot is taken when the read begins, as a statement's is.
    const rows = this.events.filter((e) => e.seq > after).slice(0, limit);
    await this.gate;
    if (this.failNext) {
      this.failNext = false;
      throw new Error("connection lost");
    }
    return rows;
  }

  async latestSeq(): Promise<number> {
    return this.counter;
  }
}

const decoder = new TextDecoder();
/** What a stream would be sent: event ids, and gaps as "gap a-b". */
const sent = (got: { frames: Uint8Array[] } | null) => {
  if (!got) return null;
  const text = got.frames.map((f) => decoder.decode(f)).join("");
  return [...text.matchAll(/^id: (\d+)$|^data: \{"from":(\d+),"to":(\d+)\}$/gm)].map((m) => (m[1] ? Number(m[1]) : `gap ${m[2]}-${m[3]}`));
};

describe("EventTail", () => {
  test("the streams woken by one commit share one read, and get the same bytes", async () => {
    const outbox = new FakeOutbox();
    const tail = new EventTail(outbox, 500);
    outbox.add(3);
    expect(tail.covers(3)).toBe(true);
    expect(sent(await tail.after(3, tail.sinceWake))).toEqual([]);
    const before = outbox.reads;

    outbox.add(2);
    for (let i = 0; i < 50; i++) tail.woken(); // each stream's wake
    const answers = await Promise.all(Array.from({ length: 50 }, () => tail.after(3, tail.sinceWake)));
    expect(outbox.reads - before).toBe(1);
    for (const a of answers) expect(sent(a)).toEqual([4, 5]);
    expect(answers[0]!.frames[0]).toBe(answers[49]!.frames[0]!); // encoded once
    expect(answers.every((a) => a!.cursor === 5)).toBe(true);
  });

  test("a wake during a read in flight gets a read of its own, which sees the new event", async () => {
    const outbox = new FakeOutbox();
    const tail = new EventTail(outbox, 500);
    tail.covers(0);
    let open!: () => void;
    outbox.gate = new Promise((resolve) => (open = resolve));
    tail.woken();
    const early = tail.after(0, tail.sinceWake); // begins a read, held
    await Bun.sleep(1);
    outbox.add(1);
    tail.woken();
    const late = tail.after(0, tail.sinceWake);
    outbox.gate = undefined;
    open();
    // The early stream's read began before the event: it may or may not be sent it now (it is
    // woken for it too); the late one must be.
    expect([[], [1]] as (string | number)[][]).toContainEqual(sent(await early)!);
    expect(sent(await late)).toEqual([1]);
    expect(tail.reads).toBe(2); // (the first also looked at the counter, which had moved, and read again)
  });

  test("polls share a read begun within the window they allow", async () => {
    const outbox = new FakeOutbox();
    const tail = new EventTail(outbox, 500);
    tail.covers(0);
    await tail.after(0, tail.recentWithin(1_000));
    const reads = outbox.reads;
    for (let i = 0; i < 20; i++) await tail.after(0, tail.recentWithin(1_000));
    expect(outbox.reads).toBe(reads);
    await Bun.sleep(5);
    outbox.add(1);
    expect(sent(await tail.after(0, tail.recentWithin(1)))).toEqual([1]); // a missed notification: the poll reads
    expect(outbox.reads).toBe(reads + 1);
  });

  test("pages: a stream far behind the newest events gets them a page at a time, in order", async () => {
    const outbox = new FakeOutbox();
    const tail = new EventTail(outbox, 4);
    outbox.add(10);
    tail.covers(0);
    const ids: (number | string)[] = [];
    let cursor = 0;
    for (let more = true; more; ) {
      const got = await tail.after(cursor, tail.sinceWake);
      ids.push(...sent(got)!);
      cursor = got!.cursor;
      more = got!.more;
    }
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  test("the window keeps the newest events within its bounds; a stream behind it reads alone", async () => {
    const outbox = new FakeOutbox();
    const tail = new EventTail(outbox, 500, { entries: 3, bytes: 1 << 20 });
    tail.covers(0);
    outbox.add(10);
    tail.woken();
    expect(sent(await tail.after(0, tail.sinceWake))).toBeNull(); // 1..7 left the window
    expect(tail.covers(6)).toBe(false);
    expect(tail.covers(7)).toBe(true);
    expect(sent(await tail.after(7, tail.sinceWake))).toEqual([8, 9, 10]);
    // By bytes: always the newest event, however large.
    const small = new EventTail(outbox, 500, { entries: 100, bytes: 1 });
    small.covers(8);
    expect(sent(await small.after(8, small.sinceWake))).toBeNull();
    expect(sent(await small.after(9, small.sinceWake))).toEqual([10]);
  });

  test("deleted events are sent as gaps, in the middle and up to the mailbox's counter", async () => {
    const outbox = new FakeOutbox();
    const tail = new EventTail(outbox, 500);
    tail.covers(0);
    outbox.add(6);
    outbox.delete([2, 3]);
    tail.woken();
    expect(sent(await tail.after(0, tail.sinceWake))).toEqual([1, "gap 2-3", 4, 5, 6]);
    expect(sent(await tail.after(2, tail.sinceWake))).toEqual(["gap 3-3", 4, 5, 6]);
    outbox.add(3);
    outbox.delete([7, 8, 9]);
    tail.woken();
    const got = await tail.after(6, tail.sinceWake);
    expect(sent(got)).toEqual(["gap 7-9"]);
    expect(got!.cursor).toBe(9);
    outbox.add(1);
    tail.woken();
    expect(sent(await tail.after(9, tail.sinceWake))).toEqual([10]);
  });

  test("a stream a little ahead of the tail has it read up to it; one more than a page ahead places it", async () => {
    const outbox = new FakeOutbox();
    const tail = new EventTail(outbox, 4);
    outbox.add(4);
    expect(tail.covers(0)).toBe(true);
    expect(sent(await tail.after(0, tail.sinceWake))).toEqual([1, 2, 3, 4]);
    outbox.add(3); // 5..7, not read by the tail yet
    expect(tail.covers(6)).toBe(true); // a stream that read up to 6 alone
    expect(sent(await tail.after(6, tail.sinceWake))).toEqual([7]);
    expect(tail.covers(0)).toBe(true); // the window the others are in is kept
    expect(sent(await tail.after(4, tail.sinceWake))).toEqual([5, 6, 7]);

    outbox.add(10); // 8..17
    expect(tail.covers(15)).toBe(true); // more than a page ahead: the tail moves there
    expect(tail.covers(14)).toBe(false);
    tail.woken();
    expect(sent(await tail.after(15, tail.sinceWake))).toEqual([16, 17]);

    // Ahead of everything stored (resumed at the counter, past deleted events): the tail reads
    // up to the counter, and the streams behind get the gap.
    outbox.add(3);
    outbox.delete([18, 19, 20]);
    expect(tail.covers(20)).toBe(true);
    expect(sent(await tail.after(20, tail.sinceWake))).toEqual([]);
    outbox.add(1);
    tail.woken();
    expect(sent(await tail.after(20, tail.sinceWake))).toEqual([21]);
    expect(sent(await tail.after(17, tail.sinceWake))).toEqual(["gap 18-20", 21]);
  });

  test("a failed read fails the streams that waited on it; the next read works", async () => {
    const outbox = new FakeOutbox();
    const tail = new EventTail(outbox, 500);
    tail.covers(0);
    outbox.add(1);
    outbox.failNext = true;
    tail.woken();
    const waits = await Promise.allSettled([tail.after(0, tail.sinceWake), tail.after(0, tail.sinceWake)]);
    expect(waits.map((w) => (w.status === "rejected" ? String(w.reason) : "sent"))).toEqual(["Error: connection lost", "Error: connection lost"]);
    expect(outbox.reads).toBe(1);
    tail.woken();
    expect(sent(await tail.after(0, tail.sinceWake))).toEqual([1]);
  });
});
