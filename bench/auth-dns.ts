/**
 * SPF/DKIM/DMARC of unsigned mail from a different sender each time, through the auth threads,
 * against a DNS server that answers every query `--delay` ms late (test/fixtures/dns-stub.ts,
 * as DNS_SERVERS): how many messages a second one auth thread checks when it runs one message
 * at a time (authConcurrency 1, as before 2026-11-30) and when it runs many.
 *
 *   bun bench/auth-dns.ts [--messages 400] [--delay 20] [--in-flight 64]
 *
 * `--in-flight` messages are handed over at once (the mail.process jobs of a busy node).
 */
import { parseArgs } from "node:util";
import { Assessor } from "../src/mail/assess/index.ts";
import { startDnsStub } from "../test/fixtures/dns-stub.ts";
import { smallBenchMessage } from "./lib.ts";

const { values } = parseArgs({ options: { messages: { type: "string", default: "400" }, delay: { type: "string", default: "20" }, "in-flight": { type: "string", default: "64" } } });
const messages = Number(values.messages);
const inFlight = Number(values["in-flight"]);
const stub = await startDnsStub({ delayMs: Number(values.delay) });
const raw = new Uint8Array(await smallBenchMessage("bench@mail.localhost", "prose"));
let sender = 0;

for (const concurrency of [1, 32]) {
  const assessor = new Assessor({ mailDomain: "mail.localhost", dnsServers: [stub.address], authConcurrency: concurrency, reuseVerdicts: false });
  // A first message starts the thread and loads mailauth.
  await assessor.authenticate(raw, { mailFrom: "warm@warm.example", rcptTo: ["b@mail.localhost"], remoteAddress: "203.0.113.9", heloName: "mx.example" });
  stub.maxInFlight = 0;
  const temperrors: string[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < messages) {
        next++;
        const r = await assessor.authenticate(raw, { mailFrom: `news@s${sender++}.example`, rcptTo: ["b@mail.localhost"], remoteAddress: "203.0.113.9", heloName: "mx.example" });
        if (r.spf === "temperror" || r.dmarc === "temperror") temperrors.push(r.spf);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  console.log(
    `auth concurrency ${concurrency}: ${(messages / seconds).toFixed(0)} msg/s (${messages} senders, DNS ${values.delay} ms a query, ${inFlight} handed over at once); ` +
      `queries waiting together at most ${stub.maxInFlight}; temperror ${temperrors.length}; process CPU ${((cpu.user + cpu.system) / 1000 / messages).toFixed(2)} ms/msg`,
  );
  await assessor.close();
}
await stub.close();
