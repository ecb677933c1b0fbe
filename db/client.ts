import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { PgliteOffThread } from "./pglite-client.ts";
import { StatementChoice, withPreparedStatements } from "./prepared.ts";
import * as schema from "./schema/index.ts";

export { schema };

/** The one database type the rest of the code sees, whichever driver is underneath. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface Database {
  db: Db;
  driver: "postgres" | "pglite";
  ping(): Promise<void>;
  /** LISTEN on a channel; notifications arrive after the notifying transaction commits. Resolves to an unsubscribe. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  inMemory?: boolean;
  poolSize?: number;
}

/**
 * libpq's way of naming a Unix socket in a URL, `postgresql:///mailroom?host=/var/run/postgresql`:
 * the `host` parameter is the socket's directory. postgres.js would send it to the server as a
 * setting (which fails the connection), so it is taken out and given as the host, which
 * postgres.js reads as a directory when it starts with a slash. Bun's client reads the URL
 * form itself.
 */
export function socketOf(databaseUrl: string): { url: string; socketDir: string | undefined } {
  const url = new URL(databaseUrl);
  const host = url.searchParams.get("host");
  if (!host?.startsWith("/")) return { url: databaseUrl, socketDir: undefined };
  url.searchParams.delete("host");
  return { url: url.toString(), socketDir: host };
}

/** How recent an answer to another statement stands in for the embedded database's ping. */
const PING_EVIDENCE_MS = 2000;

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const { url, socketDir } = socketOf(opts.databaseUrl);
    const client = postgres(url, {
      ...(socketDir ? { host: socketDir } : {}),
      max: opts.poolSize ?? 20,
      onnotice: () => {},
      // Fail fast instead of hanging start-up when the server is down.
      connect_timeout: 10,
      connection: { application_name: "mailroom" },
    });
    // Repeated statements go prepared: one round trip instead of two, parsed once (db/prepared.ts).
    const db = drizzlePostgres(withPreparedStatements(client, new StatementChoice()), { schema }) as unknown as Db;
    return {
      db,
      driver: "postgres",
      ping: async () => void (await db.execute(sql`select 1`)),
      listen: async (channel, onNotify) => {
        const { unlisten } = await client.listen(channel, onNotify);
        return unlisten;
      },
      close: () => client.end({ timeout: 5 }),
    };
  }
  let dir: string | undefined;
  if (!opts.inMemory) {
    dir = join(opts.dataDir, "pglite");
    mkdirSync(dir, { recursive: true });
  }
  // On a thread of its own (db/pglite-client.ts); a fresh cluster is copied from a template
  // rather than made by initdb (db/pglite-template.ts).
  const client = await PgliteOffThread.open(dir);
  const db = drizzlePglite({ client: client as never, schema }) as unknown as Db;
  return {
    db,
    driver: "pglite",
    // A busy engine that keeps answering is up: /health does not wait its turn behind a large write.
    ping: async () => {
      if (!client.busyAndAnswering(PING_EVIDENCE_MS)) await db.execute(sql`select 1`);
    },
    listen: (channel, onNotify) => client.listen(channel, onNotify),
    close: () => client.close(),
  };
}
