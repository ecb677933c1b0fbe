/**
 * Time from SIGKILL of a mailbox's owner to the first successful request for that mailbox on
 * another node, over `--rounds` kills (median printed). Two nodes on a fresh database; each
 * round kills whichever holds the mailbox, polls the survivor every 20 ms, then starts a
 * replacement node so the next round again has two.
 *
 *   NATS_URL=nats://… bun bench/cluster-failover.ts [--rounds 10]
 */
import { parseArgs } from "node:util";
import { call, clusterOnFreshDatabase, fmt, mailboxWithKey, median } from "./cluster-lib.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "10" }, lease: { type: "string", default: "3000" } } });
const rounds = Number(values.rounds);

const c = await clusterOnFreshDatabase({ CLUSTER_LEASE_MS: values.lease });
try {
  let n = 0;
  await c.start(`f${n++}`);
  await c.start(`f${n++}`);
  await c.waitBalanced(2);
  const first = [...c.nodes.values()][0]!;
  const { mailboxId, token } = await mailboxWithKey(first.base, c.admin);
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const ownerName = await c.ownerOf(mailboxId);
    const owner = c.nodes.get(ownerName!)!;
    const survivor = [...c.nodes.values()].find((x) => x !== owner)!;
    // The mailbox is active and served before the kill.
    await call(survivor.base, "GET", `/v1/mailboxes/${mailboxId}`, token);
    owner.svc.proc.kill("SIGKILL");
    await owner.svc.proc.exited;
    c.nodes.delete(owner.name);
    const t0 = performance.now();
    for (;;) {
      const res = await fetch(`${survivor.base}/v1/mailboxes/${mailboxId}`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (res.status === 200) break;
      await Bun.sleep(20);
    }
    times.push(performance.now() - t0);
    console.log(`round ${r + 1}: ${fmt(times.at(-1)!)} ms`);
    await c.start(`f${n++}`);
    await c.waitBalanced(2);
  }
  console.log(`SIGKILL of the owner → first success on the survivor: median ${fmt(median(times))} ms over ${rounds} rounds (min ${fmt(Math.min(...times))}, max ${fmt(Math.max(...times))}); CLUSTER_LEASE_MS ${values.lease}; noisy shared 2-core machine`);
} finally {
  await c.stopAll();
}
