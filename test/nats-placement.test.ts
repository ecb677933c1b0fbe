import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import "../src/cluster/wire-errors.ts";
import {
  ActorSystem,
  ActorTimeoutError,
  NatsPlacement,
  PlacementOutcomeUnknownError,
  PlacementUnavailableError,
  type ActorDefinition,
  type Ownership,
} from "../actors/runtime/index.ts";
import { AppError } from "../src/errors.ts";
import { decodeOutcome, decodeValue, encodeOutcome, encodeValue, type WireValue } from "../actors/mailbox/wire.ts";
import type { WireCodec } from "../actors/runtime/index.ts";

/** The mailbox wire format's values, outcomes and typed errors, for messages of a test actor. */
const codec: WireCodec = {
  encodeCommand: (msg) => JSON.stringify(encodeValue(msg)),
  decodeCommand: (text) => decodeValue(JSON.parse(text) as WireValue),
  encodeReply: (outcome) => JSON.stringify(encodeOutcome(outcome)),
  decodeReply: (text) => decodeOutcome(text),
};

/**
 * The placement protocol between nodes over a real nats-server started for this file (port
 * 4320-4329): forwarding, typed errors and data across the wire, redirects when ownership
 * moves, silence from a gone owner, and the accept-then-answer of a long command.
 * Ownership is given by hand here (the lease table is exercised by test/cluster.test.ts).
 */
let server: Subprocess | undefined;
let url = "";

beforeAll(async () => {
  for (let port = 4320; port <= 4329 && !server; port++) {
    const proc = Bun.spawn(["/usr/sbin/nats-server", "-a", "127.0.0.1", "-p", String(port)], { stdout: "ignore", stderr: "pipe" });
    const ready = await Promise.race([
      (async () => {
        for (let i = 0; i < 100; i++) {
          try {
            const nc = await connect({ servers: `nats://127.0.0.1:${port}`, reconnect: false });
            await nc.close();
            return true;
          } catch {
            if (proc.exitCode !== null) return false;
            await Bun.sleep(50);
          }
        }
        return false;
      })(),
    ]);
    if (ready) {
      server = proc;
      url = `nats://127.0.0.1:${port}`;
    } else proc.kill();
  }
  if (!server) throw new Error("could not start a nats-server on 4320-4329");
});

afterAll(() => {
  server?.kill();
});

/** Ownership as a table both test nodes read: partition = the id's first character. */
class Table implements Ownership {
  constructor(
    readonly self: string,
    private readonly owners: Map<string, string>,
  ) {}
  refreshes = 0;
  unreachables: string[] = [];
  unreachable(node: string): void {
    this.unreachables.push(node);
  }
  partitionOf(id: string): number {
    return id.charCodeAt(0);
  }
  held(p: number): number | undefined {
    return this.owners.get(String.fromCharCode(p)) === this.self ? 1 : undefined;
  }
  ownerOf(p: number): string | undefined {
    return this.owners.get(String.fromCharCode(p));
  }
  async refresh(): Promise<void> {
    this.refreshes++;
  }
}

type Msg = { type: "echo"; value: unknown } | { type: "fail"; code: "not_found" | "rate_limit_exceeded" } | { type: "slow"; ms: number } | { type: "dbError" } | { type: "count" };

const counterActor = (node: string): ActorDefinition<{ n: number }, Msg, unknown> => ({
  kind: "counter",
  activate: async () => ({ n: 0 }),
  async handle(state, msg) {
    switch (msg.type) {
      case "echo":
        return { node, value: msg.value };
      case "fail":
        throw new AppError(msg.code, `refused by ${node}`, { node }, msg.code === "rate_limit_exceeded" ? { "Retry-After": "7" } : {});
      case "slow":
        await Bun.sleep(msg.ms);
        return { node, slept: msg.ms };
      case "dbError": {
        const err = new Error("value too long for type character varying(5)") as Error & { code: string };
        err.code = "22001";
        throw new Error("Failed query", { cause: err });
      }
      case "count":
        return ++state.n;
    }
  },
});

/** An actor whose handler answers without awaiting (as the mailbox's `admit` does): the owner runs it at once when idle. */
type TallyMsg = { type: "tally" } | { type: "refuse" } | { type: "hold"; ms: number } | { type: "log" };
const tallyActor = (node: string): ActorDefinition<{ n: number; log: string[] }, TallyMsg, unknown> => ({
  kind: "tally",
  activate: async () => ({ n: 0, log: [] }),
  handle(state, msg) {
    switch (msg.type) {
      case "tally":
        state.log.push(`tally ${state.n + 1}`);
        return { node, n: ++state.n };
      case "refuse":
        throw new AppError("rate_limit_exceeded", `refused by ${node}`, { node }, { "Retry-After": "3" });
      case "hold":
        state.log.push("hold start");
        return Bun.sleep(msg.ms).then(() => {
          state.log.push("hold end");
          return "held";
        });
      case "log":
        return state.log;
    }
  },
});

interface TestNode {
  nc: NatsConnection;
  system: ActorSystem;
  placement: NatsPlacement;
  own: Table;
}

async function node(name: string, owners: Map<string, string>, prefix: string, opts: { askTimeoutMs?: number; ackWaitMs?: number; flushGapMs?: number } = {}): Promise<TestNode> {
  const nc = await connect({ servers: url });
  const system = new ActorSystem({ idleMs: Infinity, askTimeoutMs: 5000 });
  system.register(counterActor(name));
  system.register(tallyActor(name));
  const own = new Table(name, owners);
  const placement = new NatsPlacement({
    nc,
    subjectPrefix: `${prefix}.actors`,
    system,
    ownership: own,
    codec,
    askTimeoutMs: opts.askTimeoutMs ?? 3000,
    ackWaitMs: opts.ackWaitMs ?? 300,
    ...(opts.flushGapMs === undefined ? {} : { flushGapMs: opts.flushGapMs }),
    logger: { debug() {}, warn() {}, error() {} },
  });
  return { nc, system, placement, own };
}

const close = async (...nodes: TestNode[]) => {
  for (const n of nodes) {
    await n.placement.close();
    await n.nc.close();
  }
};

describe("NatsPlacement over a real nats-server", () => {
  test("a message for another node's actor runs there; local ones run here", async () => {
    const owners = new Map([["a", "A"], ["b", "B"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const [a, b] = [await node("A", owners, prefix), await node("B", owners, prefix)];
    try {
      expect(await a.placement.ask("counter", "b1", { type: "echo", value: 1 })).toEqual({ node: "B", value: 1 });
      expect(await a.placement.ask("counter", "a1", { type: "echo", value: 2 })).toEqual({ node: "A", value: 2 });
      expect(await b.placement.read("counter", "a1", { type: "echo", value: 3 })).toEqual({ node: "A", value: 3 });
      // One actor per id: counts from both nodes land on the owner's one state.
      const counts = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).placement.ask<number>("counter", "b2", { type: "count" })));
      expect(counts.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(a.system.activeCount("counter")).toBe(1); // a1 only
    } finally {
      await close(a, b);
    }
  });

  test("dates, bytes and nested data cross the wire as they went in", async () => {
    const owners = new Map([["b", "B"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const [a, b] = [await node("A", owners, prefix), await node("B", owners, prefix)];
    try {
      const value = { at: new Date("2026-01-02T03:04:05.678Z"), bytes: new Uint8Array([0, 1, 255]), buf: Buffer.from("hi"), list: [1, null, "x"], nested: { deep: [{ d: new Date(0) }] }, none: null };
      const got = (await a.placement.ask<{ value: typeof value }>("counter", "b1", { type: "echo", value })).value;
      expect(got.at).toBeInstanceOf(Date);
      expect(got.at.toISOString()).toBe("2026-01-02T03:04:05.678Z");
      expect(got.bytes).toBeInstanceOf(Uint8Array);
      expect([...got.bytes]).toEqual([0, 1, 255]);
      expect(Buffer.isBuffer(got.buf)).toBe(true);
      expect(got.buf.toString()).toBe("hi");
      expect(got.nested.deep[0]!.d).toEqual(new Date(0));
      expect(got.list).toEqual([1, null, "x"]);
    } finally {
      await close(a, b);
    }
  });

  test("the owner's errors come back as the same typed errors", async () => {
    const owners = new Map([["b", "B"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const [a, b] = [await node("A", owners, prefix), await node("B", owners, prefix)];
    try {
      const err = await a.placement.ask<any>("counter", "b1", { type: "fail", code: "rate_limit_exceeded" }).catch((e): any => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: "rate_limit_exceeded", status: 429, message: "refused by B", details: { node: "B" }, headers: { "Retry-After": "7" } });
      const nf = await a.placement.ask<any>("counter", "b1", { type: "fail", code: "not_found" }).catch((e): any => e);
      expect(nf).toBeInstanceOf(AppError);
      expect(nf.status).toBe(404);
      // A database error keeps its SQLSTATE on the cause chain (the job runner reads it).
      const db = await a.placement.ask<any>("counter", "b1", { type: "dbError" }).catch((e): any => e);
      expect(db).toBeInstanceOf(Error);
      expect(db.cause.code).toBe("22001");
      // The owner's inbox deadline: dropped unrun there, ActorTimeoutError here.
      const slow = b.placement.ask("counter", "b9", { type: "slow", ms: 600 });
      const late = await a.placement.ask<any>("counter", "b9", { type: "echo", value: 1 }, { timeoutMs: 200 }).catch((e): any => e);
      expect(late).toBeInstanceOf(ActorTimeoutError);
      await slow;
    } finally {
      await close(a, b);
    }
  });

  test("a node that does not hold the actor redirects; the sender follows the new owner", async () => {
    const owners = new Map([["c", "B"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const [a, b, c] = [await node("A", owners, prefix), await node("B", new Map([["c", "C"]]), prefix), await node("C", new Map([["c", "C"]]), prefix)];
    try {
      // A thinks B owns "c"; B knows it does not and says so; A looks again and finds C.
      setTimeout(() => owners.set("c", "C"), 100);
      expect(await a.placement.ask("counter", "c1", { type: "echo", value: "x" })).toEqual({ node: "C", value: "x" });
      expect(a.own.refreshes).toBeGreaterThan(0);
    } finally {
      await close(a, b, c);
    }
  });

  test("an owner that is gone: retried until the deadline, then PlacementUnavailableError (nothing ran)", async () => {
    const owners = new Map([["g", "Gone"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const a = await node("A", owners, prefix, { askTimeoutMs: 800 });
    try {
      const err = await a.placement.ask<any>("counter", "g1", { type: "count" }).catch((e): any => e);
      expect(err).toBeInstanceOf(PlacementUnavailableError);
      expect(err.retryAfterMs).toBeGreaterThan(0);
      // When the owner comes back, the same message runs once.
      owners.set("g", "A");
      expect(await a.placement.ask("counter", "g1", { type: "count" })).toBe(1);
    } finally {
      await close(a);
    }
  });

  test("a command longer than the ack wait is accepted, then answered", async () => {
    const owners = new Map([["s", "B"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const [a, b] = [await node("A", owners, prefix, { ackWaitMs: 200 }), await node("B", owners, prefix)];
    try {
      expect(await a.placement.ask("counter", "s1", { type: "slow", ms: 1500 })).toEqual({ node: "B", slept: 1500 });
    } finally {
      await close(a, b);
    }
  });

  test("attempts of one ask that reach a slow owner together run once and all get its outcome", async () => {
    // A stalled owner reads a first attempt and the forwarder's retries in one batch; each
    // carries the ask's id. Sent by hand here, since both test nodes share one event loop.
    const owners = new Map([["d", "B"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const b = await node("B", owners, prefix);
    try {
      const subject = `${prefix}.actors.node.B`;
      const frame = (askId: string) => `a3000 ${askId}\ncounter\nd1\n${codec.encodeCommand({ type: "count" })}`;
      const answer = async (askId: string) => {
        const msg = await b.nc.request(subject, frame(askId), { timeout: 3000 });
        return codec.decodeReply(msg.string().slice(1));
      };
      const [first, retry, again] = await Promise.all([answer("X.1"), answer("X.1"), answer("X.1")]);
      expect([first, retry, again]).toEqual([{ ok: true, value: 1 }, { ok: true, value: 1 }, { ok: true, value: 1 }]);
      // Settled, it is still remembered for a retry that comes later.
      expect(await answer("X.1")).toEqual({ ok: true, value: 1 });
      // Another ask is another run.
      expect(await answer("X.2")).toEqual({ ok: true, value: 2 });
      expect(await b.placement.ask("counter", "d1", { type: "count" })).toBe(3);
    } finally {
      await close(b);
    }
  });

  test("a handler that answers at once runs on the owner's idle actor in its turn: once per ask, its errors typed, after what runs before it", async () => {
    const owners = new Map([["e", "B"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const [a, b] = [await node("A", owners, prefix), await node("B", owners, prefix)];
    try {
      expect(await a.placement.ask("tally", "e1", { type: "tally" })).toEqual({ node: "B", n: 1 });
      const refused = await a.placement.ask<any>("tally", "e1", { type: "refuse" }).catch((e): any => e);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ code: "rate_limit_exceeded", status: 429, details: { node: "B" }, headers: { "Retry-After": "3" } });
      // Attempts of one ask (sent by hand, as a forwarder's retries go) run it once.
      const frame = (askId: string) => `a3000 ${askId}\ntally\ne1\n${codec.encodeCommand({ type: "tally" })}`;
      const attempt = async (askId: string) => codec.decodeReply((await b.nc.request(`${prefix}.actors.node.B`, frame(askId), { timeout: 3000 })).string().slice(1));
      expect(await attempt("X.1")).toEqual({ ok: true, value: { node: "B", n: 2 } });
      expect(await attempt("X.1")).toEqual({ ok: true, value: { node: "B", n: 2 } });
      // A busy actor: the forwarded ask waits for the running message, then runs.
      const held = a.placement.ask("tally", "e1", { type: "hold", ms: 300 });
      await Bun.sleep(100);
      expect(await a.placement.ask("tally", "e1", { type: "tally" })).toEqual({ node: "B", n: 3 });
      expect(await held).toBe("held");
      expect(await b.placement.ask("tally", "e1", { type: "tally" })).toEqual({ node: "B", n: 4 });
      expect(await a.placement.ask("tally", "e1", { type: "log" })).toEqual(["tally 1", "tally 2", "hold start", "hold end", "tally 3", "tally 4"]);
    } finally {
      await close(a, b);
    }
  });

  test("an owner forgets an ask's outcome once its forwarder's mark says the ask has ended, not before", async () => {
    // The mark after the ask id: below which number all of the forwarder's asks have ended.
    const owners = new Map([["d", "B"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const b = await node("B", owners, prefix);
    try {
      const subject = `${prefix}.actors.node.B`;
      const answer = async (ask: string) => {
        const msg = await b.nc.request(subject, `a3000 ${ask}\ncounter\nd1\n${codec.encodeCommand({ type: "count" })}`, { timeout: 3000 });
        return codec.decodeReply(msg.string().slice(1));
      };
      expect(await answer("X.1 1")).toEqual({ ok: true, value: 1 });
      expect(await answer("X.2 1")).toEqual({ ok: true, value: 2 });
      // Not ended yet: a retry gets the one outcome.
      expect(await answer("X.1 1")).toEqual({ ok: true, value: 1 });
      // X says every ask below 2 has ended: X.1's outcome goes (X would never send it again,
      // so the one sent here by hand runs anew), X.2's stays; another forwarder's mark touches neither.
      expect(await answer("X.3 2")).toEqual({ ok: true, value: 3 });
      expect(await answer("Y.1 9")).toEqual({ ok: true, value: 4 });
      expect(await answer("X.2 2")).toEqual({ ok: true, value: 2 });
      expect(await answer("X.1 3")).toEqual({ ok: true, value: 5 });
    } finally {
      await close(b);
    }
  });

  test("a forwarder's marks follow its asks: the mark of a new ask is the lowest of its asks not yet ended", async () => {
    const owners = new Map([["c", "B"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const a = await node("A", owners, prefix);
    const b = await node("B", owners, prefix);
    const marks: string[] = [];
    const sub = b.nc.subscribe(`${prefix}.actors.node.B`, { callback: (_e, m) => void marks.push(...asksIn(m.string())) });
    try {
      await b.nc.flush();
      // One slow ask (another actor) stays out while three quick ones come and go: their marks stay at the slow one.
      // Long enough that the three quick asks are done well before it, even on a loaded machine.
      const slow = a.placement.ask("counter", "c2", { type: "slow", ms: 2000 });
      await Bun.sleep(50);
      for (let i = 0; i < 3; i++) await a.placement.ask("counter", "c1", { type: "count" });
      await slow;
      await a.placement.ask("counter", "c1", { type: "count" });
      expect(marks).toEqual(["A.1 1", "A.2 1", "A.3 1", "A.4 1", "A.5 5"]);
    } finally {
      sub.unsubscribe();
      await close(a, b);
    }
  });

  test("an owner that accepted, then vanished and lost the lease: outcome unknown, never a hang", async () => {
    const owners = new Map([["s", "B"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const [a, b] = [await node("A", owners, prefix, { ackWaitMs: 200 }), await node("B", owners, prefix)];
    let spy: NatsConnection | undefined;
    try {
      // B's "accepted" ("A", sent once the command has run ACK_AFTER_MS) seen on its way to A, and
      // read by A (what the server sent A before answering A's flush, A has read). A fixed wait
      // of 500 ms was not always enough on a loaded machine: the ask then ran on A instead.
      spy = await connect({ servers: url });
      const accepted = new Promise<void>((resolve) => spy!.subscribe(`${prefix}.actors.reply.A.>`, { callback: (_e, m) => void (m.string() === "A" && resolve()) }));
      await spy.flush();
      const pending = a.placement.ask<any>("counter", "s1", { type: "slow", ms: 10_000 }).catch((e): any => e);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("timed out waiting for B's acceptance")), 15_000)));
      await Promise.race([accepted, timedOut]).finally(() => clearTimeout(timer));
      await a.nc.flush();
      await b.nc.close(); // B is cut off before answering
      owners.set("s", "A");
      const err = await pending;
      expect(err).toBeInstanceOf(PlacementOutcomeUnknownError);
    } finally {
      await spy?.close();
      await a.placement.close();
      await a.nc.close();
      await b.system.shutdown({ drainTimeoutMs: 0 });
    }
  });

  test("the forwards of one turn to one node travel as one NATS message, and so do their answers; a large one alone, in order", async () => {
    const owners = new Map([["b", "B"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const [a, b] = [await node("A", owners, prefix), await node("B", owners, prefix)];
    const spy = await connect({ servers: url });
    try {
      const requests: string[] = [];
      const answers: string[] = [];
      // Single messages on the node's subject, envelopes on `{subject}.B`.
      spy.subscribe(`${prefix}.actors.node.B`, { callback: (_err, m) => void requests.push(m.string()) });
      spy.subscribe(`${prefix}.actors.node.B.B`, { callback: (_err, m) => void requests.push(m.string()) });
      spy.subscribe(`${prefix}.actors.reply.A.*`, { callback: (_err, m) => void answers.push(m.subject.split(".").pop()!) });
      await spy.flush();
      const big = "x".repeat(40_000);
      const sent = [
        ...Array.from({ length: 10 }, () => a.placement.ask<number>("counter", "b1", { type: "count" })),
        a.placement.ask<{ value: string }>("counter", "b1", { type: "echo", value: big }).then((r) => r.value.length),
        a.placement.read<{ value: number }>("counter", "b1", { type: "echo", value: 7 }).then((r) => r.value),
        a.placement.ask<number>("counter", "b1", { type: "count" }),
      ];
      expect(await Promise.all(sent)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 40_000, 7, 11]);
      await spy.flush();
      // The ten counts, then the large echo alone, then the read and the last count together.
      expect(requests.length).toBe(3);
      expect(requests.map((r) => r[0])).toEqual(["B", "a", "B"]);
      expect(answers.filter((t) => t === "B").length).toBeGreaterThan(0);
      expect(answers.length).toBeLessThan(sent.length);
    } finally {
      await spy.close();
      await close(a, b);
    }
  });

  /** Forwards to B on the spy's count: single messages on the node's subject, envelopes on `{subject}.B`. */
  async function countRequests(prefix: string, run: (a: TestNode) => Promise<void>, flushGapMs: number): Promise<number> {
    const owners = new Map([["b", "B"]]);
    // A forward silent for ackWaitMs is sent again: far longer here than any gap the test waits.
    const opts = { flushGapMs, ackWaitMs: 10_000 };
    const [a, b] = [await node("A", owners, prefix, opts), await node("B", owners, prefix, opts)];
    const spy = await connect({ servers: url });
    try {
      let requests = 0;
      spy.subscribe(`${prefix}.actors.node.B`, { callback: () => void requests++ });
      spy.subscribe(`${prefix}.actors.node.B.B`, { callback: () => void requests++ });
      await spy.flush();
      await run(a);
      await spy.flush();
      return requests;
    } finally {
      await spy.close();
      await close(a, b);
    }
  }

  test("under load, forwards made on later turns within the flush gap leave together; a lone ask leaves at once", async () => {
    const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
    // Ten asks in one turn, then one on each of the next five turns while the ten are out.
    const burst = async (a: TestNode) => {
      const asks = Array.from({ length: 10 }, () => a.placement.ask<number>("counter", "b1", { type: "count" }));
      for (let i = 0; i < 5; i++) {
        await nextTurn();
        asks.push(a.placement.ask<number>("counter", "b1", { type: "count" }));
      }
      expect((await Promise.all(asks)).sort((x, y) => x - y)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    };
    // With a gap, the five wait for it and leave as one envelope; without, each leaves on its turn.
    expect(await countRequests(`t${crypto.randomUUID().slice(0, 8)}`, burst, 300)).toBe(2);
    expect(await countRequests(`t${crypto.randomUUID().slice(0, 8)}`, burst, 0)).toBe(6);
    // One ask at a time is not held for the gap: with a gap longer than this test may take,
    // each still leaves on the next turn, and all are answered.
    const oneByOne = async (a: TestNode) => {
      for (let i = 1; i <= 3; i++) expect(await a.placement.ask<number>("counter", "b1", { type: "count" })).toBe(i);
    };
    expect(await countRequests(`t${crypto.randomUUID().slice(0, 8)}`, oneByOne, 60_000)).toBe(3);
  });

  test("the server's 'no responders' to an envelope reaches every ask inside it", async () => {
    const owners = new Map([["g", "Gone"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const a = await node("A", owners, prefix, { askTimeoutMs: 400, ackWaitMs: 10_000 });
    try {
      const errs = await Promise.all(Array.from({ length: 5 }, () => a.placement.ask("counter", "g1", { type: "count" }).catch((e): unknown => e)));
      for (const err of errs) expect(err).toBeInstanceOf(PlacementUnavailableError);
      // Each ask heard that nobody listens (the silence wait is far longer than the deadline).
      expect(a.own.unreachables.length).toBeGreaterThanOrEqual(5);
    } finally {
      await close(a);
    }
  });

  test("a node that takes no envelopes (an older version) still gets every forward, one by one", async () => {
    const owners = new Map([["o", "Old"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const a = await node("A", owners, prefix, { ackWaitMs: 10_000 });
    // The older node: a subscriber on its node subject only, answering each request alone.
    const old = await connect({ servers: url });
    let n = 0;
    old.subscribe(`${prefix}.actors.node.Old`, {
      callback: (_err, m) => {
        if (m.reply) old.publish(m.reply, `V${codec.encodeReply({ ok: true, value: ++n })}`);
      },
    });
    await old.flush();
    try {
      const counts = await Promise.all(Array.from({ length: 6 }, () => a.placement.ask<number>("counter", "o1", { type: "count" })));
      expect(counts.sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(a.own.unreachables).toEqual([]);
      // And later ones, sent one by one from the start.
      expect(await Promise.all([a.placement.ask("counter", "o1", { type: "count" }), a.placement.ask("counter", "o1", { type: "count" })])).toHaveLength(2);
    } finally {
      await old.close();
      await close(a);
    }
  });

  test("a dead node's subject answers probes 'absent' and reports it unreachable; a live node's proves itself alive", async () => {
    const owners = new Map([["g", "Gone"], ["b", "B"]]);
    const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
    const [a, b] = [await node("A", owners, prefix, { askTimeoutMs: 300 }), await node("B", owners, prefix)];
    try {
      expect(await a.placement.probe("Gone")).toBe("absent");
      expect(await a.placement.probe("B")).toBe("present");
      await a.placement.ask("counter", "g1", { type: "count" }).catch(() => {});
      expect(a.own.unreachables).toContain("Gone");
      // A PING answered since: this node's subject is on the server.
      const since = performance.now();
      await Bun.sleep(300);
      expect(b.placement.reachableSince(since)).toBe(true);
      await b.nc.close();
      const after = performance.now();
      await Bun.sleep(300);
      // No PING sent after its connection closed is answered: it may not serve any more.
      expect(b.placement.reachableSince(after)).toBe(false);
      expect(await a.placement.probe("B")).toBe("absent");
    } finally {
      await a.placement.close();
      await a.nc.close();
      await b.system.shutdown({ drainTimeoutMs: 0 });
    }
  });
});

/** The ask ids with their marks in a plain request frame (`a{timeout} {askId} {mark}\n…`). */
function asksIn(frame: string): string[] {
  const head = frame.slice(0, frame.indexOf("\n"));
  const space = head.indexOf(" ");
  return head.startsWith("a") && space > 0 ? [head.slice(space + 1)] : [];
}
