import { t } from "elysia";
import { validationError } from "../../errors.ts";

export const EventStreamQuery = t.Object({
  since: t.Optional(
    t.String({
      pattern: "^([0-9]+|now)$",
      maxLength: 32,
      description: "Resume point when there is no Last-Event-ID header: events numbered after it are sent. A non-negative integer, or `now` (ours: only events committed after the stream opens); default 0 (from the oldest stored event).",
    }),
  ),
});

export const EventStreamHeaders = t.Object({
  "last-event-id": t.Optional(
    t.String({
      pattern: "^[0-9]*$",
      maxLength: 32,
      description: "The id of the last event the client got (an EventSource sends it when it reconnects); takes precedence over `since`. Empty counts as absent.",
    }),
  ),
});

const parse = (raw: string, path: string): number => {
  const n = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw validationError(`${path}: must be a non-negative integer`, [{ path, message: "must be a non-negative integer" }]);
  return n;
};

/**
 * Last-Event-ID, else `since`, else 0; with the field it came from (for errors). `since=now`
 * is `latest` (the mailbox's last event number when the stream opens), for a client that wants
 * what happens next, not the stored history.
 */
export function resumePoint(lastEventId: string | undefined, since: string | undefined): { after: number | "latest"; path: string | null } {
  const header = lastEventId?.trim();
  if (header) return { after: parse(header, "headers.last-event-id"), path: "headers.last-event-id" };
  if (since === "now") return { after: "latest", path: "query.since" };
  if (since !== undefined) return { after: parse(since, "query.since"), path: "query.since" };
  return { after: 0, path: null };
}
