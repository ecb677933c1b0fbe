import { eq, getTableColumns, inArray, sql } from "drizzle-orm";
import { attachments, messages, outbox, type MessageRow } from "../../db/schema/index.ts";
import { newId } from "../../src/domain/ids.ts";
import { touchSenderProfiles, type SenderSighting } from "../../src/domain/sender-profiles.ts";
import { AppError, notFound } from "../../src/errors.ts";
import { eventRow, insertOutbox, jobRow } from "../../src/jobs/outbox.ts";
import { putBlobs } from "../../src/mail/blobs.ts";
import { type Columns, contentColumns } from "../../src/mail/content.ts";
import { MESSAGE_EVENT_PAYLOAD_SQL, messageEventPayload } from "../../src/mail/events.ts";
import { normalizeSubject, participantsKey, placeArrivals, placeInThread, type ThreadHints } from "../../src/mail/threading.ts";
import type { Tx } from "../../db/client.ts";
import { batched } from "../../db/tx-batch.ts";
import { Compiled, CompiledList, CompiledRows, slot, slotsOf } from "../../db/compiled.ts";
import { wellFormedJson } from "../../db/schema/json.ts";
import type { BatchOutcome } from "../runtime/index.ts";
import { afterProcessing, processingSettings, type Processed } from "./after-processing.ts";
import { lockOwnMessages, type LockedMessage } from "./message-rows.ts";
import type { Arrival, ProcessedUpdate, WriteContext } from "./types.ts";

/**
 * Stores arrived messages with status `received`, each in its thread, decided from the head
 * read at arrival (README "Threads"), and in the same transaction their `message.received`
 * events and the jobs that will parse them, and the raw bytes of those that carry them (small
 * messages; the others' are in `blobs` already). Arrivals queued together are committed
 * together (group commit), in a transaction shared with the arrivals of the node's other
 * mailboxes (db/shared-commit.ts); when this returns, none of them can be lost.
 */
export async function receive({ state, deps }: WriteContext, cmds: Arrival[]): Promise<BatchOutcome<{ id: string }>[]> {
  if (state.mailbox.status === "disabled") {
    const error = new AppError("mailbox_disabled", `mailbox ${state.mailbox.id} is disabled and does not accept mail`);
    return cmds.map(() => ({ ok: false, error }));
  }
  const at = new Date();
  const rows = cmds.map((cmd) => ({
    id: newId(),
    mailboxId: state.mailbox.id,
    transport: "smtp" as const,
    direction: "inbound" as const,
    status: "received" as const,
    fromAddress: cmd.head.from,
    toAddress: cmd.recipient,
    subject: cmd.head.subject,
    cc: cmd.head.cc,
    replyTo: cmd.head.replyTo,
    // Stored now, so that a reply arriving before this message is processed finds its thread.
    messageIdHeader: cmd.head.messageId,
    inReplyTo: cmd.head.inReplyTo,
    references: cmd.head.references,
    rawSha256: cmd.rawSha256,
    rawSize: cmd.rawSize,
    envelope: cmd.envelope,
    replyTokenId: cmd.replyToken?.id ?? null,
    createdAt: at,
  })) satisfies Omit<ArrivalRow, "threadId">[];
  const raws = cmds.flatMap((cmd) => (cmd.raw ? [{ sha256: cmd.rawSha256, bytes: cmd.raw }] : []));
  await deps.commits.arrivals.run(async (tx) => {
    // Sent ahead of the threads' look-up that follows, in the same flight.
    const stored = raws.length > 0 ? batched(tx, "blobs", raws, (db, all) => putBlobs(db, all), () => undefined) : undefined;
    // In order, so that a reply sees the thread its predecessor in the same batch was given;
    // in a fixed number of statements for the whole batch.
    const placing = placeArrivals(
      tx,
      state.mailbox.id,
      cmds.map((cmd, i) => ({ subject: cmd.head.subject, hints: arrivalHints(cmd, state.mailbox.emailAddress, at), messageIdHeader: rows[i]!.messageIdHeader })),
      newId,
      // The messages go in with the update of their threads: one round trip for both. They
      // name their raw bytes, so they wait for those (written by now: they went first).
      async (threadIds) => {
        await stored;
        return batched(
          tx,
          "arrivals",
          rows.map((row, i) => ({ ...row, threadId: threadIds[i]! })),
          (db, all) => INSERT_ARRIVALS.run(db, all),
          (inserted, mine) => {
            const ids = new Set(mine.map((r) => r.id));
            return inserted.filter((r) => ids.has(r.id));
          },
        );
      },
    );
    // Both awaited together: a failure of either is the one the transaction reports.
    const [, { written: inserted }] = await Promise.all([stored, placing]);
    await insertOutbox(tx, [
      ...inserted.map((row) => eventRow("message.received", state.mailbox.id, messageEventPayload(row))),
      // The job carries what processing reads of the row (src/mail/process.ts arrivalOf), so it need not read the row back.
      ...cmds.map((cmd, i) => {
        const row = rows[i]!;
        return jobRow("mail.process", state.mailbox.id, {
          message_id: row.id,
          token_thread_id: cmd.replyToken?.threadId ?? null,
          arrival: { raw_sha256: row.rawSha256, envelope: row.envelope, from: row.fromAddress, to: row.toAddress, subject: row.subject },
        });
      }),
    ]);
  });
  return rows.map((r) => ({ ok: true, value: { id: r.id } }));
}

/** The columns an arrival's row is written with; the rest take their defaults. */
const ARRIVAL = ["id", "mailboxId", "threadId", "transport", "direction", "status", "fromAddress", "toAddress", "subject", "cc", "replyTo", "messageIdHeader", "inReplyTo", "references", "rawSha256", "rawSize", "envelope", "replyTokenId", "createdAt"] as const;
type ArrivalRow = Columns<(typeof ARRIVAL)[number]>;

/** The insert of a batch of arrivals, built once per batch size (db/compiled.ts). */
const INSERT_ARRIVALS = new CompiledRows<ArrivalRow, MessageRow[]>(ARRIVAL, (db, rows) => db.insert(messages).values(rows).returning());

/** Threading hints from the head read at arrival: the same rule processing applied before. */
function arrivalHints(cmd: Arrival, own: string, at: Date): ThreadHints {
  const h = cmd.head;
  return {
    messageIds: [...(h.inReplyTo ? h.inReplyTo.split(/\s+/).filter(Boolean) : []), ...[...h.references].reverse()],
    tokenThreadId: cmd.replyToken?.threadId ?? null,
    subjectKey: h.subjectKey,
    participantsKey: participantsKey(h.parties, own),
    at,
  };
}

/**
 * Applies the parse and assessment of received messages: stores the parsed
 * fields and attachment records, sets status `processed`, writes `message.processed`, and
 * marks the processing job done, all in one transaction (so a retry never doubles it).
 * Messages are applied in order inside it, so a reply sees the thread its predecessor made
 * (all at once when none can: see applyAll). The transaction is shared with the results of
 * the node's other mailboxes (db/shared-commit.ts). A database error fails the whole batch;
 * the jobs are retried.
 */
export async function applyProcessed(ctx: WriteContext, cmds: ProcessedUpdate[]): Promise<BatchOutcome<MessageRow>[]> {
  const { state, deps } = ctx;
  // Read outside the transaction: the embedded database has one connection, which the transaction holds.
  const settings = await processingSettings(state, deps);
  const { outcomes, handOver } = await deps.commits.processed.run(async (tx) => {
    const outcomes: BatchOutcome<MessageRow>[] = [];
    const fresh: Processed[] = [];
    const locked = await lockOwnMessages(tx, state.mailbox.id, cmds.map((c) => c.messageId));
    // What the batch writes besides the rows is known from the locked rows alone: which
    // messages this batch processes (the first mention of each that is not processed yet; a
    // job that ran twice finds its message processed), their attachment records, their senders
    // and the jobs' completions. So it all goes in one flight with the updates: one round trip
    // for the lot while the actor holds the mailbox, not one per statement.
    const first = new Set<string>();
    const isFresh = cmds.map((c) => {
      const row = locked.get(c.messageId);
      const fresh = row !== undefined && !row.processedAt && !first.has(c.messageId);
      first.add(c.messageId);
      return fresh;
    });
    const records = cmds.flatMap((c, i) => (isFresh[i] ? recordsOf(c) : []));
    const senders: SenderSighting[] = cmds.flatMap((c, i) => (isFresh[i] ? [{ address: c.result.fromAddress, name: c.result.fromName ?? null, at: locked.get(c.messageId)!.createdAt }] : []));
    const jobIds = cmds.map((c) => c.jobId).filter((id): id is string => id !== null);
    // In a shared transaction these go with the other mailboxes' (db/tx-batch.ts).
    const [applied, attachmentRows] = await Promise.all([
      applyAll(tx, state, cmds, locked),
      records.length > 0 ? batched(tx, "attachments", records, (db, all) => db.insert(attachments).values(all).returning(), ofMessages) : Promise.resolve([]),
      touchSenderProfiles(tx, state.mailbox.accountId, senders),
      jobIds.length > 0 ? batched(tx, "jobs done", jobIds, (db, all) => JOBS_DONE.run(db, all, { doneAt: new Date() }), () => undefined) : Promise.resolve(),
    ]);
    for (const [i, cmd] of cmds.entries()) {
      const one = applied[i];
      if (!one) {
        outcomes.push({ ok: false, error: notFound("message", cmd.messageId) });
        continue;
      }
      outcomes.push({ ok: true, value: one.row });
      if (isFresh[i]) {
        const own = attachmentRows.filter((r) => r.messageId === cmd.messageId).sort((x, y) => x.position - y.position);
        fresh.push({ row: one.row, attachments: own });
      }
    }
    // Autopilot, runtime routing and auto-replies may change the rows: the events come after.
    const handOver = await afterProcessing(tx, ctx, settings, fresh);
    // The batch's events, in one statement.
    await insertProcessedEvents(tx, fresh);
    const byId = new Map(fresh.map((p) => [p.row.id, p.row]));
    return { outcomes: outcomes.map((o) => (o.ok && byId.has(o.value.id) ? { ok: true as const, value: byId.get(o.value.id)! } : o)), handOver };
  });
  if (handOver.deliveryIds.length > 0) deps.handOver.deliveries(handOver.deliveryIds);
  if (handOver.jobs > 0) deps.handOver.jobs();
  return outcomes;
}

/**
 * The `message.processed` events of a batch, in its order, built by the database from the rows
 * as they are now (MESSAGE_EVENT_PAYLOAD_SQL) with their attachments: the bodies are not sent
 * again as JSON text (tens of KiB a message, written by the client and parsed by the server)
 * when the server has them already. A protocol message's event also carries its protocol
 * fields, so its payload is made here as before.
 *
 * Each message is looked up by its key (the lateral subquery with its `limit` is not merged
 * into a join): joined plainly, the planner takes the function's rows for a hundred and, with
 * a table of a few thousand messages, hashed them against a scan of the whole table, which
 * grew with every message until the table was large enough to change its mind (a tenth of
 * PostgreSQL's CPU under the ingest bench).
 */
async function insertProcessedEvents(tx: Tx, fresh: Processed[]): Promise<void> {
  if (fresh.length === 0) return;
  const items = fresh.map((p) => ({
    id: newId(),
    message_id: p.row.id,
    attachments: messageEventPayload(p.row, p.attachments).attachments,
    payload: p.protocol ? messageEventPayload(p.row, p.attachments, p.protocol) : null,
  }));
  await batched(tx, "processed events", items, (db, all) => db.execute(processedEventsInsert(all)), () => undefined);
}

/** The rows of a merged insert that belong to these records' messages. */
const ofMessages = <R extends { messageId: string }>(rows: R[], mine: { messageId: string }[]): R[] => {
  const ids = new Set(mine.map((r) => r.messageId));
  return rows.filter((r) => ids.has(r.messageId));
};

/** One `message.processed` event to insert: its id, its message, and its payload when not built from the row. */
export interface ProcessedEventItem {
  id: string;
  message_id: string;
  attachments: unknown;
  payload: Record<string, unknown> | null;
}

/** The statement of insertProcessedEvents (exported for the test of its plan). */
export function processedEventsInsert(items: ProcessedEventItem[]) {
  return sql`
    insert into outbox (id, kind, topic, mailbox_id, payload)
    select (e.item->>'id')::uuid, 'event', 'message.processed', m.mailbox_id,
      coalesce(nullif(e.item->'payload', 'null'::jsonb), ${sql.raw(MESSAGE_EVENT_PAYLOAD_SQL)} || jsonb_build_object('attachments', e.item->'attachments'))
    from jsonb_array_elements(${wellFormedJson(items)}::jsonb) with ordinality as e(item, n)
    cross join lateral (select * from messages where id = (e.item->>'message_id')::uuid limit 1) m
    order by e.n`;
}

/**
 * The batch's rows updated, in its order. When each message is in the batch once and already
 * has its thread (decided at arrival), no update reads what another writes, and they are all
 * sent at once. Otherwise (a job that ran twice, or a message stored before threads were
 * decided at arrival, which its update threads and a later one may join) one after another.
 */
async function applyAll(tx: Tx, state: WriteContext["state"], cmds: ProcessedUpdate[], locked: Map<string, LockedMessage>): Promise<(Applied | undefined)[]> {
  const independent = new Set(cmds.map((c) => c.messageId)).size === cmds.length && cmds.every((c) => locked.get(c.messageId)?.threadId != null);
  if (independent) return Promise.all(cmds.map((cmd) => applyOne(tx, state, cmd, locked.get(cmd.messageId))));
  const applied: (Applied | undefined)[] = [];
  for (const cmd of cmds) {
    const one = await applyOne(tx, state, cmd, locked.get(cmd.messageId));
    // The same message twice in one batch: the second finds it processed.
    if (one?.fresh) locked.set(one.row.id, one.row);
    applied.push(one);
  }
  return applied;
}

/** A processed message's attachment records (their bytes are stored already: a blob or a range of the raw message). */
const recordsOf = (cmd: ProcessedUpdate) => cmd.result.attachments.map((a, position) => ({ id: newId(), messageId: cmd.messageId, position, ...a }));

type Applied = { row: MessageRow; fresh: boolean };

/** One message of the batch: its row updated. */
async function applyOne(tx: Tx, state: WriteContext["state"], cmd: ProcessedUpdate, current: LockedMessage | undefined): Promise<Applied | undefined> {
  const r = cmd.result;
  if (!current) return undefined;
  if (current.processedAt) {
    // A job that ran twice: the message stays as the first run left it (read whole, it is the reply).
    const [row] = await tx.select().from(messages).where(eq(messages.id, current.id)).limit(1);
    return { row: row!, fresh: false };
  }

  const subject = r.subject ?? "";
  // The thread decided at arrival stands: a reply and a label may already name it, and the
  // parsed head says what the arrival head said. Only a message stored before threads were
  // decided at arrival (or one that somehow has none) is threaded here.
  const threadId =
    current.threadId ??
    (await placeInThread(tx, state.mailbox.id, {
      subject,
      newId,
      hints: {
        messageIds: [...(r.inReplyTo ? [r.inReplyTo] : []), ...[...r.references].reverse()],
        tokenThreadId: cmd.tokenThreadId,
        subjectKey: normalizeSubject(subject),
        participantsKey: participantsKey([r.fromAddress, ...r.toAddresses, ...r.ccAddresses], state.mailbox.emailAddress),
        at: current.createdAt,
      },
    }));

  const decided = {
    threadId,
    // An archive that came first is kept: processing does not undo a user's action.
    status: current.status === "received" ? "processed" : current.status,
    snippet: r.snippet,
    replyTo: r.replyTo,
    messageIdHeader: r.messageIdHeader,
    inReplyTo: r.inReplyTo,
    references: r.references,
    riskLevel: r.assessment.riskLevel,
    triageLabel: r.assessment.triageLabel,
    suspiciousSignals: r.assessment.signals,
    auth: r.assessment.auth,
    autoReplyBlocked: r.assessment.autoReplyBlocked,
    processedAt: new Date(),
  } satisfies Columns<(typeof DECIDED)[number]>;
  // Content stored already (src/mail/content.ts), as it is for every message processed now:
  // its columns are left out, as setting any of them would make PostgreSQL compute the
  // message's full-text vector again.
  const [row] = cmd.contentStored
    ? await MARK_PROCESSED.run(tx, { ...decided, id: cmd.messageId })
    : await tx
        .update(messages)
        .set({ ...contentColumns(r), ...decided })
        .where(eq(messages.id, cmd.messageId))
        .returning(WITHOUT_TEXTS);

  const texts = { textBody: stored(r.textBody), htmlBody: stored(r.htmlBody), extractedText: stored(r.extractedText), quotedText: stored(r.quotedText ?? null) };
  return { row: { ...row!, ...texts }, fresh: true };
}

/*
 * The processed row comes back without its texts (tens of KiB a message, read back and decoded
 * only to be what was just sent: about a third of the client's CPU for the update). They are
 * put back from what was written, as a text column stores it: UTF-8, a lone surrogate as U+FFFD.
 */
const { textBody: _text, htmlBody: _html, extractedText: _extracted, quotedText: _quoted, ...WITHOUT_TEXTS } = getTableColumns(messages);
type WithoutTexts = Omit<MessageRow, "textBody" | "htmlBody" | "extractedText" | "quotedText">;

/** The columns processing decides, in the order `applyOne` sets them. */
const DECIDED = ["threadId", "status", "snippet", "replyTo", "messageIdHeader", "inReplyTo", "references", "riskLevel", "triageLabel", "suspiciousSignals", "auth", "autoReplyBlocked", "processedAt"] as const;

/** The batch's jobs marked done, built once per batch size (db/compiled.ts). */
const JOBS_DONE = new CompiledList<string, { doneAt: Date }, unknown>(["doneAt"], (db, ids, { doneAt }) => db.update(outbox).set({ doneAt }).where(inArray(outbox.id, ids)));

/** The update of a processed message whose content is stored already, built once (db/compiled.ts). */
const MARK_PROCESSED = new Compiled<Columns<(typeof DECIDED)[number]> & { id: string }, WithoutTexts[]>((db) =>
  db.update(messages).set(slotsOf(DECIDED)).where(eq(messages.id, slot<string>("id"))).returning(WITHOUT_TEXTS),
);

const stored = (text: string | null): string | null => (text === null || text.isWellFormed() ? text : text.toWellFormed());
