import { t } from "elysia";
import type { ThreadRow } from "../../../db/schema/index.ts";
import { oneOf } from "../messages/model.ts";
import { iso, PageQuery, Timestamp, Uuid } from "../schemas.ts";

export const THREAD_STATUSES = ["open", "archived"] as const;

export const Thread = t.Object(
  {
    id: Uuid(),
    subject: t.String({ description: "The subject of the thread's first message" }),
    status: t.Union([t.Literal("open"), t.Literal("archived")]),
    last_message_at: Timestamp,
    created_at: Timestamp,
    message_count: t.Integer({ description: "Messages in the thread (ours)" }),
    labels: t.Array(Uuid(), { description: "Ids of the mailbox labels applied to the thread, by label name (ours)" }),
  },
  { additionalProperties: false },
);

export const ThreadListQuery = t.Object({
  ...PageQuery.properties,
  query: t.Optional(t.String({ maxLength: 500, pattern: "^[^\\u0000]*$", description: "Words of the thread subject, each matched as a word prefix (full-text index)" })),
  status: oneOf(THREAD_STATUSES, "open or archived"),
  label: t.Optional(Uuid("Only threads carrying this label (a label id of the mailbox; another id matches nothing)")),
});

export const ThreadParams = t.Object({ threadId: Uuid("thread id") });
export const ThreadLabelParams = t.Object({ threadId: Uuid("thread id"), labelId: Uuid("label id") });

export const ThreadState = <S extends string>(status: S) => t.Object({ thread_id: Uuid(), status: t.Literal(status) }, { additionalProperties: false });
export const ThreadLabels = t.Object(
  { thread_id: Uuid(), labels: t.Array(Uuid(), { description: "Ids of the labels now applied, by label name" }) },
  { additionalProperties: false },
);

export const thread = (row: ThreadRow, messageCount: number, labels: string[]) => ({
  id: row.id,
  subject: row.subject,
  status: row.status,
  last_message_at: iso(row.lastMessageAt),
  created_at: iso(row.createdAt),
  message_count: messageCount,
  labels,
});
