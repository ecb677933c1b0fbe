import { afterEach, describe, expect, test } from "bun:test";
import { ActorSystem, LocalPlacement, type ActorDefinition } from "../actors/runtime/index.ts";

/**
 * ActorSystem.runNow: the synchronous turn of an idle actor (the read path's admission). It
 * must keep the runtime's promise: one handler at a time, in arrival order, never on state
 * that is not loaded; and when it cannot run at once, nothing runs.
 */

type Msg = { op: "add"; n: number } | { op: "slow"; gate: Promise<void> } | { op: "fail" };

function counter(log: string[]): ActorDefinition<{ total: number }, Msg, number> {
  return {
    kind: "counter",
    activate: async () => ({ total: 0 }),
    handle(state, msg) {
      if (msg.op === "fail") throw new Error("refused");
      if (msg.op === "slow") {
        log.push("slow start");
        return msg.gate.then(() => {
          log.push("slow end");
          return state.total;
        });
      }
      state.total += msg.n;
      log.push(`add ${msg.n}`);
      return state.total;
    },
  };
}

let system: ActorSystem;
afterEach(() => system?.shutdown());

describe("runNow", () => {
  test("an actor not in memory is not activated: nothing runs, the caller asks", async () => {
    const log: string[] = [];
    system = new ActorSystem({ idleMs: Infinity });
    system.register(counter(log));
    expect(system.runNow("counter", "a", { op: "add", n: 1 })).toBeUndefined();
    expect(system.activeCount()).toBe(0);
    expect(log).toEqual([]);
  });

  test("an idle actor runs the message on the caller's stack and answers its reply", async () => {
    const log: string[] = [];
    system = new ActorSystem({ idleMs: Infinity });
    system.register(counter(log));
    await system.ask("counter", "a", { op: "add", n: 1 });
    expect(system.runNow("counter", "a", { op: "add", n: 2 })).toEqual({ value: 3 });
    expect(log).toEqual(["add 1", "add 2"]);
    // The actor is idle again at once: the next one runs now too.
    expect(system.runNow("counter", "a", { op: "add", n: 3 })).toEqual({ value: 6 });
  });

  test("a busy actor is not run: nothing runs, and the queued order is kept", async () => {
    const log: string[] = [];
    system = new ActorSystem({ idleMs: Infinity });
    system.register(counter(log));
    await system.ask("counter", "a", { op: "add", n: 1 });
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const slow = system.ask("counter", "a", { op: "slow", gate });
    await Bun.sleep(0);
    expect(log).toEqual(["add 1", "slow start"]);
    expect(system.runNow("counter", "a", { op: "add", n: 10 })).toBeUndefined();
    const queued = system.ask("counter", "a", { op: "add", n: 5 });
    // Something waits in the inbox: still not run out of turn.
    expect(system.runNow("counter", "a", { op: "add", n: 100 })).toBeUndefined();
    open();
    expect(await slow).toBe(1);
    expect(await queued).toBe(6);
    expect(log).toEqual(["add 1", "slow start", "slow end", "add 5"]);
  });

  test("a handler that awaits holds the actor until it settles; what queued meanwhile runs after it", async () => {
    const log: string[] = [];
    system = new ActorSystem({ idleMs: Infinity });
    system.register(counter(log));
    await system.ask("counter", "a", { op: "add", n: 1 });
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const now = system.runNow("counter", "a", { op: "slow", gate });
    expect(now?.value).toBeInstanceOf(Promise);
    const queued = system.ask("counter", "a", { op: "add", n: 2 });
    await Bun.sleep(0);
    expect(log).toEqual(["add 1", "slow start"]);
    open();
    expect(await (now!.value as Promise<number>)).toBe(1);
    expect(await queued).toBe(3);
    expect(log).toEqual(["add 1", "slow start", "slow end", "add 2"]);
    expect(system.runNow("counter", "a", { op: "add", n: 4 })).toEqual({ value: 7 });
  });

  test("a handler's error is thrown to the caller and the actor goes on", async () => {
    const log: string[] = [];
    system = new ActorSystem({ idleMs: Infinity });
    system.register(counter(log));
    await system.ask("counter", "a", { op: "add", n: 1 });
    expect(() => system.runNow("counter", "a", { op: "fail" })).toThrow("refused");
    expect(system.runNow("counter", "a", { op: "add", n: 1 })).toEqual({ value: 2 });
    expect(await system.ask("counter", "a", { op: "add", n: 1 })).toBe(3);
  });

  test("a stopping system runs nothing now", async () => {
    const log: string[] = [];
    system = new ActorSystem({ idleMs: Infinity });
    system.register(counter(log));
    const placement = new LocalPlacement(system);
    await placement.ask("counter", "a", { op: "add", n: 1 });
    const stopped = system.shutdown();
    expect(placement.runNow("counter", "a", { op: "add", n: 1 })).toBeUndefined();
    await stopped;
    expect(log).toEqual(["add 1"]);
  });
});
