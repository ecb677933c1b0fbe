import type { Sql } from "postgres";

/*
 * Prepared statements for the queries the service repeats, through postgres.js.
 *
 * drizzle asks postgres.js for an unnamed statement unless a query is given a name, and
 * postgres.js sends a parameterized unnamed statement in two round trips: Parse + Describe,
 * wait for the parameter types, then Bind + Execute; the server parses and plans it each time.
 * A named (prepared) statement costs that once per connection; after it, one round trip with
 * Bind + Execute only, and the server keeps the parse tree (and, once it is as good, a plan).
 * Parsing and planning were about a sixth of the PostgreSQL backends' CPU on the ingest path
 * (perf); bench/db-statements.ts measures a statement's CPU both ways.
 *
 * The values are encoded exactly as before: postgres.js describes an unnamed statement first
 * too, and serializes each parameter by the type the server inferred for it.
 *
 * Every connection keeps each statement it prepared until it closes (postgres.js cannot drop
 * one), and so does its server backend, so the texts prepared are bounded: a text is prepared
 * from its second use on, up to `maxStatements` texts for the process; others (one-off texts,
 * a batch size seen once, texts over `maxLength`) stay unnamed, as before.
 */
export class StatementChoice {
  private readonly chosen = new Set<string>();
  /** Texts seen once; forgotten all at once when full (only a shortcut to choosing). */
  private readonly seen = new Set<string>();

  constructor(
    private readonly maxStatements = 256,
    private readonly maxLength = 16 * 1024,
    private readonly maxSeen = 4096,
  ) {}

  /** Whether `text` should go as a prepared statement. */
  prepare(text: string): boolean {
    if (this.chosen.has(text)) return true;
    if (this.chosen.size >= this.maxStatements || text.length > this.maxLength) return false;
    if (this.seen.delete(text)) {
      this.chosen.add(text);
      return true;
    }
    if (this.seen.size >= this.maxSeen) this.seen.clear();
    this.seen.add(text);
    return false;
  }

  get size(): number {
    return this.chosen.size;
  }
}

type Unsafe = Sql["unsafe"];
type AnyFn = (...args: unknown[]) => unknown;

/**
 * The client as drizzle sees it, with `unsafe` (every drizzle query goes through it) asking
 * for a prepared statement where `choice` says so, in transactions and savepoints too.
 */
export function withPreparedStatements<T extends Sql>(client: T, choice: StatementChoice): T {
  const unsafe: Unsafe = ((text: string, params?: unknown[], options?: Record<string, unknown>) => {
    const args = params ?? [];
    // A query named by its caller asked for preparing already; one without parameters goes as a simple query.
    const prepare = options?.prepare === true || (args.length > 0 && choice.prepare(text));
    return (client.unsafe as AnyFn)(text, args, { ...options, prepare });
  }) as Unsafe;
  const scoped = (fn: AnyFn) => (inner: Sql) => fn(withPreparedStatements(inner, choice));
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === "unsafe") return unsafe;
      if (prop === "begin" || prop === "savepoint") {
        const original = Reflect.get(target, prop, receiver) as AnyFn;
        // begin(fn) or begin(options, fn): the callback is the last argument.
        return (...args: unknown[]) => {
          const fn = args.at(-1) as AnyFn;
          return original.apply(target, [...args.slice(0, -1), scoped(fn)]);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}
