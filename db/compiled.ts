import { is, Param, Placeholder, sql } from "drizzle-orm";
import type { Db, Tx } from "./client.ts";

/*
 * Statements built once. drizzle turns a query builder into its SQL text and parameters on
 * every execution, walking the whole tree of SQL chunks it is made of: 50 µs for the update
 * that stores a message's content, 140 µs for the one that marks it processed (a dozen columns
 * set, thirty returned), more than everything else the client does for either
 * (bench/query-build.ts). The statements the mail pipeline runs once per message are built here
 * once, with a `slot` where each value goes; a run fills the values in, as the builder would
 * have encoded them, and runs the statement on the executor it is given: the pool or a
 * transaction, as a builder made on that executor would have run.
 */

type Executor = Db | Tx;
type Session = Executor["_"]["session"];
type PrepareArgs = Parameters<Session["prepareQuery"]>;
type Query = PrepareArgs[0];

/** What a builder (select, insert, update, delete) offers that `Compiled` needs: its `prepare`. */
interface Preparable {
  prepare(name: string): unknown;
}

/**
 * A value to be given at each run. As a column's value in `set` or `values`, the column's own
 * encoding applies to it at the run (a jsonb is serialized, a date made a timestamp) and a
 * null stays NULL, as when the value itself is given to the builder. Anywhere else (`eq`, a
 * `sql` template) the value goes to the driver as it is, so give it in the driver's form.
 */
export function slot<T>(name: string): T {
  return sql.placeholder(name) as unknown as T;
}

/** A slot for each of `names`, named after it: `.set(slotsOf(["status", "snippet"]))`. */
export function slotsOf<K extends string>(names: readonly K[]): { [P in K]: never } {
  return Object.fromEntries(names.map((name) => [name, slot(name)])) as { [P in K]: never };
}

interface Built {
  args: PrepareArgs;
  joinsNotNullableMap: unknown;
}

export class Compiled<Values extends Record<string, unknown>, Result> {
  #built: Built | undefined;

  /** `make` builds the statement on the executor it is given, with `slot`s for the values. */
  constructor(private readonly make: (db: Executor) => Preparable) {}

  /** The statement with `values`, on `db`; a value missing (or undefined) fails it unsent. */
  async run(db: Executor, values: Values): Promise<Result> {
    const built = (this.#built ??= capture(db, this.make));
    const [query, fields, , isResponseInArrayMode, ...rest] = built.args;
    const filled: Query = { sql: query.sql, params: query.params.map((p) => fill(p, values)) };
    // No name: the client's own choice of which texts to prepare on the server stands (db/prepared.ts).
    const prepared = db._.session.prepareQuery(filled, fields, undefined, isResponseInArrayMode, ...rest) as ReturnType<Session["prepareQuery"]> & { joinsNotNullableMap?: unknown };
    prepared.joinsNotNullableMap = built.joinsNotNullableMap;
    return (await prepared.execute()) as Result;
  }
}

/**
 * An insert of several rows, built once per number of rows (up to `maxRows`; a larger batch
 * goes through the builder, as does an empty one). Every row gives exactly `columns`: a
 * column left out takes its default, which a slot cannot stand for.
 */
export class CompiledRows<Row extends Record<string, unknown>, Result> {
  readonly #columns: ReadonlySet<string>;
  readonly #bySize: PerCount<Result>;

  /** `make` builds the insert of `rows` on `db`: of slots when compiling, of the rows themselves past `maxRows`. */
  constructor(
    private readonly columns: readonly (keyof Row & string)[],
    private readonly make: (db: Executor, rows: Row[]) => Preparable & { execute(): Promise<Result> },
    maxRows = 32,
  ) {
    this.#columns = new Set(columns);
    this.#bySize = new PerCount(maxRows, (n) => {
      const slotted = Array.from({ length: n }, (_, i) => Object.fromEntries(columns.map((c) => [c, slot(`${i}:${c}`)])) as Row);
      return (db) => make(db, slotted);
    });
  }

  /**
   * The insert of `rows`, on `db`. A row with a column not its own, or a value undefined, fails
   * it unsent, whatever the batch's size: one rule whichever way it is built.
   */
  async run(db: Executor, rows: Row[]): Promise<Result> {
    const n = rows.length;
    const values: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const row = rows[i]!;
      for (const key in row) if (!this.#columns.has(key)) throw new Error(`a compiled insert was given column "${key}", not one of its own`);
      for (const c of this.columns) {
        if (row[c] === undefined) throw new Error(`no value for "${i}:${c}" of a compiled insert`);
        values[`${i}:${c}`] = row[c];
      }
    }
    const statement = this.#bySize.of(n);
    return statement ? statement.run(db, values) : this.make(db, rows).execute();
  }
}

/**
 * A statement that takes a list of values (the ids of an `in`) besides its named values, built
 * once per length of the list (up to `maxItems`; a longer list goes through the builder, as
 * does an empty one). An undefined value or item fails it unsent, whichever way it is built.
 */
export class CompiledList<Item, Values extends Record<string, unknown>, Result> {
  readonly #byLength: PerCount<Result>;

  /** `make` builds the statement of `items` and `values` on `db`: slots when compiling, the values themselves past `maxItems`. */
  constructor(
    private readonly names: readonly (keyof Values & string)[],
    private readonly make: (db: Executor, items: Item[], values: Values) => Preparable & { execute(): Promise<Result> },
    maxItems = 32,
  ) {
    this.#byLength = new PerCount(maxItems, (n) => {
      const slotted = Array.from({ length: n }, (_, i) => slot<Item>(`item:${i}`));
      return (db) => make(db, slotted, slotsOf(names) as unknown as Values);
    });
  }

  async run(db: Executor, items: Item[], values: Values): Promise<Result> {
    const n = items.length;
    const filled: Record<string, unknown> = {};
    for (const name of this.names) {
      if (values[name] === undefined) throw new Error(`no value for "${name}" of a compiled statement`);
      filled[name] = values[name];
    }
    for (let i = 0; i < n; i++) {
      if (items[i] === undefined) throw new Error(`no value for item ${i} of a compiled statement`);
      filled[`item:${i}`] = items[i];
    }
    const statement = this.#byLength.of(n);
    return statement ? statement.run(db, filled) : this.make(db, items, values).execute();
  }
}

/** One `Compiled` per count (of rows, of items), built on first use, for counts 1 to `max`. */
class PerCount<Result> {
  readonly #built = new Map<number, Compiled<Record<string, unknown>, Result>>();

  constructor(
    private readonly max: number,
    private readonly make: (n: number) => (db: Executor) => Preparable,
  ) {}

  /** The statement for `n`; undefined for 0 and past `max` (the builder's to run). */
  of(n: number): Compiled<Record<string, unknown>, Result> | undefined {
    if (n === 0 || n > this.max) return undefined;
    let statement = this.#built.get(n);
    if (!statement) {
      statement = new Compiled(this.make(n));
      this.#built.set(n, statement);
    }
    return statement;
  }
}

/**
 * What the builder asks its session to prepare (the query built, the fields its rows map to,
 * the rest of its options), taken by building it on a stand-in for `db` whose session only
 * records the request.
 */
function capture(db: Executor, make: (db: Executor) => Preparable): Built {
  let args: PrepareArgs | undefined;
  const recorded: Record<string, unknown> = {
    setToken() {
      return recorded;
    },
  };
  const session = new Proxy(db._.session, {
    get: (target, prop, receiver) =>
      prop === "prepareQuery"
        ? (...a: PrepareArgs) => {
            args = a;
            return recorded;
          }
        : Reflect.get(target, prop, receiver),
  });
  const standIn = new Proxy(db, {
    get: (target, prop, receiver) => (prop === "session" ? session : prop === "_" ? { ...target._, session } : Reflect.get(target, prop, receiver)),
  });
  make(standIn).prepare("compiled");
  if (!args) throw new Error("a compiled statement's builder did not prepare a query");
  return { args, joinsNotNullableMap: recorded.joinsNotNullableMap };
}

/** A parameter of the built query with this run's value in place of its slot, encoded as the builder encodes a value. */
function fill(param: unknown, values: Record<string, unknown>): unknown {
  if (is(param, Placeholder)) return valueOf(param, values);
  if (is(param, Param) && is(param.value, Placeholder)) {
    const value = valueOf(param.value, values);
    return value === null ? null : param.encoder.mapToDriverValue(value);
  }
  return param;
}

/** A slot's value: undefined is refused, as the builder would have written the column's default, which a slot cannot. */
function valueOf(placeholder: Placeholder, values: Record<string, unknown>): unknown {
  const value = values[placeholder.name];
  if (value === undefined) throw new Error(`no value for "${placeholder.name}" of a compiled statement`);
  return value;
}
