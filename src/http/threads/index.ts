import { and, count, desc, eq, exists, getTableColumns, ilike, sql, type SQL } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import { threadLabelIds } from "../../domain/labels.ts";
import type { Db } from "../../../db/client.ts";
import { messages, threadLabels, threads } from "../../../db/schema/index.ts";
import type { Owners } from "../../domain/owners.ts";
import { notFound } from "../../errors.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import { pageOfMessages } from "../messages/index.ts";
import { threadSubjectFilter } from "../../search/vectors.ts";
import { checkListQuery, MessageListItem } from "../messages/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import { checkPageRange, PageQuery, Paged, paged, pageOf } from "../schemas.ts";
import { THREAD_STATUSES, Thread, thread, ThreadLabelParams, ThreadLabels, ThreadListQuery, ThreadParams, ThreadState } from "./model.ts";

/** Reads go straight to the database; archive, reopen and labels go to the owning mailbox's actor. */
export function threadRoutes(mailboxes: Mailboxes, owners: Owners, db: Db, mutation: MutationHooks) {
  const ownerOf = async (threadId: string) => {
    const owner = await owners.thread(threadId);
    if (!owner) throw notFound("thread", threadId);
    return owner;
  };
  // A correlated count over messages_thread_idx: cheap for a page of threads. Spelled out, as
  // drizzle leaves columns unqualified in a select list, which would correlate nothing.
  const withCount = { ...getTableColumns(threads), messageCount: sql<number>`(select count(*)::int from "messages" as "tm" where "tm"."thread_id" = "threads"."id")` };
  const present = async (rows: (typeof threads.$inferSelect & { messageCount: number })[]) => {
    const labels = await threadLabelIds(
      db,
      rows.map((r) => r.id),
    );
    return rows.map((r) => thread(r, Number(r.messageCount), labels.get(r.id) ?? []));
  };
  const threadRow = async (threadId: string) => {
    const [row] = await db.select(withCount).from(threads).where(eq(threads.id, threadId)).limit(1);
    if (!row) throw notFound("thread", threadId);
    return row;
  };

  return new Elysia({ name: "threads" })
    .get(
      "/v1/mailboxes/:mailboxId/threads",
      async ({ params, query }) => {
        const mailbox = await mailboxes.get(params.mailboxId); // 404 for an unknown mailbox rather than an empty list
        const conditions: SQL[] = [eq(threads.mailboxId, mailbox.id)];
        if (query.query) conditions.push(threadSubjectFilter(query.query));
        if (query.status) conditions.push(eq(threads.status, query.status as "open" | "archived"));
        if (query.label) {
          const labelId = query.label;
          conditions.push(
            exists(
              db
                .select({ one: threadLabels.labelId })
                .from(threadLabels)
                .where(and(eq(threadLabels.threadId, threads.id), eq(threadLabels.labelId, labelId))),
            ),
          );
        }
        const where = and(...conditions);
        const page = pageOf(query);
        const [rows, totals] = await Promise.all([
          db.select(withCount).from(threads).where(where).orderBy(desc(threads.lastMessageAt), desc(threads.id)).limit(page.limit).offset(page.offset),
          db.select({ n: count() }).from(threads).where(where),
        ]);
        return paged(await present(rows), totals[0]?.n ?? 0, page);
      },
      {
        params: MailboxParams,
        query: ThreadListQuery,
        transform: checkListQuery({ status: THREAD_STATUSES }),
        response: { 200: Paged(Thread) },
        detail: {
          summary: "List threads",
          description:
            "Most recent message first. Filters combine with AND: `query` (words of the subject, each matched as a word prefix, case-insensitive, through the full-text index; text with no letters or digits matches as a substring), `status` (open or archived), `label` (a label id; an id that is not one of this mailbox's labels matches nothing).",
          tags: ["Threads"],
        },
      },
    )
    .get(
      "/v1/threads/:threadId",
      async ({ params }) => ({ thread: (await present([await threadRow(params.threadId)]))[0]! }),
      { params: ThreadParams, response: { 200: t.Object({ thread: Thread }) }, detail: { summary: "Get a thread", tags: ["Threads"] } },
    )
    .get(
      "/v1/threads/:threadId/messages",
      async ({ params, query }) => {
        const row = await threadRow(params.threadId);
        return pageOfMessages(db, and(eq(messages.threadId, row.id), eq(messages.mailboxId, row.mailboxId)), "oldest", query);
      },
      {
        params: ThreadParams,
        query: PageQuery,
        transform: checkPageRange,
        response: { 200: Paged(MessageListItem) },
        detail: { summary: "List a thread's messages", description: "Oldest first, paginated like the message list.", tags: ["Threads"] },
      },
    )
    .guard(mutation, (writes) =>
      writes
        .post(
          "/v1/threads/:threadId/archive",
          async ({ params }) => {
            const row = await mailboxes.setThreadStatus(await ownerOf(params.threadId), params.threadId, "archived");
            return { thread_id: row.id, status: "archived" as const };
          },
          {
            params: ThreadParams,
            response: { 200: ThreadState("archived") },
            detail: {
              summary: "Archive a thread",
              description: "Sets the thread's status to `archived`; its messages keep theirs. A new inbound message in the thread reopens it. Idempotent.",
              tags: ["Threads"],
            },
          },
        )
        .post(
          "/v1/threads/:threadId/reopen",
          async ({ params }) => {
            const row = await mailboxes.setThreadStatus(await ownerOf(params.threadId), params.threadId, "open");
            return { thread_id: row.id, status: "open" as const };
          },
          {
            params: ThreadParams,
            response: { 200: ThreadState("open") },
            detail: { summary: "Reopen a thread", description: "Sets the thread's status to `open`. Idempotent.", tags: ["Threads"] },
          },
        )
        .post(
          "/v1/threads/:threadId/labels/:labelId",
          async ({ params }) => {
            const owner = await ownerOf(params.threadId);
            return { thread_id: params.threadId.toLowerCase(), labels: await mailboxes.labelThread(owner, params.threadId, params.labelId, true) };
          },
          {
            params: ThreadLabelParams,
            response: { 200: ThreadLabels },
            detail: {
              summary: "Apply a label to a thread",
              description: "The label must be one of the thread's mailbox's labels (404 otherwise). Applying it again changes nothing. Answers the labels now applied.",
              tags: ["Threads", "Labels"],
            },
          },
        )
        .delete(
          "/v1/threads/:threadId/labels/:labelId",
          async ({ params }) => {
            const owner = await ownerOf(params.threadId);
            return { thread_id: params.threadId.toLowerCase(), labels: await mailboxes.labelThread(owner, params.threadId, params.labelId, false) };
          },
          {
            params: ThreadLabelParams,
            response: { 200: ThreadLabels },
            detail: {
              summary: "Remove a label from a thread",
              description: "Removing a label the thread does not carry is not an error (200). The label must be one of the mailbox's labels (404 otherwise). Answers the labels now applied.",
              tags: ["Threads", "Labels"],
            },
          },
        ),
    );
}
