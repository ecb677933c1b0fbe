/**
 * The floor of GET /v1/mailboxes/{id} on Bun.serve: a bare server that does what the
 * service's fast path (src/http/fast-read.ts) must do with any request before any logic of
 * ours runs, and answers what it must answer, with nothing of ours in between. It reads
 * the same request fields (the method, the body headers, the route parameter, the URL, the
 * Authorization and X-Request-Id headers) and answers the stored body with the same five
 * headers (content type, the three rate-limit headers, a request id made per request as
 * the service makes it). What the service costs beyond this server is ours (key, call
 * window, lease, metrics); what this costs beyond the bare ceiling is Bun's, for the
 * fields and headers the API has.
 *
 *   bun bench/read-floor-server.ts <port>   (body in READ_FLOOR_BODY; prints "up")
 */
const port = Number(process.argv[2]);
const body = process.env.READ_FLOOR_BODY ?? "{}";
const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;
let remaining = 1_000_000;
// The window the service reports, turned into headers as the service turns it (src/http/fast-read.ts).
const resetInMs = 1000;

Bun.serve({
  port,
  hostname: "127.0.0.1",
  routes: {
    "/v1/mailboxes/:mailboxId": {
      GET: (request) => {
        const headers = request.headers;
        const refused =
          headers.get("content-length") !== null || headers.get("transfer-encoding") !== null || request.params.mailboxId.length !== 36 || request.url.includes("?") || headers.get("authorization") === null;
        if (refused) return new Response("refused", { status: 400 });
        const given = headers.get("x-request-id");
        if (--remaining === 0) remaining = 1_000_000;
        return new Response(body, {
          headers: {
            "content-type": "application/json;charset=utf-8",
            "x-ratelimit-limit": "1000000",
            "x-ratelimit-remaining": String(remaining),
            "x-ratelimit-reset": String(Math.ceil(resetInMs / 1000)),
            "x-request-id": given !== null && REQUEST_ID_RE.test(given) ? given : crypto.randomUUID(),
          },
        });
      },
    },
  },
  fetch: () => new Response("not found", { status: 404 }),
});
console.log("up");
