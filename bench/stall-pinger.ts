/**
 * The /health pinger of bench/stall.ts, a process of its own so that the bench's own work
 * (building and sending 12 MB bodies) never delays a ping. Pings every 20 ms and keeps the time of each
 * answer; asked for a window, it answers the longest wait for an answer within it.
 */
type Ask = { id: number; from: number; to: number };

const url = process.argv[2]!;
const answers: number[] = [];

async function loop() {
  for (;;) {
    const sent = Date.now();
    try {
      await (await fetch(url, { signal: AbortSignal.timeout(120_000) })).arrayBuffer();
    } catch {
      // A refused or timed-out ping is no answer: the gap grows until the next one.
    }
    const now = Date.now();
    answers.push(now);
    if (answers.length > 100_000) answers.splice(0, 50_000);
    await Bun.sleep(Math.max(0, 20 - (now - sent)));
  }
}

process.on("message", (ask: Ask) => {
  let worst = 0;
  let last = ask.from;
  for (const at of answers) {
    if (at <= ask.from) continue;
    if (at > ask.to) break;
    worst = Math.max(worst, at - last);
    last = at;
  }
  worst = Math.max(worst, ask.to - last);
  process.send!({ id: ask.id, worst });
});
// The bench going away ends the pinger.
process.on("disconnect", () => process.exit(0));
void loop();
