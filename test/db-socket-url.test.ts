import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { sql } from "drizzle-orm";
import { openDatabase, socketOf } from "../db/client.ts";
import { migrate, rowsOf } from "../db/migrate.ts";
import { loadConfig } from "../src/config.ts";
import { nativeBlobWriter } from "../src/mail/native-sql.ts";
import { usingPostgres } from "./harness.ts";

/*
 * DATABASE_URL in libpq's form for a Unix socket: the `host` parameter names the socket's
 * directory. postgres.js would pass it to the server as a setting, which refuses the connection
 * (FATAL: unrecognized configuration parameter "host"); db/client.ts gives it as the host instead.
 */
describe("a Unix socket in DATABASE_URL", () => {
  test("the host parameter that is a directory becomes the host; anything else stays in the URL", () => {
    expect(socketOf("postgresql:///mailroom?host=/var/run/postgresql")).toEqual({ url: "postgresql:///mailroom", socketDir: "/var/run/postgresql" });
    const named = socketOf("postgres://app:secret@localhost:5433/mailroom?host=%2Ftmp%2Fpg&sslmode=disable");
    expect(named.socketDir).toBe("/tmp/pg");
    expect(new URL(named.url).searchParams.get("host")).toBeNull();
    expect(new URL(named.url).searchParams.get("sslmode")).toBe("disable");
    expect(new URL(named.url).port).toBe("5433");
    expect(socketOf("postgres://app@db.internal/mailroom")).toEqual({ url: "postgres://app@db.internal/mailroom", socketDir: undefined });
    // A host parameter that is not a directory is left to the server to judge, as before.
    expect(socketOf("postgres://app@localhost/mailroom?host=db.internal").socketDir).toBeUndefined();
  });

  test("the configuration takes the URL as it is", () => {
    const config = loadConfig({ DATABASE_URL: "postgresql:///mailroom?host=/var/run/postgresql" });
    expect(config.databaseUrl).toBe("postgresql:///mailroom?host=/var/run/postgresql");
  });

  test.skipIf(!usingPostgres)("the service's clients connect through the socket (statements and raw bytes)", async () => {
    const tcp = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: tmpdir(), poolSize: 1 });
    const [settings] = rowsOf<{ dirs: string; port: string }>(await tcp.db.execute(sql`select current_setting('unix_socket_directories') as dirs, current_setting('port') as port`));
    await tcp.close();
    const dir = settings!.dirs.split(",").map((d) => d.trim()).find((d) => d.startsWith("/") && existsSync(`${d}/.s.PGSQL.${settings!.port}`));
    // The server this suite runs against listens on a socket (the README's set-up, CI's machine).
    expect(dir).toBeDefined();
    const url = new URL(process.env.DATABASE_URL!);
    // A host name that resolves nowhere: only the socket can answer.
    url.hostname = "socket.invalid";
    url.port = settings!.port;
    url.searchParams.set("host", dir!);

    const database = await openDatabase({ databaseUrl: url.toString(), dataDir: tmpdir(), poolSize: 1 });
    const sha256 = `socket-probe-${process.pid}-${Date.now()}`;
    try {
      await migrate(database.db);
      // inet_server_addr() is null on a Unix-socket connection.
      const [row] = rowsOf<{ addr: string | null }>(await database.db.execute(sql`select inet_server_addr()::text as addr`));
      expect(row!.addr).toBeNull();
      // Bun's client (raw bytes) reads the socket from the URL itself.
      const blobs = nativeBlobWriter(url.toString(), 1);
      try {
        await blobs.write([{ sha256, bytes: new Uint8Array([0, 1, 2, 255]) }]);
        expect([...((await blobs.read(sha256)) ?? [])]).toEqual([0, 1, 2, 255]);
      } finally {
        await blobs.close();
      }
    } finally {
      await database.db.execute(sql`delete from blobs where sha256 = ${sha256}`);
      await database.close();
    }
  });
});
