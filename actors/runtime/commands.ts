/**
 * Actors declared as a map of commands, the way RivetKit declares `actions`: one entry per
 * command (name → handler, read or write, batched or not), from which everything else is
 * derived instead of written again by hand:
 *
 * - the message type: `{ name, args }`, plain data a placement can carry to another node;
 * - the dispatch: `commandActor` turns the map into an ActorDefinition;
 * - the typed client: `installCommands` gives a class one method per command,
 *   `method(id, ...args)`, with the handler's own argument and reply types.
 *
 * A handler is `(ctx, ...args) => reply`, where `ctx` is the actor's in-memory state as its
 * `activate` built it. Nothing here knows any particular actor.
 */
import type { Placement } from "./placement.ts";
import type { ActorDefinition, AskOptions, BatchOutcome } from "./types.ts";

export interface CommandSpec<Ctx, Args extends unknown[], Reply> {
  /**
   * `read`: changes nothing; the client sends it with `Placement.read`, so it may be answered
   * from memory (`peek`) without waiting behind writes. `write`: queued and run one at a time.
   */
  readonly kind: "read" | "write";
  run(ctx: Ctx, ...args: Args): Reply | Promise<Reply>;
  /** Reads only: the answer from memory, without waiting; undefined when memory cannot answer. */
  peek?(ctx: Ctx, ...args: Args): Reply | undefined;
  /**
   * Group commit: commands of this name queued right behind one another are handed over in one
   * call, each answered with its own outcome (ActorDefinition.batchKey; the batch key is the
   * command's name). `run` is then the batch of one.
   */
  batch?(ctx: Ctx, argsList: Args[]): Promise<BatchOutcome<Reply>[]>;
  /** The client sends it without waiting for an answer (`Placement.tell`); its method returns nothing. */
  readonly tell?: boolean;
}

// `any` here only widens the constraint; the map's own entries keep their precise types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySpec = CommandSpec<any, any[], any>;
export type CommandMap = Record<string, AnySpec>;

export type CommandName<M extends CommandMap> = keyof M & string;
export type ArgsOf<M extends CommandMap, N extends CommandName<M>> = M[N] extends CommandSpec<any, infer A, any> ? A : never;
export type ReplyOf<M extends CommandMap, N extends CommandName<M>> = M[N] extends CommandSpec<any, any, infer R> ? Awaited<R> : never;

/** One command as a message: what the client sends and a placement carries. */
export type CommandMessage<M extends CommandMap, N extends CommandName<M> = CommandName<M>> = {
  [K in N]: { name: K; args: ArgsOf<M, K> };
}[N];

/** The client's face: one method per command, taking the actor's id first. */
export type CommandClient<M extends CommandMap> = {
  [N in CommandName<M>]: M[N]["tell"] extends true ? (id: string, ...args: ArgsOf<M, N>) => void : (id: string, ...args: ArgsOf<M, N>) => Promise<ReplyOf<M, N>>;
};

/**
 * Builders for a map whose handlers share one context type: `ctx` is typed once, the
 * arguments are typed by the handler's own annotations.
 */
export function commandsFor<Ctx>() {
  return {
    write: <A extends unknown[], R>(run: (ctx: Ctx, ...args: A) => R | Promise<R>): CommandSpec<Ctx, A, R> => ({ kind: "write", run }),
    /** A write the client fires and forgets. */
    tell: <A extends unknown[]>(run: (ctx: Ctx, ...args: A) => unknown): CommandSpec<Ctx, A, void> & { tell: true } => ({
      kind: "write",
      tell: true,
      run: (ctx, ...args) => {
        const r = run(ctx, ...args);
        return isThenable(r) ? Promise.resolve(r).then(() => undefined) : undefined;
      },
    }),
    read: <A extends unknown[], R>(run: (ctx: Ctx, ...args: A) => R | Promise<R>, peek?: (ctx: Ctx, ...args: A) => R | undefined): CommandSpec<Ctx, A, R> =>
      peek ? { kind: "read", run, peek } : { kind: "read", run },
    /** A write of one argument whose queued runs are handed over together (group commit). */
    batched: <A, R>(batch: (ctx: Ctx, items: A[]) => Promise<BatchOutcome<R>[]>): CommandSpec<Ctx, [A], R> => ({
      kind: "write",
      run: (ctx, item) => batch(ctx, [item]).then(single),
      batch: (ctx, argsList) => batch(ctx, argsList.map((args) => args[0])),
    }),
  };
}

/** A message naming no command of the map (a sender built with another version, or a bug). */
export class UnknownCommandError extends Error {
  constructor(
    readonly kind: string,
    readonly command: unknown,
  ) {
    super(`actor kind "${kind}" has no command ${JSON.stringify(command)}`);
    this.name = "UnknownCommandError";
  }
}

export interface CommandActorOptions<Ctx, M extends CommandMap> {
  kind: string;
  commands: M;
  /** Builds the context every handler is given; called on the first message after the actor was not in memory. */
  activate(id: string): Promise<Ctx>;
  passivate?(id: string, ctx: Ctx): Promise<void> | void;
  canPassivate?(ctx: Ctx, now: number): boolean;
  maxBatch?: number;
  batchesCommute?: boolean;
}

/** The ActorDefinition that dispatches `{ name, args }` messages to the map's handlers. */
export function commandActor<Ctx, M extends CommandMap>(opts: CommandActorOptions<Ctx, M>): ActorDefinition<Ctx, CommandMessage<M>, unknown> {
  const { kind, commands } = opts;
  const specOf = (msg: { name: string }): AnySpec => {
    const spec = Object.hasOwn(commands, msg.name) ? commands[msg.name] : undefined;
    if (spec === undefined) throw new UnknownCommandError(kind, msg.name);
    return spec;
  };
  const def: ActorDefinition<Ctx, CommandMessage<M>, unknown> = {
    kind,
    activate: (id) => opts.activate(id),
    // Not async: commands answered from memory return a plain value, which saves the runtime a
    // promise and a microtask turn (ActorCell awaits only real thenables).
    handle: (ctx, msg) => specOf(msg).run(ctx, ...msg.args),
    read(ctx, msg) {
      const spec = specOf(msg);
      return spec.peek === undefined ? undefined : spec.peek(ctx, ...msg.args);
    },
    // Must not throw (the cell's loop calls it outside any handler): an unknown name is left to `handle`.
    batchKey: (msg) => (Object.hasOwn(commands, msg.name) && commands[msg.name]!.batch !== undefined ? msg.name : undefined),
    handleBatch: (ctx, msgs) => specOf(msgs[0]!).batch!(ctx, msgs.map((m) => m.args)),
  };
  if (opts.passivate) def.passivate = opts.passivate;
  if (opts.canPassivate) def.canPassivate = opts.canPassivate;
  if (opts.maxBatch !== undefined) def.maxBatch = opts.maxBatch;
  if (opts.batchesCommute !== undefined) def.batchesCommute = opts.batchesCommute;
  return def;
}

/** What a derived client method needs of its object. */
export interface CommandTarget {
  readonly placement: Placement;
  readonly askOptions?: AskOptions;
}

/**
 * Gives `proto` one method per command: `name(id, ...args)` sends `{ name, args }` to the
 * actor (kind, id) through `this.placement`: reads with `read`, tells with `tell`, the rest
 * with `ask`. `normalizeId` maps the ways of writing one id to one actor.
 */
export function installCommands<M extends CommandMap>(proto: CommandTarget, kind: string, commands: M, normalizeId: (id: string) => string = (id) => id): void {
  for (const name of Object.keys(commands)) {
    const spec = commands[name]!;
    // A call without arguments sends one shared message (`get` runs on every request).
    // Messages are never changed once sent, so sharing one is safe.
    const bare = Object.freeze({ name, args: Object.freeze<unknown[]>([]) });
    const message = (args: unknown[]) => (args.length === 0 ? bare : { name, args });
    let method: (this: CommandTarget, id: string, ...args: unknown[]) => unknown;
    if (spec.tell) {
      method = function (id, ...args) {
        this.placement.tell(kind, normalizeId(id), message(args));
      };
    } else if (spec.kind === "read") {
      method = function (id, ...args) {
        return this.placement.read(kind, normalizeId(id), message(args), this.askOptions);
      };
    } else {
      method = function (id, ...args) {
        return this.placement.ask(kind, normalizeId(id), message(args), this.askOptions);
      };
    }
    Object.defineProperty(proto, name, { value: method, writable: true, configurable: true, enumerable: false });
  }
}

function single<T>(outcomes: BatchOutcome<T>[]): T {
  const outcome = outcomes[0];
  if (outcome === undefined) throw new Error("a batch handler returned no outcome");
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof (value as { then?: unknown }).then === "function";
}
