/**
 * The ceiling of the ingest bench: a bare smtp-server that accepts every recipient, reads
 * the data and discards it, then answers 250. Same library, same limits as our listener.
 *   bun bench/bare-smtp.ts <port>
 */
import { SMTPServer } from "smtp-server";

const port = Number(process.argv[2]);
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["AUTH", "STARTTLS"],
  disableReverseLookup: true,
  logger: false,
  size: 25 * 1024 * 1024,
  maxClients: 200,
  onData(stream, _session, callback) {
    stream.on("data", () => {});
    stream.on("end", () => callback(null, "Ok: discarded"));
  },
});
server.listen(port, "127.0.0.1", () => console.log(JSON.stringify({ msg: "ready" })));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
