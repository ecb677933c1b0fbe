import { SQL, type TransactionSQL } from "bun";

/*
 * PostgreSQL through Bun's native client (drizzle-orm/bun-sql). It costs about half the CPU
 * per query of postgres.js: the protocol is written and parsed natively, and every query is a
 * named prepared statement (reused per connection), so the server does not parse it again.
 *
 * Two differences from postgres.js are absorbed here and in db/schema/json.ts, so that the rest
 * of the code sees one behaviour whichever driver is underneath:
 *
 * - Errors. Bun's PostgresError keeps the SQLSTATE in `errno` and its own name for the failure
 *   in `code` ("ERR_POSTGRES_SERVER_ERROR"). The code reads `code` as the SQLSTATE, as
 *   postgres.js and PGlite give it (src/errors.ts uniqueViolation, src/jobs/failure.ts, the
 *   actor wire format), so every rejection from this client is rewritten once, below.
 * - jsonb parameters. With prepared statements Bun encodes a parameter by the type the server
 *   infers for it, and a string bound to a jsonb parameter is encoded as a JSON string: the
 *   JSON text drizzle's jsonb columns produce would be stored double-encoded ("{\"a\":1}").
 *   The jsonb column type therefore hands the driver the value itself (db/schema/json.ts).
 *   Raw SQL that passes JSON text must cast it from text: `${text}::text::jsonb`.
 */

export interface BunSqlOptions {
  max: number;
  /** Seconds to wait for a connection before a query fails. */
  connectTimeout: number;
  applicationName: string;
}

export function openBunSql(url: string, opts: BunSqlOptions): SQL {
  return new SQL(url, {
    max: opts.max,
    connectionTimeout: opts.connectTimeout,
    connection: { application_name: opts.applicationName },
  });
}

/** The SQLSTATE of a Bun PostgresError, put where the other drivers put it. */
export function normaliseError(err: unknown): unknown {
  const e = err as { code?: unknown; errno?: unknown; bunCode?: unknown } | null;
  if (e && typeof e === "object" && typeof e.errno === "string" && /^[0-9A-Z]{5}$/.test(e.errno) && e.code !== e.errno) {
    try {
      Object.defineProperty(e, "bunCode", { value: e.code, enumerable: false, configurable: true, writable: true });
      Object.defineProperty(e, "code", { value: e.errno, enumerable: true, configurable: true, writable: true });
    } catch {
      // A frozen error keeps Bun's code; the message still says what happened.
    }
  }
  return err;
}

const rethrow = (err: unknown): never => {
  throw normaliseError(err);
};

/** What drizzle-orm/bun-sql calls on its client (session.js): unsafe, begin, savepoint. */
type Client = Pick<SQL, "unsafe" | "begin"> & Partial<Pick<TransactionSQL, "savepoint">>;

/**
 * A client for drizzle whose queries reject with normalised errors. Bun's queries are lazy
 * (sent when first awaited), so the wrapper is too: `values()` or `then` starts the query.
 */
export function withPgErrorCodes(client: Client): SQL {
  const wrapped = {
    unsafe: (text: string, params?: unknown[]) => new NormalisedQuery(client, text, params),
    begin: (fn: (tx: SQL) => unknown) => client.begin((tx) => fn(withPgErrorCodes(tx)) as Promise<unknown>).catch(rethrow),
    // Only a transaction's client has savepoint (drizzle's nested transaction).
    savepoint: (fn: (sp: SQL) => unknown) => client.savepoint!((sp) => fn(withPgErrorCodes(sp)) as Promise<unknown>).catch(rethrow),
  };
  return wrapped as unknown as SQL;
}

class NormalisedQuery implements PromiseLike<unknown> {
  constructor(
    private readonly client: Client,
    private readonly text: string,
    private readonly params: unknown[] | undefined,
  ) {}

  values(): Promise<unknown> {
    return this.client.unsafe(this.text, this.params).values().catch(rethrow);
  }

  /** drizzle awaits the query object itself. */
  then<A = unknown, B = never>(onFulfilled?: ((v: unknown) => A | PromiseLike<A>) | null, onRejected?: ((e: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.client.unsafe(this.text, this.params).then((v: unknown) => v, rethrow).then(onFulfilled, onRejected);
  }
}
