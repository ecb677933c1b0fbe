import { afterEach, describe, expect, test } from "bun:test";
import { ActorSystem, commandActor, commandsFor, installCommands, LocalPlacement, UnknownCommandError, type CommandClient, type CommandTarget, type Placement } from "../actors/runtime/index.ts";

/** A counter actor declared as a command map: the runtime's own example, no database. */
interface Ctx {
  id: string;
  count: number;
  log: string[];
}
const c = commandsFor<Ctx>();
const counter = {
  value: c.read(
    (ctx) => ctx.count,
    (ctx) => (ctx.count >= 0 ? ctx.count : undefined),
  ),
  add: c.write((ctx, n: number, note?: string) => {
    ctx.count += n;
    if (note !== undefined) ctx.log.push(note);
    return ctx.count;
  }),
  slowAdd: c.write(async (ctx, n: number) => {
    await new Promise((r) => setTimeout(r, 5));
    ctx.count += n;
    return ctx.count;
  }),
  note: c.tell((ctx, text: string) => {
    ctx.log.push(text);
  }),
  log: c.write((ctx) => [...ctx.log]),
  fail: c.write((_ctx, message: string): number => {
    throw new RangeError(message);
  }),
  // Each call of a batch sees the batch's size: proof that queued calls were handed over together.
  collect: c.batched(async (ctx, items: string[]) => {
    ctx.log.push(`batch of ${items.length}`);
    return items.map((item) => (item === "bad" ? { ok: false as const, error: new Error("bad item") } : { ok: true as const, value: `${item}/${items.length}` }));
  }),
};

interface Counters extends CommandClient<typeof counter> {}
class Counters implements CommandTarget {
  constructor(readonly placement: Placement) {}
}
installCommands(Counters.prototype, "counter", counter, (id) => id.toLowerCase());

let system: ActorSystem | undefined;
afterEach(async () => {
  await system?.shutdown();
  system = undefined;
});

function start(): Counters {
  system = new ActorSystem({ idleMs: Number.POSITIVE_INFINITY });
  system.register(commandActor({ kind: "counter", commands: counter, activate: async (id) => ({ id, count: 0, log: [] }) }));
  return new Counters(new LocalPlacement(system));
}

describe("actors declared as a command map", () => {
  test("each command is a client method with the handler's arguments and reply", async () => {
    const counters = start();
    expect(await counters.add("a", 2)).toBe(2);
    expect(await counters.add("A", 3, "second")).toBe(5); // ids normalised: one actor
    expect(await counters.value("a")).toBe(5);
    expect(await counters.add("b", 1)).toBe(1);
    counters.note("a", "told");
    expect(await counters.log("a")).toEqual(["second", "told"]);
  });

  test("writes run one at a time in order; a read is answered from memory without waiting behind them", async () => {
    const counters = start();
    await counters.add("a", 0);
    const writes = [counters.slowAdd("a", 1), counters.slowAdd("a", 10)];
    // Both writes are still queued or running: memory answers with the state before them.
    expect(await counters.value("a")).toBe(0);
    expect(await Promise.all(writes)).toEqual([1, 11]);
  });

  test("a handler's error reaches the caller as it was thrown", async () => {
    const counters = start();
    const err = await counters.fail("a", "out of range").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RangeError);
    expect((err as Error).message).toBe("out of range");
  });

  test("batched commands queued together are handed over in one call, each with its own outcome", async () => {
    const counters = start();
    await counters.slowAdd("a", 1); // activated
    const blocker = counters.slowAdd("a", 1);
    const results = await Promise.allSettled([counters.collect("a", "x"), counters.collect("a", "y"), counters.collect("a", "z")]);
    await blocker;
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : "rejected"))).toEqual(["x/3", "y/3", "z/3"]);
    expect(await counters.collect("a", "alone")).toBe("alone/1");
    const bad = await counters.collect("a", "bad").catch((e: unknown) => e);
    expect((bad as Error).message).toBe("bad item");
    expect(await counters.log("a")).toEqual(["batch of 3", "batch of 1", "batch of 1"]);
  });

  test("a message naming no command fails with UnknownCommandError and leaves the actor working", async () => {
    const counters = start();
    const err = await system!.ask("counter", "a", { name: "nope", args: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownCommandError);
    const inherited = await system!.ask("counter", "a", { name: "toString", args: [] }).catch((e: unknown) => e);
    expect(inherited).toBeInstanceOf(UnknownCommandError);
    expect(await counters.add("a", 1)).toBe(1);
  });
});
