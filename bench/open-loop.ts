/**
 * An open-loop load generator: sends GET /v1/mailboxes/{id} with each agent's key on a fixed
 * schedule (rate per second, round-robin over the given bases, a random agent each), whatever
 * the answers, and measures every latency from the request's scheduled time, so a stalled
 * server is charged for the queue it causes (the way wrk2 corrects coordinated omission).
 * Prints one JSON line.
 *
 *   bun bench/open-loop.ts <keys file: "id token" lines> <rate> <seconds> <base>... [--connections 64]
 *
 * Requests go over a fixed number of keep-alive connections (split over the bases), one
 * request at a time each, as wrk's do; a request whose connection is not free yet waits in
 * this process, and that wait is part of its latency. The client speaks HTTP/1.1 over raw
 * sockets with every request's bytes made in advance: with `fetch` it used a whole core at
 * 30,000 requests/s on a 2-core machine and became the bottleneck it was meant to measure.
 * The JSON line also gives the client's own CPU over the run (`clientCores`), so that a run
 * the client limited shows as one.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { connections: { type: "string", default: "64" } } });
const [file, rateArg, secondsArg, ...bases] = positionals;
if (!file || !rateArg || !secondsArg || bases.length === 0) throw new Error("usage: bun bench/open-loop.ts <keys file> <rate> <seconds> <base>... [--connections 64]");
const agents = readFileSync(file, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => l.split(" ") as [string, string]);
const rate = Number(rateArg);
const seconds = Number(secondsArg);
const total = Math.floor(rate * seconds);
const connections = Math.max(bases.length, Number(values.connections));

const latencies = new Float64Array(total);
let done = 0;
let ok = 0;
let other = 0;
let errors = 0;

const CRLFCRLF = Buffer.from("\r\n\r\n");
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/** One origin: its requests (one per agent, made once), its connections and its queue. */
class Target {
  readonly requests: Buffer[];
  readonly queue: number[] = []; // scheduled times of requests waiting for a free connection
  private readonly idle: Connection[] = [];

  constructor(
    readonly hostname: string,
    readonly port: number,
  ) {
    this.requests = agents.map(([id, token]) => Buffer.from(`GET /v1/mailboxes/${id} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\n\r\n`));
  }

  submit(scheduled: number): void {
    const c = this.idle.pop();
    if (c) c.send(scheduled);
    else this.queue.push(scheduled);
  }

  /** A connection that finished (or opened): the oldest waiting request, else it waits. */
  free(c: Connection): void {
    if (this.queue.length > 0) c.send(this.queue.shift()!);
    else this.idle.push(c);
  }

  forget(c: Connection): void {
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
  }
}

class Connection {
  private socket: Awaited<ReturnType<typeof Bun.connect>> | undefined;
  private buffered: Buffer | null = null;
  private scheduled = -1;
  private unsent: Uint8Array | null = null;

  constructor(private readonly target: Target) {}

  async open(): Promise<void> {
    const self = this;
    this.socket = await Bun.connect({
      hostname: this.target.hostname,
      port: this.target.port,
      socket: {
        data(_s, chunk) {
          self.onData(chunk);
        },
        drain(s) {
          if (self.unsent) {
            const n = s.write(self.unsent);
            self.unsent = n < self.unsent.byteLength ? self.unsent.subarray(n) : null;
          }
        },
        close() {
          self.onClose();
        },
        error() {
          self.onClose();
        },
      },
    });
    this.target.free(this);
  }

  send(scheduled: number): void {
    this.scheduled = scheduled;
    const bytes = this.target.requests[Math.floor(Math.random() * agents.length)]!;
    const n = this.socket!.write(bytes);
    if (n < bytes.byteLength) this.unsent = bytes.subarray(Math.max(0, n));
  }

  private onData(chunk: Buffer): void {
    const buf = this.buffered ? Buffer.concat([this.buffered, chunk]) : chunk;
    const head = buf.indexOf(CRLFCRLF);
    if (head < 0) return void (this.buffered = buf);
    const length = Number(CONTENT_LENGTH.exec(buf.toString("latin1", 0, head))?.[1] ?? NaN);
    if (!Number.isFinite(length)) return this.fail(); // not an answer this client reads (chunked, or no length)
    if (buf.byteLength < head + 4 + length) return void (this.buffered = buf);
    this.buffered = null;
    const status = buf.toString("latin1", 9, 12);
    if (status === "200") ok++;
    else other++;
    this.finish();
  }

  private finish(): void {
    latencies[done++] = performance.now() - this.scheduled;
    this.scheduled = -1;
    this.target.free(this);
  }

  private fail(): void {
    this.socket?.end();
  }

  /** A closed connection: its request (if any) is an error; a new connection takes its place. */
  private onClose(): void {
    if (this.socket === undefined) return;
    this.socket = undefined;
    this.target.forget(this);
    if (this.scheduled >= 0) {
      errors++;
      latencies[done++] = performance.now() - this.scheduled;
      this.scheduled = -1;
    }
    if (done < total) void new Connection(this.target).open().catch(() => {});
  }
}

const targets = bases.map((base) => {
  const url = new URL(base);
  return new Target(url.hostname, Number(url.port || 80));
});
await Promise.all(targets.flatMap((t, i) => Array.from({ length: Math.floor(connections / targets.length) + (i < connections % targets.length ? 1 : 0) }, () => new Connection(t).open())));

const t0 = performance.now();
const cpu0 = process.cpuUsage();
let sent = 0;
let finished!: () => void;
const allDone = new Promise<void>((resolve) => (finished = resolve));
// Ticks of 1 ms: each sends what the schedule owes by now.
const timer = setInterval(() => {
  const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate));
  while (sent < due) {
    targets[sent % targets.length]!.submit(t0 + (sent / rate) * 1000);
    sent++;
  }
  if (done >= total) {
    clearInterval(timer);
    finished();
  }
}, 1);
await allDone;
const elapsed = (performance.now() - t0) / 1000;
const sorted = latencies.subarray(0, done).sort();
const q = (x: number) => sorted[Math.min(sorted.length - 1, Math.floor(x * sorted.length))] ?? NaN;
// The client's own CPU over the run, in cores: near 1, it and not the server may be the limit.
const used = process.cpuUsage(cpu0);
const clientCores = (used.user + used.system) / 1e6 / elapsed;
console.log(JSON.stringify({ sent, ok, other, errors, rate: ok / elapsed, p50: q(0.5), p99: q(0.99), max: sorted[sorted.length - 1] ?? NaN, clientCores }));
process.exit(0);
