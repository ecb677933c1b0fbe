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
 *
 * The floor of two nodes: with READ_FLOOR_NATS (a NATS URL) and READ_FLOOR_ROLE, two of
 * these split the work as the cluster does. The "owner" counts every call, its own and
 * those forwarded to it; the "forwarder" counts none and asks the owner for each call over
 * NATS, and answers with the count it gets back. What crosses NATS is what any forwarding
 * of a counted call must carry (the mailbox and key ids out, the window's figures back),
 * with the batching the service's placement uses: the asks of one turn of the event loop
 * leave as one NATS message, a millisecond apart under load, and the owner answers a batch
 * with one message. Nothing else: no ids per ask, no retries, no deadlines, no lease.
 */
import { connect } from "@nats-io/transport-node";
import { mailboxWireCodec } from "../actors/mailbox/wire.ts";
import { ActorSystem, NatsPlacement } from "../actors/runtime/index.ts";
import { floorForwarder, floorOwner } from "./floor-forward.ts";

const port = Number(process.argv[2]);
const body = process.env.READ_FLOOR_BODY ?? "{}";
const natsUrl = process.env.READ_FLOOR_NATS;
const role = process.env.READ_FLOOR_ROLE ?? "owner";
const subject = `${process.env.READ_FLOOR_SUBJECT ?? "read-floor"}.owner`;
const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;
const LIMIT = 1_000_000;
// The window the service reports, turned into headers as the service turns it (src/http/fast-read.ts).
const resetInMs = 1000;

/** The owner's count: calls left per key, as the service's window answers them. */
const windows = new Map<string, number>();
const count = (keyId: string): number => {
  let left = (windows.get(keyId) ?? LIMIT) - 1;
  if (left < 0) left = LIMIT - 1;
  windows.set(keyId, left);
  return left;
};

const nc = natsUrl ? await connect({ servers: natsUrl, name: `read-floor-${role}` }) : undefined;

/**
 * READ_FLOOR_PLACEMENT=1: the pair forwards through the service's NatsPlacement instead (an
 * actor that counts as `admit` does, ownership fixed), everything else bare. What this pair
 * costs beyond the floor is the placement protocol's alone, in the same HTTP setting as the
 * service, apart from the service's other layers (key, fence, call log, row cache).
 */
const placement =
  nc && process.env.READ_FLOOR_PLACEMENT === "1"
    ? (() => {
        const system = new ActorSystem({ idleMs: Infinity });
        system.register({ kind: "mailbox", activate: async () => ({}), handle: (_state: unknown, msg: { args: string[] }) => ({ allowed: true, limit: LIMIT, remaining: count(msg.args[0]!), resetInMs }) });
        const ownership = { self: role, partitionOf: () => 0, held: () => (role === "owner" ? 1 : undefined), ownerOf: () => "owner", refresh: async () => {} };
        return new NatsPlacement({ nc, subjectPrefix: `${subject}.placement`, system, ownership, codec: mailboxWireCodec, askTimeoutMs: 5000, logger: { debug() {}, warn() {}, error() {} } });
      })()
    : undefined;

if (nc && role === "owner") floorOwner(nc, subject, (ask) => String(count(ask.slice(ask.indexOf(" ") + 1))));
const forward = nc && role === "forwarder" && !placement ? floorForwarder(nc, subject) : undefined;

const respond = (left: number, given: string | null) =>
  new Response(body, {
    headers: {
      "content-type": "application/json;charset=utf-8",
      "x-ratelimit-limit": String(LIMIT),
      "x-ratelimit-remaining": String(left),
      "x-ratelimit-reset": String(Math.ceil(resetInMs / 1000)),
      "x-request-id": given !== null && REQUEST_ID_RE.test(given) ? given : crypto.randomUUID(),
    },
  });

Bun.serve({
  port,
  hostname: "127.0.0.1",
  routes: {
    "/v1/mailboxes/:mailboxId": {
      GET: (request) => {
        const headers = request.headers;
        const mailboxId = request.params.mailboxId;
        const auth = headers.get("authorization");
        const refused = headers.get("content-length") !== null || headers.get("transfer-encoding") !== null || mailboxId.length !== 36 || request.url.includes("?") || auth === null;
        if (refused) return new Response("refused", { status: 400 });
        const given = headers.get("x-request-id");
        // The key's id as the service finds it: between "Bearer svc_" and the dot (src/auth/tokens.ts).
        const keyId = auth.slice(11, auth.indexOf(".", 11));
        if (placement && role === "forwarder") return placement.ask<{ remaining: number }>("mailbox", mailboxId, { name: "admit", args: [keyId] }).then((d) => respond(d.remaining, given));
        if (forward) return forward(`${mailboxId} ${keyId}`).then((left) => respond(Number(left), given));
        return respond(count(keyId), given);
      },
    },
  },
  fetch: () => new Response("not found", { status: 404 }),
});
console.log("up");
