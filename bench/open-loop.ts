/**
 * An open-loop load generator: sends GET /v1/mailboxes/{id} with each agent's key on a fixed
 * schedule (rate per second, round-robin over the given bases, a random agent each), never
 * waiting for answers, and measures every latency from the request's scheduled time, so a
 * stalled server is charged for the queue it causes. Prints one JSON line.
 *
 *   bun bench/open-loop.ts <keys file: "id token" lines> <rate> <seconds> <base>...
 */
import { readFileSync } from "node:fs";

const [file, rateArg, secondsArg, ...bases] = process.argv.slice(2);
const agents = readFileSync(file!, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => l.split(" ") as [string, string]);
const rate = Number(rateArg);
const seconds = Number(secondsArg);
const total = Math.floor(rate * seconds);
const latencies: number[] = [];
let ok = 0;
let other = 0;
let errors = 0;
const inflight: Promise<void>[] = [];

const t0 = performance.now();
let sent = 0;
const one = (scheduled: number, i: number) => {
  const [id, token] = agents[Math.floor(Math.random() * agents.length)]!;
  const base = bases[i % bases.length]!;
  // The path ignores the base's own path: bases are origins.
  const url = base.startsWith("http") && /\/\/[^/]+\/?$/.test(base) ? `${base.replace(/\/$/, "")}/v1/mailboxes/${id}` : base;
  return fetch(url, { headers: { authorization: `Bearer ${token}` } })
    .then(async (res) => {
      await res.arrayBuffer();
      if (res.status === 200) ok++;
      else other++;
    })
    .catch(() => {
      errors++;
    })
    .finally(() => latencies.push(performance.now() - scheduled));
};

// Ticks of 1 ms: each sends what the schedule owes by now.
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate));
    while (sent < due) {
      inflight.push(one(t0 + (sent / rate) * 1000, sent));
      sent++;
    }
    if (sent >= total) {
      clearInterval(timer);
      resolve();
    }
  }, 1);
});
await Promise.all(inflight);
const elapsed = (performance.now() - t0) / 1000;
latencies.sort((a, b) => a - b);
const q = (x: number) => latencies[Math.min(latencies.length - 1, Math.floor(x * latencies.length))] ?? NaN;
console.log(JSON.stringify({ sent, ok, other, errors, rate: ok / elapsed, p50: q(0.5), p99: q(0.99), max: latencies[latencies.length - 1] ?? NaN }));
