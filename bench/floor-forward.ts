/**
 * The least protocol that forwards commands to another node over NATS, for the benches'
 * floors (bench/read-floor-server.ts, bench/placement-cpu.ts): the lines sent in one turn of
 * the event loop leave as one NATS message (a millisecond apart under load, as the placement
 * batches), and the owner answers a message with one message, a line per line. Nothing per
 * command but its line: no ids, retries, deadlines or leases.
 */
import type { NatsConnection } from "@nats-io/transport-node";

/** The owner's side: every line of a batch on `subject` answered by `answer`, in order, in one reply. */
export function floorOwner(nc: NatsConnection, subject: string, answer: (line: string) => string): void {
  nc.subscribe(subject, {
    callback: (_err, msg) => {
      if (!msg.reply) return;
      let out = "";
      for (const line of msg.string().split("\n")) out += `${out ? "\n" : ""}${answer(line)}`;
      nc.publish(msg.reply, out);
    },
  });
}

/** The forwarder's side: a function that sends a line to `subject` and resolves with the owner's answer line. */
export function floorForwarder(nc: NatsConnection, subject: string): (line: string) => Promise<string> {
  let batch: { line: string; resolve: (answer: string) => void }[] = [];
  const sent = new Map<number, ((answer: string) => void)[]>();
  let seq = 0;
  let lastFlushAt = -Infinity;
  let lastSize = 0;
  const inbox = `${subject}.reply.${crypto.randomUUID()}`;
  nc.subscribe(`${inbox}.*`, {
    callback: (_err, msg) => {
      const n = Number(msg.subject.slice(inbox.length + 1));
      const waiting = sent.get(n) ?? [];
      sent.delete(n);
      const answers = msg.string().split("\n");
      for (let i = 0; i < waiting.length; i++) waiting[i]!(answers[i]!);
    },
  });
  const flush = () => {
    const out = batch;
    batch = [];
    lastFlushAt = performance.now();
    lastSize = out.length;
    const n = ++seq;
    sent.set(
      n,
      out.map((a) => a.resolve),
    );
    nc.publish(subject, out.map((a) => a.line).join("\n"), { reply: `${inbox}.${n}` });
  };
  return (line) =>
    new Promise((resolve) => {
      if (batch.push({ line, resolve }) !== 1) return;
      const since = performance.now() - lastFlushAt;
      if ((lastSize > 1 || sent.size > 0) && since < 1) setTimeout(flush, 1 - since);
      else setImmediate(flush);
    });
}
