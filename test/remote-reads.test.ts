import { describe, expect, test } from "bun:test";
import type { Placement } from "../actors/runtime/index.ts";
import { MAILBOX_ACTOR } from "../actors/mailbox/client.ts";
import { RemoteReads } from "../src/cluster/remote-reads.ts";

/** A placement that counts what reaches it and answers reads with the row's current version. */
function fakeOwner() {
  const row = { version: 1 };
  const calls: string[] = [];
  let gate: Promise<void> | undefined;
  const inner: Placement = {
    async ask(_kind, _id, msg) {
      calls.push(`ask ${(msg as { name: string }).name}`);
      if ((msg as { name: string }).name === "setStatus") row.version++;
      return { allowed: true } as never;
    },
    async read() {
      calls.push("read");
      const seen = { ...row };
      if (gate) await gate;
      return seen as never;
    },
    tell(_kind, _id, msg) {
      calls.push(`tell ${(msg as { name: string }).name}`);
    },
    close: async () => {},
  };
  return { row, calls, inner, hold: (p: Promise<void> | undefined) => (gate = p) };
}

const GET = Object.freeze({ name: "get", args: Object.freeze([]) });
const ID = "0190a000-0000-7000-8000-000000000001";

function setup(held = false, ttlMs = 1000) {
  let now = 0;
  const owner = fakeOwner();
  const reads = new RemoteReads(owner.inner, { partitionOf: () => 3, held: () => (held ? 1 : undefined) }, ttlMs, () => now);
  return { ...owner, reads, advance: (ms: number) => (now += ms) };
}

describe("RemoteReads: the row of a mailbox another node owns", () => {
  test("is kept for the TTL, then asked for again", async () => {
    const s = setup();
    expect(await s.reads.read(MAILBOX_ACTOR, ID, GET)).toEqual({ version: 1 });
    expect(await s.reads.read(MAILBOX_ACTOR, ID, GET)).toEqual({ version: 1 });
    expect(s.calls.filter((c) => c === "read").length).toBe(1);
    s.advance(1001);
    await s.reads.read(MAILBOX_ACTOR, ID, GET);
    expect(s.calls.filter((c) => c === "read").length).toBe(2);
  });

  test("readNow gives a kept row at once, and nothing it could not give from what is kept", async () => {
    const s = setup();
    expect(s.reads.readNow(MAILBOX_ACTOR, ID, GET)).toBeUndefined(); // nothing kept yet
    await s.reads.read(MAILBOX_ACTOR, ID, GET);
    expect(s.reads.readNow(MAILBOX_ACTOR, ID, GET)).toEqual({ value: { version: 1 } });
    expect(s.reads.readNow(MAILBOX_ACTOR, ID, { name: "listKeys", args: [] })).toBeUndefined();
    expect(s.reads.readNow("other", ID, GET)).toBeUndefined();
    s.advance(1001);
    expect(s.reads.readNow(MAILBOX_ACTOR, ID, GET)).toBeUndefined(); // past the TTL
    await s.reads.read(MAILBOX_ACTOR, ID, GET);
    await s.reads.ask(MAILBOX_ACTOR, ID, { name: "setStatus", args: ["disabled"] });
    expect(s.reads.readNow(MAILBOX_ACTOR, ID, GET)).toBeUndefined(); // a write forgot it
    expect(s.calls.filter((c) => c === "read").length).toBe(2); // readNow itself never reads
    const own = setup(true);
    await own.reads.read(MAILBOX_ACTOR, ID, GET);
    expect(own.reads.readNow(MAILBOX_ACTOR, ID, GET)).toBeUndefined(); // this node holds it: its actor answers
  });

  test("a write forwarded through this node is read back at once (read your writes)", async () => {
    const s = setup();
    await s.reads.read(MAILBOX_ACTOR, ID, GET);
    await s.reads.ask(MAILBOX_ACTOR, ID, { name: "setStatus", args: ["disabled"] });
    expect(await s.reads.read(MAILBOX_ACTOR, ID, GET)).toEqual({ version: 2 });
  });

  test("calls counted by admit or admitMany leave the kept row alone", async () => {
    for (const msg of [{ name: "admit", args: ["k"] }, { name: "admitMany", args: ["k", 3] }]) {
      const s = setup();
      await s.reads.read(MAILBOX_ACTOR, ID, GET);
      await s.reads.ask(MAILBOX_ACTOR, ID, msg);
      await s.reads.read(MAILBOX_ACTOR, ID, GET);
      expect(s.calls.filter((c) => c === "read").length).toBe(1);
    }
  });

  test("calls counted together (admitMany) while no row is kept read the row beside them, as admit does", async () => {
    const s = setup();
    await s.reads.ask(MAILBOX_ACTOR, ID, { name: "admitMany", args: ["k", 4] });
    expect(s.calls).toEqual(["read", "ask admitMany"]);
    expect(await s.reads.read(MAILBOX_ACTOR, ID, GET)).toEqual({ version: 1 });
    expect(s.calls).toEqual(["read", "ask admitMany"]);
  });

  test("another node's announced change (a reload tell) forgets the row, and the tell still goes on", async () => {
    const s = setup();
    await s.reads.read(MAILBOX_ACTOR, ID, GET);
    s.row.version = 7;
    s.reads.tell(MAILBOX_ACTOR, ID, { name: "reload", args: [] });
    expect(s.calls).toContain("tell reload");
    expect(await s.reads.read(MAILBOX_ACTOR, ID, GET)).toEqual({ version: 7 });
  });

  test("a read that overlapped a write is not kept", async () => {
    const s = setup();
    let release!: () => void;
    s.hold(new Promise<void>((r) => (release = r)));
    const stale = s.reads.read(MAILBOX_ACTOR, ID, GET);
    await s.reads.ask(MAILBOX_ACTOR, ID, { name: "setStatus", args: ["disabled"] });
    release();
    expect(await stale).toEqual({ version: 1 });
    s.hold(undefined);
    expect(await s.reads.read(MAILBOX_ACTOR, ID, GET)).toEqual({ version: 2 });
  });

  test("nothing is kept for a mailbox this node holds, for other commands, or with a TTL of 0", async () => {
    const mine = setup(true);
    await mine.reads.read(MAILBOX_ACTOR, ID, GET);
    await mine.reads.read(MAILBOX_ACTOR, ID, GET);
    expect(mine.calls.filter((c) => c === "read").length).toBe(2);
    const off = setup(false, 0);
    await off.reads.read(MAILBOX_ACTOR, ID, GET);
    await off.reads.read(MAILBOX_ACTOR, ID, GET);
    expect(off.calls.filter((c) => c === "read").length).toBe(2);
    const other = setup();
    await other.reads.read(MAILBOX_ACTOR, ID, { name: "get", args: ["x"] });
    await other.reads.read(MAILBOX_ACTOR, ID, { name: "get", args: ["x"] });
    expect(other.calls.filter((c) => c === "read").length).toBe(2);
  });

  test("a call counted while no row is kept reads the row beside it, once, for the read that follows", async () => {
    const s = setup();
    await s.reads.ask(MAILBOX_ACTOR, ID, { name: "admit", args: ["k"] });
    expect(s.calls).toEqual(["read", "ask admit"]);
    expect(await s.reads.read(MAILBOX_ACTOR, ID, GET)).toEqual({ version: 1 });
    await s.reads.ask(MAILBOX_ACTOR, ID, { name: "admit", args: ["k"] });
    expect(s.calls).toEqual(["read", "ask admit", "ask admit"]);
    const mine = setup(true);
    await mine.reads.ask(MAILBOX_ACTOR, ID, { name: "admit", args: ["k"] });
    expect(mine.calls).toEqual(["ask admit"]);
  });

  test("a poll brings its row back itself: nothing is read beside it, and a kept row stays kept", async () => {
    const s = setup();
    await s.reads.ask(MAILBOX_ACTOR, ID, { name: "poll", args: ["k"] });
    expect(s.calls).toEqual(["ask poll"]);
    await s.reads.read(MAILBOX_ACTOR, ID, GET);
    await s.reads.ask(MAILBOX_ACTOR, ID, { name: "poll", args: ["k"] });
    await s.reads.read(MAILBOX_ACTOR, ID, GET);
    expect(s.calls).toEqual(["ask poll", "read", "ask poll"]);
  });

  test("overlapping reads share one forwarded read; a read after a write does not join one from before it", async () => {
    const s = setup();
    let release!: () => void;
    s.hold(new Promise<void>((r) => (release = r)));
    const first = s.reads.read(MAILBOX_ACTOR, ID, GET);
    const second = s.reads.read(MAILBOX_ACTOR, ID, GET);
    expect(s.calls.filter((c) => c === "read").length).toBe(1);
    await s.reads.ask(MAILBOX_ACTOR, ID, { name: "setStatus", args: ["disabled"] });
    s.hold(undefined);
    expect(await s.reads.read(MAILBOX_ACTOR, ID, GET)).toEqual({ version: 2 });
    release();
    expect(await first).toEqual({ version: 1 });
    expect(await second).toEqual({ version: 1 });
    expect(await s.reads.read(MAILBOX_ACTOR, ID, GET)).toEqual({ version: 2 });
  });

  test("a row read beside a call that fails is dropped quietly, and the next read asks again", async () => {
    const s = setup();
    let fail = true;
    s.inner.read = async () => {
      s.calls.push("read");
      if (fail) throw new Error("not found");
      return { version: 1 } as never;
    };
    await s.reads.ask(MAILBOX_ACTOR, ID, { name: "admit", args: ["k"] });
    await Bun.sleep(0);
    fail = false;
    expect(await s.reads.read(MAILBOX_ACTOR, ID, GET)).toEqual({ version: 1 });
    expect(s.calls.filter((c) => c === "read").length).toBe(2);
  });

  test("an error is never kept", async () => {
    const s = setup();
    let fail = true;
    s.inner.read = async () => {
      s.calls.push("read");
      if (fail) throw new Error("not found");
      return { version: 1 } as never;
    };
    await expect(s.reads.read(MAILBOX_ACTOR, ID, GET)).rejects.toThrow("not found");
    fail = false;
    expect(await s.reads.read(MAILBOX_ACTOR, ID, GET)).toEqual({ version: 1 });
  });
});
