/**
 * The /health pinger of bench/stall.ts, on its own thread so that the bench's own work
 * (building 12 MB bodies) never delays a ping. Pings every 20 ms and keeps the time of each
 * answer; asked for a window, it answers the longest wait for an answer within it.
 */
declare var self: Worker;

type Ask = { type: "start"; url: string } | { type: "gap"; id: number; from: number; to: number };

const answers: number[] = [];
let url = "";

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

self.onmessage = (event: MessageEvent<Ask>) => {
  const ask = event.data;
  if (ask.type === "start") {
    url = ask.url;
    void loop();
    return;
  }
  let worst = 0;
  let last = ask.from;
  for (const at of answers) {
    if (at <= ask.from) continue;
    if (at > ask.to) break;
    worst = Math.max(worst, at - last);
    last = at;
  }
  worst = Math.max(worst, ask.to - last);
  self.postMessage({ id: ask.id, worst });
};
