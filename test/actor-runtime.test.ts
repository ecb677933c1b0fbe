import { afterEach, describe, expect, test } from "bun:test";
import { fileURLToPath } from "node:url";
import {
  ActorActivationError,
  ActorError,
  ActorStoppedError,
  ActorSystem,
  ActorTimeoutError,
  LocalPlacement,
  UnknownActorKindError,
  type ActorContext,
  type ActorDefinition,
  type ActorLogger,
  type ActorSystemOptions,
} from "../actors/runtime/index.ts";

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (err: unknown) => void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

interface LogEntry {
  level: "debug" | "warn" | "error";
  obj: Record<string, unknown>;
  msg: string | undefined;
}

function captureLogger(): ActorLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const push = (level: LogEntry["level"]) => (obj: object, msg?: string) => {
    entries.push({ level, obj: obj as Record<string, unknown>, msg });
  };
  return { entries, debug: push("debug"), warn: push("warn"), error: push("error") };
}

/** Lets pending microtasks and one timer turn run. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Polls a condition across event-loop turns; fails the test (via its own timeout) if it never holds. */
async function eventually(cond: () => boolean): Promise<void> {
  while (!cond()) await nextTurn();
}

async function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error };
  }
}

/** A counter actor whose hooks record every call, for lifecycle assertions. */
interface CounterState {
  id: string;
  generation: number;
  count: number;
  seen: unknown[];
  passivated: boolean;
}

type CounterMsg =
  | { type: "add"; n?: number }
  | { type: "get" }
  | { type: "wait"; gate: Promise<void>; started?: () => void }
  | { type: "throw"; error: unknown }
  | { type: "reject"; error: unknown };

function counterKind(overrides: Partial<ActorDefinition<CounterState, CounterMsg, unknown>> = {}) {
  const calls = {
    activate: [] as string[],
    passivate: [] as { id: string; state: CounterState }[],
    handled: [] as unknown[],
  };
  let generation = 0;
  const def: ActorDefinition<CounterState, CounterMsg, unknown> = {
    kind: "counter",
    async activate(id) {
      calls.activate.push(id);
      await nextTurn();
      return { id, generation: ++generation, count: 0, seen: [], passivated: false };
    },
    async handle(state, msg) {
      if (state.passivated) throw new Error("handled against passivated state");
      calls.handled.push(msg);
      state.seen.push(msg);
      switch (msg.type) {
        case "add":
          state.count += msg.n ?? 1;
          return state.count;
        case "get":
          return { ...state, seen: [...state.seen] };
        case "wait":
          msg.started?.();
          await msg.gate;
          state.count += 1;
          return state.count;
        case "throw":
          throw msg.error;
        case "reject":
          await Promise.resolve();
          throw msg.error;
      }
    },
    passivate(id, state) {
      state.passivated = true;
      calls.passivate.push({ id, state });
    },
    ...overrides,
  };
  return { def, calls };
}

const systems: ActorSystem[] = [];

function makeSystem(opts: ActorSystemOptions = {}): ActorSystem & { log: ReturnType<typeof captureLogger> } {
  const log = captureLogger();
  const system = new ActorSystem({ logger: log, idleMs: 1_000, sweepIntervalMs: 60_000, ...opts });
  systems.push(system);
  return Object.assign(system, { log });
}

afterEach(async () => {
  // Tests that leave work behind must not leak timers into the next test.
  await Promise.all(systems.splice(0).map((s) => s.shutdown({ drainTimeoutMs: 0 })));
});

// ---------------------------------------------------------------------------
// Activation
// ---------------------------------------------------------------------------

describe("activation", () => {
  test("activates on the first message and keeps state across messages", async () => {
    const system = makeSystem();
    const { def, calls } = counterKind();
    system.register(def);

    expect(system.activeCount()).toBe(0);
    expect(await system.ask("counter", "a", { type: "add", n: 2 })).toBe(2);
    expect(await system.ask("counter", "a", { type: "add", n: 3 })).toBe(5);
    expect(calls.activate).toEqual(["a"]);
    expect(system.activeCount()).toBe(1);
    expect(system.activeCount("counter")).toBe(1);
  });

  test("concurrent first messages share a single activation", async () => {
    const system = makeSystem();
    const { def, calls } = counterKind();
    system.register(def);

    const replies = await Promise.all(
      Array.from({ length: 20 }, () => system.ask("counter", "a", { type: "add" })),
    );
    expect(calls.activate).toEqual(["a"]);
    expect(replies).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  test("a failed activation rejects every queued message with the cause, drops the actor, and is retried later", async () => {
    const system = makeSystem();
    const boom = new Error("db down");
    const gate = deferred();
    let attempts = 0;
    const { def } = counterKind({
      async activate(id) {
        attempts++;
        if (attempts === 1) {
          await gate.promise;
          throw boom;
        }
        return { id, generation: attempts, count: 0, seen: [], passivated: false };
      },
    });
    system.register(def);

    const first = settle(system.ask("counter", "a", { type: "add" }));
    const second = settle(system.ask("counter", "a", { type: "add" }));
    system.tell("counter", "a", { type: "add" });
    expect(system.queueDepth()).toBe(3);
    gate.resolve();

    for (const outcome of [await first, await second]) {
      expect(outcome.ok).toBe(false);
      if (outcome.ok) continue;
      expect(outcome.error).toBeInstanceOf(ActorActivationError);
      expect(outcome.error).toBeInstanceOf(ActorError);
      expect((outcome.error as ActorActivationError).cause).toBe(boom);
      expect((outcome.error as ActorActivationError).kind).toBe("counter");
      expect((outcome.error as ActorActivationError).id).toBe("a");
    }
    // The tell had nobody to reject to, so it was logged.
    const tellLog = system.log.entries.find((e) => e.level === "error" && e.msg === "actor tell failed");
    expect(tellLog?.obj.err).toBeInstanceOf(ActorActivationError);
    expect(tellLog?.obj).toMatchObject({ kind: "counter", id: "a" });
    expect(system.activeCount()).toBe(0);
    expect(system.queueDepth()).toBe(0);

    expect(await system.ask("counter", "a", { type: "add" })).toBe(1);
    expect(attempts).toBe(2);
  });

  test("an activate that throws synchronously fails the message instead of stranding it", async () => {
    const system = makeSystem({ askTimeoutMs: 0 });
    const boom = new Error("sync");
    const { def } = counterKind({
      activate: (() => {
        throw boom;
      }) as unknown as ActorDefinition<CounterState, CounterMsg>["activate"],
    });
    system.register(def);

    const outcome = await settle(system.ask("counter", "a", { type: "add" }));
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect((outcome.error as Error).cause).toBe(boom);
    expect(system.activeCount()).toBe(0);
  });

  test("unknown kinds are rejected with UnknownActorKindError (ask) or logged (tell)", async () => {
    const system = makeSystem();
    const outcome = await settle(system.ask("nope", "a", {}));
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error).toBeInstanceOf(UnknownActorKindError);
      expect((outcome.error as UnknownActorKindError).kind).toBe("nope");
    }
    system.tell("nope", "a", {});
    expect(system.log.entries.some((e) => e.level === "error" && e.obj.err instanceof UnknownActorKindError)).toBe(
      true,
    );
    expect(system.activeCount()).toBe(0);
  });

  test("registering a kind twice throws", () => {
    const system = makeSystem();
    system.register(counterKind().def);
    expect(() => system.register(counterKind().def)).toThrow(ActorError);
  });
});

// ---------------------------------------------------------------------------
// Ordering and concurrency
// ---------------------------------------------------------------------------

describe("ordering", () => {
  test("one message at a time per actor, in arrival order, even with interleaving awaits", async () => {
    const system = makeSystem();
    const trace: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    system.register<null, number, number>({
      kind: "seq",
      activate: async () => null,
      async handle(_state, n) {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        trace.push(`start ${n}`);
        // Uneven waits: without serialisation, later messages would overtake earlier ones.
        if (n % 3 === 0) await nextTurn();
        else for (let i = 0; i < n % 5; i++) await Promise.resolve();
        trace.push(`end ${n}`);
        inFlight--;
        return n;
      },
    });

    // The first batch queues behind activation; the second arrives while the
    // actor is already active and mid-handler, the path a busy actor takes.
    const replies = Array.from({ length: 15 }, (_, n) => system.ask<number>("seq", "x", n));
    await eventually(() => trace.length > 0);
    for (let n = 15; n < 30; n++) {
      replies.push(system.ask<number>("seq", "x", n));
      if (n % 4 === 0) await Promise.resolve();
    }
    expect(await Promise.all(replies)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    expect(maxInFlight).toBe(1);
    expect(trace).toEqual(Array.from({ length: 30 }, (_, n) => [`start ${n}`, `end ${n}`]).flat());
  });

  test("tells and asks to one actor share the same FIFO", async () => {
    const system = makeSystem();
    const { def } = counterKind();
    system.register(def);
    for (let i = 0; i < 10; i++) system.tell("counter", "a", { type: "add" });
    expect(await system.ask("counter", "a", { type: "add", n: 0 })).toBe(10);
  });

  test("different actor ids run concurrently", async () => {
    const system = makeSystem({ askTimeoutMs: 0 });
    const { def } = counterKind();
    system.register(def);
    const gate = deferred();
    const started = deferred();

    const blocked = system.ask("counter", "a", { type: "wait", gate: gate.promise, started: started.resolve });
    await started.promise;
    // "a" is stuck in its handler; "b" must still make progress.
    expect(await system.ask("counter", "b", { type: "add" })).toBe(1);
    gate.resolve();
    expect(await blocked).toBe(1);
  });

  test("a handler's reply to one actor does not run on the sender's stack", async () => {
    const system = makeSystem();
    const order: string[] = [];
    system.register<null, string, void>({
      kind: "echo",
      activate: async () => null,
      handle(_s, msg) {
        order.push(msg);
      },
    });
    await system.ask("echo", "a", "warm-up");
    const reply = system.ask("echo", "a", "second");
    order.push("after ask returned");
    await reply;
    expect(order).toEqual(["warm-up", "after ask returned", "second"]);
  });
});

// ---------------------------------------------------------------------------
// Error isolation
// ---------------------------------------------------------------------------

describe("error isolation", () => {
  class DomainError extends Error {
    readonly code = "mailbox_disabled";
  }

  test("a sync throw rejects only that ask, with the same error object, and the actor keeps its state", async () => {
    const system = makeSystem();
    const { def } = counterKind();
    system.register(def);
    const err = new DomainError("disabled");

    await system.ask("counter", "a", { type: "add", n: 5 });
    const outcome = await settle(system.ask("counter", "a", { type: "throw", error: err }));
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error).toBe(err);
      expect(outcome.error).toBeInstanceOf(DomainError);
    }
    expect(await system.ask("counter", "a", { type: "add" })).toBe(6);
  });

  test("an async rejection is passed through unchanged, including non-Error values", async () => {
    const system = makeSystem();
    const { def } = counterKind();
    system.register(def);
    const err = new DomainError("async");
    const thrown = { code: "weird" };

    const asyncOutcome = await settle(system.ask("counter", "a", { type: "reject", error: err }));
    const plainOutcome = await settle(system.ask("counter", "a", { type: "throw", error: thrown }));
    expect(asyncOutcome).toEqual({ ok: false, error: err });
    if (!asyncOutcome.ok) expect(asyncOutcome.error).toBe(err);
    if (!plainOutcome.ok) expect(plainOutcome.error).toBe(thrown);
    expect(await system.ask("counter", "a", { type: "add" })).toBe(1);
  });

  test("failing tells are logged, not surfaced, and nothing becomes an unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const system = makeSystem();
      const { def } = counterKind();
      system.register(def);
      const syncErr = new Error("sync tell");
      const asyncErr = new Error("async tell");

      system.tell("counter", "a", { type: "throw", error: syncErr });
      system.tell("counter", "a", { type: "reject", error: asyncErr });
      expect(await system.ask("counter", "a", { type: "add" })).toBe(1);
      await nextTurn();
      await nextTurn();

      const errors = system.log.entries.filter((e) => e.level === "error");
      expect(errors.map((e) => e.obj.err)).toEqual([syncErr, asyncErr]);
      expect(errors[0]?.obj).toMatchObject({ kind: "counter", id: "a" });
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  test("handlers get a context whose logger names the actor", async () => {
    const system = makeSystem();
    let seen: ActorContext | undefined;
    system.register<null, null, void>({
      kind: "ctx",
      activate: async () => null,
      handle(_s, _m, ctx) {
        seen = ctx;
        ctx.logger.warn({ detail: 1 }, "hello");
      },
    });
    await system.ask("ctx", "a1", null);
    expect(seen?.id).toBe("a1");
    expect(seen?.kind).toBe("ctx");
    expect(system.log.entries).toContainEqual({
      level: "warn",
      obj: { kind: "ctx", id: "a1", detail: 1 },
      msg: "hello",
    });
  });
});

// ---------------------------------------------------------------------------
// Ask timeouts
// ---------------------------------------------------------------------------

describe("ask timeout", () => {
  test("a message that times out before it starts is skipped and leaves the queue", async () => {
    const system = makeSystem({ askTimeoutMs: 0 });
    const { def, calls } = counterKind();
    system.register(def);
    const gate = deferred();
    const started = deferred();

    const running = system.ask("counter", "a", { type: "wait", gate: gate.promise, started: started.resolve });
    await started.promise;
    const skipped = settle(system.ask("counter", "a", { type: "add", n: 100 }, { timeoutMs: 5 }));
    expect(system.queueDepth()).toBe(1);

    const outcome = await skipped;
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error).toBeInstanceOf(ActorTimeoutError);
      expect((outcome.error as ActorTimeoutError).timeoutMs).toBe(5);
    }
    expect(system.queueDepth()).toBe(0);

    gate.resolve();
    expect(await running).toBe(1);
    expect(await system.ask("counter", "a", { type: "add" })).toBe(2);
    expect(calls.handled).not.toContainEqual({ type: "add", n: 100 });
  });

  test("a message running when its deadline passes reports its own result, and the actor moves on", async () => {
    const system = makeSystem({ askTimeoutMs: 5 }); // the system default applies
    const { def, calls } = counterKind();
    system.register(def);
    await system.ask("counter", "a", { type: "add" });
    const gate = deferred();
    const started = deferred();

    const outcome = settle(system.ask("counter", "a", { type: "wait", gate: gate.promise, started: started.resolve }));
    await started.promise;
    // Armed after the running one, with the same timeout: once it is dropped, the running
    // message's deadline has passed too.
    const dropped = await settle(system.ask("counter", "a", { type: "add", n: 100 }));
    expect(dropped.ok).toBe(false);
    if (!dropped.ok) expect(dropped.error).toBeInstanceOf(ActorTimeoutError);

    gate.resolve();
    // The caller of the running message gets what it did (count 2), not a timeout.
    expect(await outcome).toEqual({ ok: true, value: 2 });
    expect(await system.ask("counter", "a", { type: "add" }, { timeoutMs: 0 })).toBe(3);
    expect(calls.handled).not.toContainEqual({ type: "add", n: 100 });
  });

  test("a handler failure after its deadline reaches the caller as itself", async () => {
    const system = makeSystem({ askTimeoutMs: 5 });
    const gate = deferred();
    const started = deferred();
    const late = new Error("late");
    system.register<null, "slow" | "probe", string>({
      kind: "late",
      activate: async () => null,
      async handle(_state, msg) {
        if (msg === "probe") return "probed";
        started.resolve();
        await gate.promise;
        throw late;
      },
    });
    const outcome = settle(system.ask("late", "a", "slow"));
    await started.promise;
    const probe = await settle(system.ask("late", "a", "probe"));
    expect(probe.ok).toBe(false);
    if (!probe.ok) expect(probe.error).toBeInstanceOf(ActorTimeoutError);
    gate.resolve();
    const failed = await outcome;
    expect(failed.ok).toBe(false);
    if (!failed.ok) expect(failed.error).toBe(late);
  });

  test("a message whose deadline passes while the actor activates never runs", async () => {
    const system = makeSystem({ askTimeoutMs: 0 });
    const gate = deferred();
    const handled: string[] = [];
    system.register<null, string, string>({
      kind: "slow-start",
      async activate() {
        await gate.promise;
        return null;
      },
      handle(_state, msg) {
        handled.push(msg);
        return msg;
      },
    });
    const dropped = await settle(system.ask("slow-start", "a", "dropped", { timeoutMs: 5 }));
    expect(dropped.ok).toBe(false);
    if (!dropped.ok) expect(dropped.error).toBeInstanceOf(ActorTimeoutError);
    const kept = system.ask("slow-start", "a", "kept");
    gate.resolve();
    expect(await kept).toBe("kept");
    expect(handled).toEqual(["kept"]);
  });

  test("a batchable message dropped at its deadline is left out of the batch", async () => {
    const system = makeSystem({ askTimeoutMs: 0 });
    const gate = deferred();
    const started = deferred();
    const batches: string[][] = [];
    system.register<null, string, string>({
      kind: "batcher",
      activate: async () => null,
      async handle(_state, msg) {
        started.resolve();
        await gate.promise;
        return msg;
      },
      batchKey: (msg) => (msg.startsWith("b") ? "b" : undefined),
      async handleBatch(_state, msgs) {
        batches.push(msgs);
        return msgs.map((m) => ({ ok: true as const, value: m }));
      },
    });
    const blocker = system.ask("batcher", "a", "hold");
    await started.promise;
    const b1 = system.ask("batcher", "a", "b1");
    const dropped = settle(system.ask("batcher", "a", "b2", { timeoutMs: 5 }));
    const b3 = system.ask("batcher", "a", "b3");
    const outcome = await dropped;
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toBeInstanceOf(ActorTimeoutError);
    gate.resolve();
    expect(await Promise.all([blocker, b1, b3])).toEqual(["hold", "b1", "b3"]);
    expect(batches).toEqual([["b1", "b3"]]);
  });

  test("timeoutMs 0 disables the timeout; invalid values are rejected", async () => {
    const system = makeSystem({ askTimeoutMs: 1 });
    const { def } = counterKind();
    system.register(def);
    const gate = deferred();
    const reply = system.ask("counter", "a", { type: "wait", gate: gate.promise }, { timeoutMs: 0 });
    setTimeout(gate.resolve, 20);
    expect(await reply).toBe(1);

    const bad = await settle(system.ask("counter", "a", { type: "add" }, { timeoutMs: -1 }));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toBeInstanceOf(RangeError);
  });
});

// ---------------------------------------------------------------------------
// Passivation
// ---------------------------------------------------------------------------

describe("passivation", () => {
  test("an idle actor is passivated with its state and re-activated by the next message", async () => {
    const system = makeSystem({ idleMs: 1_000 });
    const { def, calls } = counterKind();
    system.register(def);
    await system.ask("counter", "a", { type: "add", n: 7 });
    await system.ask("counter", "b", { type: "add" });

    expect(await system.passivateIdle(Date.now())).toBe(0); // not idle long enough yet
    expect(system.activeCount()).toBe(2);

    expect(await system.passivateIdle(Date.now() + 1_000)).toBe(2);
    expect(system.activeCount()).toBe(0);
    const a = calls.passivate.find((p) => p.id === "a");
    expect(a?.state.count).toBe(7);

    // Fresh state after re-activation: the counter starts over.
    expect(await system.ask("counter", "a", { type: "add" })).toBe(1);
    expect(calls.activate).toEqual(["a", "b", "a"]);
  });

  test("an actor with a running or queued message is never passivated", async () => {
    const system = makeSystem({ askTimeoutMs: 0 });
    const { def, calls } = counterKind();
    system.register(def);
    const gate = deferred();
    const started = deferred();
    const running = system.ask("counter", "a", { type: "wait", gate: gate.promise, started: started.resolve });
    await started.promise;
    const queued = system.ask("counter", "a", { type: "add" });

    expect(await system.passivateIdle(Date.now() + 10_000)).toBe(0);
    gate.resolve();
    await Promise.all([running, queued]);
    expect(calls.passivate).toEqual([]);
    // Idleness counts from the last message, not from activation.
    expect(await system.passivateIdle(Date.now() + 1_000)).toBe(1);
  });

  test("canPassivate returning false keeps the actor until a later sweep allows it", async () => {
    const system = makeSystem();
    let allow = false;
    const asked: { state: CounterState; now: number }[] = [];
    const { def, calls } = counterKind({
      canPassivate(state, now) {
        asked.push({ state, now });
        return allow;
      },
    });
    system.register(def);
    await system.ask("counter", "a", { type: "add" });

    const now = Date.now() + 5_000;
    expect(await system.passivateIdle(now)).toBe(0);
    expect(system.activeCount()).toBe(1);
    expect(asked[0]?.now).toBe(now);
    expect(asked[0]?.state.count).toBe(1);

    allow = true;
    expect(await system.passivateIdle(now)).toBe(1);
    expect(calls.passivate).toHaveLength(1);
    expect(system.activeCount()).toBe(0);
  });

  test("a message arriving during passivation waits for it, then runs on a fresh activation", async () => {
    const system = makeSystem({ askTimeoutMs: 0 });
    const gate = deferred();
    const passivating = deferred();
    const { def, calls } = counterKind({
      async passivate(id, state) {
        passivating.resolve();
        await gate.promise;
        state.passivated = true;
        calls.passivate.push({ id, state });
      },
    });
    system.register(def);
    await system.ask("counter", "a", { type: "add", n: 4 });

    const sweep = system.passivateIdle(Date.now() + 1_000);
    await passivating.promise;
    const reply = system.ask("counter", "a", { type: "get" });
    await nextTurn();
    expect(calls.handled).toHaveLength(1); // still waiting behind the passivation
    expect(calls.activate).toEqual(["a"]);
    expect(system.activeCount()).toBe(1);
    expect(system.queueDepth()).toBe(1);

    gate.resolve();
    expect(await sweep).toBe(1);
    const state = (await reply) as CounterState;
    expect(state.generation).toBe(2);
    expect(state.count).toBe(0);
    expect(calls.activate).toEqual(["a", "a"]);
    expect(system.activeCount()).toBe(1);
  });

  test("a passivate hook that throws is logged and the actor is still removed", async () => {
    const system = makeSystem();
    const boom = new Error("flush failed");
    const { def } = counterKind({
      passivate() {
        throw boom;
      },
    });
    system.register(def);
    await system.ask("counter", "a", { type: "add" });

    expect(await system.passivateIdle(Date.now() + 1_000)).toBe(1);
    expect(system.activeCount()).toBe(0);
    expect(system.log.entries.some((e) => e.level === "error" && e.obj.err === boom)).toBe(true);
    expect(await system.ask("counter", "a", { type: "add" })).toBe(1);
  });

  test("the periodic sweep passivates idle actors on its own", async () => {
    const system = makeSystem({ idleMs: 1, sweepIntervalMs: 5 });
    const passivated = deferred<string>();
    const { def } = counterKind({
      passivate(id) {
        passivated.resolve(id);
      },
    });
    system.register(def);
    await system.ask("counter", "a", { type: "add" });
    expect(await passivated.promise).toBe("a");
    await eventually(() => system.activeCount() === 0);
  });

  test("the sweep timer does not keep the process alive", async () => {
    const entry = fileURLToPath(new URL("../actors/runtime/index.ts", import.meta.url));
    const script = `
      import { ActorSystem } from ${JSON.stringify(entry)};
      const system = new ActorSystem({ idleMs: 60_000, sweepIntervalMs: 10 });
      system.register({ kind: "k", activate: async () => 0, handle: (s) => s });
      await system.ask("k", "a", null);
      console.log("done");
    `;
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    // If the timer kept the process alive this would never resolve and the test would time out.
    expect(await proc.exited).toBe(0);
    expect((await new Response(proc.stdout).text()).trim()).toBe("done");
  });
});

// ---------------------------------------------------------------------------
// Shutdown
// ---------------------------------------------------------------------------

describe("shutdown", () => {
  test("drains queued messages, passivates every actor, and refuses new messages", async () => {
    const system = makeSystem({ askTimeoutMs: 0 });
    const { def, calls } = counterKind();
    system.register(def);
    await system.ask("counter", "idle", { type: "add" });

    // Queued while "busy" is still activating: they must run before shutdown completes.
    const replies = [1, 2, 3].map(() => system.ask("counter", "busy", { type: "add" }));
    system.tell("counter", "busy", { type: "add", n: 10 });
    const done = system.shutdown();

    const refused = await settle(system.ask("counter", "idle", { type: "add" }));
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error).toBeInstanceOf(ActorStoppedError);
    system.tell("counter", "idle", { type: "add" });
    expect(system.log.entries.some((e) => e.level === "error" && e.obj.err instanceof ActorStoppedError)).toBe(true);

    await done;
    expect(await Promise.all(replies)).toEqual([1, 2, 3]);
    const byId = Object.fromEntries(calls.passivate.map((p) => [p.id, p.state.count]));
    expect(byId).toEqual({ idle: 1, busy: 13 });
    expect(system.activeCount()).toBe(0);
    expect(system.queueDepth()).toBe(0);
    expect(() => system.register({ ...def, kind: "late" })).toThrow(ActorStoppedError);
    expect(await system.passivateIdle(Date.now() + 10_000)).toBe(0);
  });

  test("calling shutdown twice returns the same promise", async () => {
    const system = makeSystem();
    system.register(counterKind().def);
    const first = system.shutdown();
    const second = system.shutdown({ drainTimeoutMs: 1 });
    expect(second).toBe(first);
    await first;
  });

  test("after drainTimeoutMs, still-queued messages reject and the busy actor passivates once it finishes", async () => {
    const system = makeSystem({ askTimeoutMs: 0 });
    const { def, calls } = counterKind();
    system.register(def);
    await system.ask("counter", "idle", { type: "add" });
    const gate = deferred();
    const started = deferred();
    const running = system.ask("counter", "stuck", { type: "wait", gate: gate.promise, started: started.resolve });
    await started.promise;
    const queued = settle(system.ask("counter", "stuck", { type: "add" }));

    await system.shutdown({ drainTimeoutMs: 5 });
    const outcome = await queued;
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toBeInstanceOf(ActorStoppedError);
    expect(calls.passivate.map((p) => p.id)).toEqual(["idle"]);
    expect(system.log.entries.some((e) => e.level === "warn" && e.obj.actors === 1)).toBe(true);

    gate.resolve();
    expect(await running).toBe(1); // the running message was not interrupted
    await eventually(() => calls.passivate.length === 2);
    expect(calls.passivate[1]?.id).toBe("stuck");
    expect(system.activeCount()).toBe(0);
  });

  test("waits for an in-progress idle passivation, including messages that queued behind it", async () => {
    const system = makeSystem({ askTimeoutMs: 0 });
    const gate = deferred();
    const passivating = deferred();
    let passivations = 0;
    const { def, calls } = counterKind({
      async passivate(id, state) {
        passivations++;
        if (passivations === 1) {
          passivating.resolve();
          await gate.promise;
        }
        state.passivated = true;
        calls.passivate.push({ id, state });
      },
    });
    system.register(def);
    await system.ask("counter", "a", { type: "add" });

    const sweep = system.passivateIdle(Date.now() + 1_000);
    await passivating.promise;
    const reply = system.ask("counter", "a", { type: "add", n: 5 });
    const done = system.shutdown();
    gate.resolve();

    await done;
    expect(await reply).toBe(5);
    expect(await sweep).toBe(1);
    expect(calls.activate).toEqual(["a", "a"]);
    expect(calls.passivate.map((p) => p.state.count)).toEqual([1, 5]);
    expect(system.activeCount()).toBe(0);
  });
});

// ---------------------------------------------------------------------------
// Introspection
// ---------------------------------------------------------------------------

describe("activeCount and queueDepth", () => {
  test("reflect actors in memory and messages waiting behind the running one", async () => {
    const system = makeSystem({ askTimeoutMs: 0 });
    const { def } = counterKind();
    system.register(def);
    system.register<null, null, null>({ kind: "other", activate: async () => null, handle: () => null });
    const gate = deferred();
    const started = deferred();

    const running = system.ask("counter", "a", { type: "wait", gate: gate.promise, started: started.resolve });
    await started.promise;
    const queued = [system.ask("counter", "a", { type: "add" }), system.ask("counter", "a", { type: "add" })];
    const other = system.ask("counter", "b", { type: "add" });
    // b's message waits for b's activation, so it counts as queued too.
    expect(system.queueDepth("counter")).toBe(3);
    await Promise.all([other, system.ask("other", "x", null)]);

    expect(system.activeCount()).toBe(3);
    expect(system.activeCount("counter")).toBe(2);
    expect(system.activeCount("other")).toBe(1);
    expect(system.activeCount("missing")).toBe(0);
    expect(system.queueDepth("counter")).toBe(2); // a's two, behind its running message
    expect(system.queueDepth()).toBe(2);
    expect(system.queueDepth("other")).toBe(0);

    gate.resolve();
    await Promise.all([running, ...queued]);
    expect(system.queueDepth()).toBe(0);
    expect(await system.passivateIdle(Date.now() + 1_000)).toBe(3);
    expect(system.activeCount()).toBe(0);
  });
});

// ---------------------------------------------------------------------------
// Placement and errors
// ---------------------------------------------------------------------------

describe("LocalPlacement", () => {
  test("forwards ask and tell to the system, and close() shuts it down", async () => {
    const system = makeSystem();
    const { def, calls } = counterKind();
    system.register(def);
    const placement = new LocalPlacement(system);

    placement.tell("counter", "a", { type: "add", n: 2 });
    expect(await placement.ask<number>("counter", "a", { type: "add" }, { timeoutMs: 1_000 })).toBe(3);

    await placement.close();
    await placement.close(); // idempotent
    expect(calls.passivate.map((p) => p.id)).toEqual(["a"]);
    const outcome = await settle(placement.ask("counter", "a", { type: "add" }));
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toBeInstanceOf(ActorStoppedError);
  });
});

describe("errors", () => {
  test("all runtime errors extend ActorError and Error, with stable names", () => {
    const cause = new Error("root");
    const errors = [
      new ActorTimeoutError("k", "i", 5),
      new ActorStoppedError(),
      new UnknownActorKindError("k"),
      new ActorActivationError("k", "i", cause),
    ];
    for (const err of errors) {
      expect(err).toBeInstanceOf(ActorError);
      expect(err).toBeInstanceOf(Error);
    }
    expect(errors.map((e) => e.name)).toEqual([
      "ActorTimeoutError",
      "ActorStoppedError",
      "UnknownActorKindError",
      "ActorActivationError",
    ]);
    expect(errors[3]?.cause).toBe(cause);
    expect(new ActorError("x").name).toBe("ActorError");
  });
});

// ---------------------------------------------------------------------------
// Shared reads
// ---------------------------------------------------------------------------

describe("read (shared handler)", () => {
  const readable = () =>
    counterKind({
      read(state, msg) {
        return msg.type === "get" && state.count < 100 ? { count: state.count, via: "read" } : undefined;
      },
    });

  test("answers from memory while a write is still running, seeing the state before it", async () => {
    const system = makeSystem();
    const { def, calls } = readable();
    system.register(def);
    await system.ask("counter", "a", { type: "add", n: 5 });
    const gate = deferred();
    const started = deferred();
    const write = system.ask("counter", "a", { type: "wait", gate: gate.promise, started: started.resolve });
    await started.promise;
    // The write is mid-flight; an ask would queue behind it, a read does not.
    expect(await system.read("counter", "a", { type: "get" })).toEqual({ count: 5, via: "read" });
    expect(calls.handled.filter((m) => (m as CounterMsg).type === "get")).toHaveLength(0);
    gate.resolve();
    expect(await write).toBe(6);
    expect(await system.read("counter", "a", { type: "get" })).toEqual({ count: 6, via: "read" });
  });

  test("falls back to an ask when the actor is not in memory or the read declines", async () => {
    const system = makeSystem();
    const { def, calls } = readable();
    system.register(def);
    // Not active yet: activated and handled by `handle` in turn.
    const first = (await system.read("counter", "b", { type: "get" })) as CounterState;
    expect(first.count).toBe(0);
    expect(calls.activate).toEqual(["b"]);
    // The read declines (returns undefined): `handle` answers.
    await system.ask("counter", "b", { type: "add", n: 200 });
    const declined = (await system.read("counter", "b", { type: "get" })) as CounterState;
    expect(declined.count).toBe(200);
    expect(calls.handled.filter((m) => (m as CounterMsg).type === "get")).toHaveLength(2);
  });

  test("a read that throws rejects only its own call", async () => {
    const system = makeSystem();
    const boom = new Error("read failed");
    const { def } = counterKind({
      read() {
        throw boom;
      },
    });
    system.register(def);
    await system.ask("counter", "c", { type: "add" });
    expect(await settle(system.read("counter", "c", { type: "get" }))).toEqual({ ok: false, error: boom });
    expect(await system.ask("counter", "c", { type: "add" })).toBe(2);
  });

  test("LocalPlacement forwards reads", async () => {
    const system = makeSystem();
    system.register(readable().def);
    const placement = new LocalPlacement(system);
    await placement.ask("counter", "d", { type: "add", n: 3 });
    expect(await placement.read("counter", "d", { type: "get" })).toEqual({ count: 3, via: "read" });
  });
});

// ---------------------------------------------------------------------------
// Group commit (batchKey / handleBatch)
// ---------------------------------------------------------------------------

describe("batches", () => {
  type Msg = { type: "put" | "other"; n: number };
  const batchingKind = (handled: (string | number[])[]) => ({
    kind: "batcher",
    activate: async () => ({ total: 0 }),
    handle: async (state: { total: number }, msg: Msg) => {
      handled.push(`one:${msg.n}`);
      await Bun.sleep(5);
      return msg.n;
    },
    batchKey: (msg: Msg) => (msg.type === "put" ? "put" : undefined),
    maxBatch: 3,
    handleBatch: async (state: { total: number }, msgs: Msg[]) => {
      handled.push(msgs.map((m) => m.n));
      await Bun.sleep(5);
      return msgs.map((m) => (m.n < 0 ? { ok: false as const, error: new Error(`bad ${m.n}`) } : { ok: true as const, value: (state.total += m.n) }));
    },
  });

  test("messages of one key queued together are handled in one call, in order, each with its own outcome", async () => {
    const system = makeSystem();
    const handled: (string | number[])[] = [];
    system.register(batchingKind(handled));
    const replies = await Promise.allSettled([
      system.ask("batcher", "a", { type: "other", n: 0 }),
      system.ask("batcher", "a", { type: "put", n: 1 }),
      system.ask("batcher", "a", { type: "put", n: -2 }),
      system.ask("batcher", "a", { type: "put", n: 3 }),
      system.ask("batcher", "a", { type: "put", n: 4 }),
      system.ask("batcher", "a", { type: "other", n: 5 }),
      system.ask("batcher", "a", { type: "put", n: 6 }),
    ]);
    // Contiguous runs only, at most maxBatch, order kept.
    expect(handled).toEqual(["one:0", [1, -2, 3], [4], "one:5", [6]]);
    expect(replies.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([0, 1, "bad -2", 4, 8, 5, 14]);
  });

  test("with batchesCommute, a batch gathers its key past other keys' batched messages, never past an unbatched one", async () => {
    type M = { key: "a" | "b" | null; n: number };
    const system = makeSystem();
    const handled: (string | number[])[] = [];
    system.register({
      kind: "commuter",
      activate: async () => null,
      handle: async (_state: null, msg: M) => {
        handled.push(`one:${msg.n}`);
        await Bun.sleep(5);
        return msg.n;
      },
      batchKey: (msg: M) => msg.key ?? undefined,
      batchesCommute: true,
      handleBatch: async (_state: null, msgs: M[]) => {
        handled.push(msgs.map((m) => m.n));
        await Bun.sleep(5);
        return msgs.map((m) => ({ ok: true as const, value: m.n }));
      },
    });
    const ask = (key: M["key"], n: number) => system.ask("commuter", "x", { key, n });
    const replies = await Promise.all([ask(null, 0), ask("a", 1), ask("b", 2), ask("a", 3), ask("b", 4), ask(null, 5), ask("a", 6), ask("b", 7)]);
    expect(handled).toEqual(["one:0", [1, 3], [2, 4], "one:5", [6], [7]]);
    expect(replies).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  test("a batch handler that throws fails every message of the batch, and the actor goes on", async () => {
    const system = makeSystem();
    const handled: (string | number[])[] = [];
    system.register({ ...batchingKind(handled), handleBatch: async () => Promise.reject(new Error("db down")) });
    const replies = await Promise.allSettled([system.ask("batcher", "b", { type: "put", n: 1 }), system.ask("batcher", "b", { type: "put", n: 2 })]);
    expect(replies.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(await system.ask("batcher", "b", { type: "other", n: 7 })).toBe(7);
  });

  test("a batch that throws is handed over again one message at a time, so only the message that breaks it fails", async () => {
    const system = makeSystem();
    const handled: (string | number[])[] = [];
    const base = batchingKind(handled);
    system.register({
      ...base,
      // Like one row that fails a transaction: the whole call throws, nothing is applied.
      handleBatch: async (state: { total: number }, msgs: Msg[]) => {
        if (msgs.some((m) => m.n === 13)) {
          handled.push(msgs.map((m) => m.n));
          throw new Error("poison 13");
        }
        return base.handleBatch(state, msgs);
      },
    });
    const replies = await Promise.allSettled([
      system.ask("batcher", "c", { type: "other", n: 0 }),
      system.ask("batcher", "c", { type: "put", n: 1 }),
      system.ask("batcher", "c", { type: "put", n: 13 }),
      system.ask("batcher", "c", { type: "put", n: 2 }),
    ]);
    expect(handled).toEqual(["one:0", [1, 13, 2], [1], [13], [2]]);
    expect(replies.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([0, 1, "poison 13", 3]);
  });
});
