import { sleep } from "./harness.ts";

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/**
 * A local webhook receiver. `respond` decides each answer from the request number (1-based);
 * by default 200. Requests are kept in arrival order.
 */
export function startReceiver(respond: (n: number, req: Received) => Response | Promise<Response> = () => new Response("ok")) {
  const requests: Received[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const received: Received = { path: new URL(req.url).pathname, headers: Object.fromEntries(req.headers), body: await req.text(), at: Date.now() };
      requests.push(received);
      return respond(requests.length, received);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    port: server.port,
    requests,
    /** Requests for one event name. */
    of: (event: string) => requests.filter((r) => r.headers["x-service-event"] === event),
    async waitFor(predicate: (rs: Received[]) => boolean, timeoutMs = 20_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(requests)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met; got ${requests.length} request(s): ${requests.map((r) => r.headers["x-service-event"]).join(", ")}`);
        await sleep(20);
      }
      return requests;
    },
    stop: () => server.stop(true),
  };
}
