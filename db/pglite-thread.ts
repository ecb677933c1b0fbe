/**
 * The thread behind `PgliteOffThread` (./pglite-client.ts): the embedded PostgreSQL, with its
 * WebAssembly engine and its protocol code, runs here instead of on the event loop. On the
 * event loop a send with two 4 MiB bodies held every client of the node 1-1.3 s, most of it
 * PGlite framing the parameters in JavaScript (issue 13's rule is 50 ms).
 *
 * Requests carry an id and are answered in any order; PGlite itself serialises them as it
 * would in-process (a query outside a transaction waits for the open transaction). Large
 * strings and byte arrays cross as moved bytes both ways (./pglite-wire.ts).
 */
import { types, type PGlite, type Transaction } from "@electric-sql/pglite";
import { openPglite } from "./pglite-template.ts";
import { fromWire, toWire, transferList, type PgliteCall, type PgliteReply } from "./pglite-wire.ts";

declare var self: Worker;

let pg: PGlite | undefined;
/** Open transactions by id: the callback's tx object, and how to end it. */
const open = new Map<number, { tx: Transaction; end: (commit: boolean) => void; done: Promise<void> }>();
/** LISTEN subscriptions by id: how to stop them. */
const listening = new Map<number, () => Promise<void>>();

/**
 * bytea from its hex text form, natively: PGlite's own parser goes a byte at a time (554 vs
 * 334 ms for 8.7 MB, measured). The bytes then cross to the event loop moved, not copied.
 */
const parseBytea = (hex: string): Uint8Array => {
  const buf = Buffer.from(hex.slice(2), "hex");
  // A view into a shared pool would clone the whole pool when posted: give it its own buffer.
  return buf.byteOffset === 0 && buf.buffer.byteLength === buf.byteLength ? new Uint8Array(buf.buffer) : new Uint8Array(buf);
};
const identity = (value: string) => value;
const BYTEA_PARSER = { [types.BYTEA]: parseBytea };
/** drizzle-orm/pglite's parsers (all identity: drizzle maps these values itself), and bytea's; functions cannot cross threads. */
const DRIZZLE_PARSERS = {
  ...Object.fromEntries([types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182].map((oid) => [oid, identity])),
  ...BYTEA_PARSER,
};

const reply = (message: PgliteReply) => self.postMessage(message, transferList(message));

async function handle(call: PgliteCall): Promise<unknown> {
  switch (call.op) {
    case "open":
      pg = await openPglite(call.dataDir);
      // Notifications of every channel go to the main thread, which fans them out.
      pg.onNotification((channel, payload) => reply({ type: "notify", channel, payload }));
      return null;
    case "query": {
      const options = { rowMode: call.rowMode, parsers: call.drizzleParsers ? DRIZZLE_PARSERS : BYTEA_PARSER };
      const params = call.params.map(fromWire);
      const target = call.tx === undefined ? pg! : txOf(call.tx);
      return toWire(await target.query(call.sql, params, options));
    }
    case "exec": {
      const target = call.tx === undefined ? pg! : txOf(call.tx);
      return toWire(await target.exec(call.sql));
    }
    case "begin": {
      const id = call.txId;
      let started!: () => void;
      const ready = new Promise<void>((resolve) => (started = resolve));
      let end!: (commit: boolean) => void;
      const ended = new Promise<boolean>((resolve) => (end = resolve));
      const done = pg!
        .transaction(async (tx) => {
          open.set(id, { tx, end, done });
          started();
          if (!(await ended)) await tx.rollback();
        })
        .finally(() => open.delete(id));
      // A BEGIN that fails rejects `done` before `ready`: report whichever comes first.
      await Promise.race([ready, done]);
      done.catch(() => {}); // its outcome is reported by "end"
      return null;
    }
    case "end": {
      const entry = open.get(call.txId);
      if (!entry) throw new Error("the transaction is not open");
      entry.end(call.commit);
      await entry.done;
      return null;
    }
    case "listen": {
      const stop = await pg!.listen(call.channel, () => {});
      listening.set(call.listenId, stop);
      return null;
    }
    case "unlisten": {
      const stop = listening.get(call.listenId);
      listening.delete(call.listenId);
      await stop?.();
      return null;
    }
    case "close":
      await pg?.close();
      pg = undefined;
      return null;
  }
}

function txOf(id: number): Transaction {
  const entry = open.get(id);
  if (!entry) throw new Error("the transaction is not open");
  return entry.tx;
}

/** What an error says, as plain data: PostgreSQL's fields (code, constraint, detail…) included. */
function errorData(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) };
  const out: Record<string, unknown> = { message: err.message, name: err.name };
  for (const [key, value] of Object.entries(err)) {
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) out[key] = value;
  }
  return out;
}

self.onmessage = (event: MessageEvent<PgliteCall>) => {
  const call = event.data;
  handle(call).then(
    (value) => reply({ type: "done", id: call.id, ok: true, value }),
    (err: unknown) => reply({ type: "done", id: call.id, ok: false, error: errorData(err) }),
  );
};
