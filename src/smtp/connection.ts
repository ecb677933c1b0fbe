import type { SMTPServer, SMTPServerSession } from "smtp-server";

/** smtp-server's per-connection object (its typings declare it; the package root does not export the name). */
type Connection = SMTPServer["connections"] extends Set<infer C> ? C : never;

/**
 * - `idle`: waiting for the client's next command;
 * - `busy`: one of our handlers (a RCPT lookup) or a TLS upgrade has not answered yet;
 * - `receiving`: inside DATA, the end marker has not arrived (nothing is stored yet);
 * - `storing`: the whole message is in and `accept` decides on it (a 250 may follow);
 * - `closed`: the connection is closing or gone.
 */
export type ConnectionState = "idle" | "busy" | "receiving" | "storing" | "closed";

/**
 * What the session limits need from one smtp-server connection, reached in this one file:
 * the members are declared in smtp-server's own typings but are internals, so an upgrade of
 * smtp-server (pinned exactly) rechecks this file; test/smtp-limits.test.ts covers each.
 */
export interface ConnectionHandle {
  state(): ConnectionState;
  /** Replies and closes; smtp-server stops parsing what the client sends from here on. */
  hangUp(code: number, text: string): void;
  /** `before` runs ahead of every command line (not DATA content); false drops the command. */
  beforeCommand(before: (name: string) => boolean): void;
  /** `listener` hears the code of every reply the connection sends. */
  onReply(listener: (code: number) => void): void;
}

/** The connection onConnect is called for (it is in `server.connections` from accept to close). */
export function connectionOf(server: SMTPServer, session: SMTPServerSession): ConnectionHandle | undefined {
  for (const conn of server.connections) if (conn.session === session || conn.id === session.id) return handle(conn);
  return undefined;
}

function handle(conn: Connection): ConnectionHandle {
  return {
    state() {
      if (conn._closing || conn._closed) return "closed";
      const parser = conn._parser;
      if (conn._dataStream && parser) return parser._dataMode ? "receiving" : "storing";
      return conn._handlerPending || conn._upgrading ? "busy" : "idle";
    },
    hangUp(code, text) {
      // No enhanced-code context: our texts carry their own. A 421 closes by itself.
      conn.send(code, text, false);
      if (code !== 421) conn.close();
    },
    beforeCommand(before) {
      const onCommand = conn._onCommand.bind(conn);
      conn._onCommand = (command, callback) => {
        // A continuation line of a multi-line exchange (AUTH) is not a command.
        if (conn._nextHandler) return onCommand(command, callback);
        const name = (command || "").toString().split(" ", 1)[0]!.toUpperCase();
        if (before(name)) onCommand(command, callback);
      };
    },
    onReply(listener) {
      const send = conn.send.bind(conn);
      conn.send = (code, data, context) => {
        listener(code);
        send(code, data, context);
      };
    },
  };
}
