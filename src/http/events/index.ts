import { Elysia } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import type { Db } from "../../../db/client.ts";
import { AppError, validationError } from "../../errors.ts";
import type { EventFeed } from "../../events/feed.ts";
import { latestEventSeq, openEventStream, SSE_HEADERS } from "../../events/stream.ts";
import type { Logger } from "../../log.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import { EventStreamHeaders, EventStreamQuery, resumePoint } from "./model.ts";

const DESCRIPTION = [
  "A Server-Sent Events stream (`text/event-stream`) of the mailbox's events (`message.received`, `message.processed`, `message.sent`, …), for agents that keep a connection open instead of receiving webhooks.",
  "",
  "Events are numbered 1, 2, 3… per mailbox in commit order; the number is the SSE `id`. The stream first replays the stored events after the resume point (`Last-Event-ID` header, else `since`, else 0), in order, then stays open and sends new events as they commit. Each message is `id: <n>`, `event: <name>` and one `data:` line holding `{\"id\":n,\"event\":name,\"created_at\":ISO,\"payload\":{…}}` (the payload is the webhook payload of that event).",
  "",
  "A mailbox may have `EVENT_STREAMS_PER_MAILBOX` (100) streams open on one node; one more is 429 `rate_limit_exceeded` with Retry-After.",
  "",
  "The stream starts with `retry: 2000`, and sends a `: keep-alive` comment after 15 s without a message. Events are kept at least 7 days; when the resume point is older than what is stored, an `event: gap` message with `data: {\"from\":a,\"to\":b}` names the events that can no longer be sent, before the next event. A resume point past the mailbox's latest event is 400. While the service shuts down the stream ends (reconnect with `Last-Event-ID`), and new streams get 503.",
].join("\n");

/** GET /v1/mailboxes/:mailboxId/events: the mailbox's events as a resumable SSE stream. */
export function eventRoutes(mailboxes: Mailboxes, db: Db, feed: EventFeed, log: Logger) {
  return new Elysia({ name: "events" }).get(
    "/v1/mailboxes/:mailboxId/events",
    async ({ params, query, headers, request }) => {
      const resume = resumePoint(headers["last-event-id"], query.since);
      const mailbox = await mailboxes.get(params.mailboxId); // 404 for an unknown mailbox
      if (feed.stopped) throw new AppError("service_unavailable", "the service is shutting down; reconnect shortly", {}, { "Retry-After": "2" });
      if (resume.after === "latest") resume.after = await latestEventSeq(db, mailbox.id);
      else if (resume.path !== null && resume.after > 0) {
        const latest = await latestEventSeq(db, mailbox.id);
        if (resume.after > latest) {
          const message = `is past the mailbox's latest event (${latest})`;
          throw validationError(`${resume.path}: ${message}`, [{ path: resume.path, message }]);
        }
      }
      // Checked where the stream subscribes (openEventStream does at once), so that concurrent
      // opens cannot all pass it.
      if (feed.full(mailbox.id)) {
        throw new AppError("rate_limit_exceeded", `this mailbox has ${feed.streamsPerMailbox} open event streams on this node, as many as it may; close one, or retry later`, { limit: feed.streamsPerMailbox }, { "Retry-After": "5" });
      }
      const body = openEventStream({ db, feed, mailboxId: mailbox.id, after: resume.after as number, signal: request.signal, log: log.child({ component: "events", mailboxId: mailbox.id }) });
      return new Response(body, { headers: SSE_HEADERS });
    },
    {
      params: MailboxParams,
      query: EventStreamQuery,
      headers: EventStreamHeaders,
      detail: {
        summary: "Stream the mailbox's events (SSE)",
        description: DESCRIPTION,
        tags: ["Events"],
        responses: {
          200: {
            description: "An endless `text/event-stream` of `id`/`event`/`data` messages",
            content: { "text/event-stream": { schema: { type: "string" as const } } },
          },
          429: {
            description: "The mailbox has as many open streams on this node as it may (`rate_limit_exceeded`), or the key's calls are used up; see Retry-After",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
          },
          503: {
            description: "The service is shutting down (`service_unavailable`); see Retry-After",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
          },
        },
      },
    },
  );
}
