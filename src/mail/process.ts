import { eq } from "drizzle-orm";
import type { Mailboxes } from "../../actors/mailbox/client.ts";
import type { Db } from "../../db/client.ts";
import { messages, protocolMessages, type MessageRow, type OutboxRow } from "../../db/schema/index.ts";
import { dispositionFor } from "../domain/sender-profiles.ts";
import type { Assessor } from "./assess/index.ts";
import { getBlob, putBlob } from "./blobs.ts";
import { storeContent, type ParsedResult } from "./content.ts";
import { numbersRule, piecesFromChars, type TextVectorBy } from "./text-vector-rules.ts";
import { LexiconFeed } from "./lexicon-feed.ts";
import { ProcessedGather, type GatherSlot } from "./processed-gather.ts";
import { snippetOf } from "./extract.ts";
import type { MailParser } from "./parse/index.ts";
import type { RecentRaw } from "./recent-raw.ts";
import type { ParsedMail, ProcessedMail } from "./types.ts";
import { isPermanent, JobFailed, type JobResult } from "../jobs/failure.ts";
import { AppError } from "../errors.ts";
import { messageIdOf } from "../jobs/outbox.ts";

/**
 * The `mail.process` job: parse (in a worker, under a budget), assess, store attachment
 * bytes and the message's content (./content.ts), then hand the result to the mailbox actor,
 * which threads the message and commits it together with the job's completion. Parsing and DNS happen outside the actor, so a slow
 * message never holds up the mailbox.
 */
export class InboundProcessor {
  /** Words the database made lexemes of, on their way to the parser threads (pieces: SEARCH_VECTOR). */
  private readonly lexicon: LexiconFeed;
  /** Results of one mailbox handed to its actor together (./processed-gather.ts). */
  private readonly gather: ProcessedGather;

  constructor(
    private readonly db: Db,
    private readonly mailboxes: Mailboxes,
    private readonly parser: MailParser,
    private readonly assessor: Assessor,
    private readonly recent?: RecentRaw,
    /** Who makes the text part of the full-text vector (config SEARCH_VECTOR). */
    private readonly vectorBy: TextVectorBy = "service",
  ) {
    this.lexicon = new LexiconFeed(parser.threads);
    this.gather = new ProcessedGather((mailboxId, update) => this.mailboxes.applyProcessed(mailboxId, update));
  }

  readonly handle = async (job: OutboxRow): Promise<JobResult> => {
    const messageId = messageIdOf(job);
    // A job written at arrival carries what is read here; older jobs (and protocol messages) read the row.
    let message: Arrived | undefined = arrivalOf(job, messageId);
    if (!message) {
      const [row] = await this.db.select().from(messages).where(eq(messages.id, messageId)).limit(1);
      if (!row || row.processedAt) return; // gone (mailbox deleted) or done
      if (row.transport === "agent-json") return this.processProtocol(job, row);
      message = row;
    }
    const slot = this.gather.begin(message.mailboxId);
    try {
      return await this.processMail(job, messageId, message, slot);
    } finally {
      slot.release();
    }
  };

  private async processMail(job: OutboxRow, messageId: string, message: Arrived, slot: GatherSlot): Promise<JobResult> {
    const raw = this.recent?.get(message.rawSha256) ?? (await getBlob(this.db, message.rawSha256));
    if (!raw) throw new JobFailed(`the raw message (sha256 ${message.rawSha256}) is missing`);

    const env = message.envelope ?? { mailFrom: null, rcptTo: [message.toAddress], remoteAddress: null, heloName: null };
    // Authentication reads only the raw bytes and the envelope: its DNS waits overlap the parse.
    const auth = this.assessor.authenticate(raw, env);
    // The content half of the assessment is made in the parser's worker, off the event loop.
    const fromChars = piecesFromChars(this.vectorBy);
    const vector = fromChars !== Infinity ? { numbersPlain: numbersRule(this.db).plain === true, fromChars, learned: this.lexicon.take() } : undefined;
    const outcome = await this.parser.parse(raw, { envelope: env, mailDomain: this.assessor.domain }, vector ? { vector } : {});
    const mail = outcome.ok ? outcome.mail : null;
    const headers = outcome.ok ? outcome.mail.headers : outcome.headers;
    const parsed = outcome.ok ? await this.fromParsed(outcome.mail, outcome.extractedText, outcome.quotedText, outcome.snippet) : fallback(message, headers);
    // The texts (and their full-text vector) are written here, so that the actor's transaction
    // need not wait for them (see storeContent). The same statement reads the sender's
    // disposition (per message, not cached: blocking a sender takes effect on the next mail),
    // while mailauth finishes.
    const sender = mail?.from?.address || message.fromAddress;
    const pieced = vector ? { pieces: outcome.ok ? (outcome.textPieces ?? null) : null, learned: (words: Parameters<LexiconFeed["learn"]>[0]) => this.lexicon.learn(words) } : undefined;
    const disposition = storeContent(this.db, messageId, parsed, sender, pieced).then((d) => d ?? dispositionFor(this.db, message.mailboxId, sender));
    // assess() awaits it; this only keeps a failure before then from counting as unhandled.
    disposition.catch(() => {});
    const assessment = await this.assessor.assess({ raw, mail, headers, envelope: env, disposition, content: outcome.ok ? outcome.content : undefined, auth });
    // Stored before the actor applies the result, whatever assess() read.
    await disposition;
    const result: ProcessedMail = { ...parsed, assessment };
    try {
      await slot.apply({
        messageId,
        jobId: job.id,
        tokenThreadId: typeof job.payload.token_thread_id === "string" ? job.payload.token_thread_id : null,
        result,
        contentStored: true,
      });
    } catch (err) {
      // The message or its mailbox is gone (deleted meanwhile): nothing to process, the job is done.
      if (err instanceof AppError && err.code === "not_found") return;
      throw err;
    }
    // applyProcessed marked the job done in its transaction (a message processed twice is left as it was).
    return { recorded: true };
  }

  /** The job ended failed: the message shows it (status `failed`, signal `processing_failed`). */
  readonly failed = async (job: OutboxRow, reason: string): Promise<void> => {
    const messageId = messageIdOf(job, null);
    if (!job.mailboxId || !messageId) return; // nothing that could show it
    try {
      await this.mailboxes.recordJobFailure(job.mailboxId, { kind: "mail.process", messageId, reason });
    } catch (err) {
      if (!isPermanent(err)) throw err; // the mailbox is gone: so is the message
    }
  };

  /** An agent protocol message: nothing to parse; its text and parameters are assessed like mail content. */
  private async processProtocol(job: OutboxRow, message: MessageRow): Promise<void> {
    const [protocol] = await this.db.select().from(protocolMessages).where(eq(protocolMessages.messageId, message.id)).limit(1);
    const parameters = protocol?.parameters ? JSON.stringify(protocol.parameters) : "";
    const mail: ParsedMail = {
      // The sender is the API key's mailbox: one From, as the content rules expect of any message.
      headers: [{ key: "from", value: message.fromAddress }],
      messageId: null,
      inReplyTo: null,
      references: [],
      subject: message.subject,
      from: { address: message.fromAddress, name: protocol?.fromAgent ?? "" },
      replyTo: [],
      to: [{ address: message.toAddress, name: "" }],
      cc: [],
      date: message.createdAt,
      text: [message.textBody ?? "", parameters].filter(Boolean).join("\n\n"),
      html: null,
      attachments: [],
    };
    const env = { mailFrom: message.fromAddress, rcptTo: [message.toAddress], remoteAddress: null, heloName: null };
    const disposition = await dispositionFor(this.db, message.mailboxId, message.fromAddress);
    const assessment = await this.assessor.assessContent({ mail, headers: mail.headers, envelope: env, disposition });
    const tokenThreadId = typeof job.payload.token_thread_id === "string" ? job.payload.token_thread_id : message.threadId;
    await this.mailboxes.applyProcessed(message.mailboxId, {
      messageId: message.id,
      jobId: job.id,
      tokenThreadId,
      result: {
        headers: [],
        messageIdHeader: null,
        inReplyTo: null,
        references: [],
        subject: message.subject,
        fromAddress: message.fromAddress,
        fromName: protocol?.fromAgent ?? null,
        toAddresses: [message.toAddress],
        ccAddresses: [],
        replyTo: [],
        textBody: message.textBody,
        htmlBody: null,
        extractedText: message.textBody,
        snippet: message.snippet,
        attachments: [],
        assessment,
      },
    });
  }

  /** `snippet` when the parser's worker made it (it is a pass over the text this thread need not make). */
  private async fromParsed(mail: ParsedMail, extracted: string, quoted?: string, snippet?: string): Promise<ParsedResult> {
    const stored: ProcessedMail["attachments"] = [];
    for (const a of mail.attachments) {
      const about = { filename: a.filename, mimeType: a.contentType, size: a.size, contentId: a.contentId };
      // An attachment found in the raw message is served from there; only the others are stored apart.
      stored.push(
        a.raw
          ? { ...about, sha256: null, rawOffset: a.raw.offset, rawLength: a.raw.length, transferEncoding: a.raw.encoding }
          : { ...about, sha256: await putBlob(this.db, a.content), rawOffset: null, rawLength: null, transferEncoding: null },
      );
    }
    return {
      headers: mail.headers,
      messageIdHeader: mail.messageId,
      inReplyTo: mail.inReplyTo,
      references: mail.references,
      subject: mail.subject,
      fromAddress: mail.from?.address ?? "",
      fromName: mail.from?.name || null,
      toAddresses: mail.to.map((a) => a.address).filter(Boolean),
      ccAddresses: mail.cc.map((a) => a.address).filter(Boolean),
      replyTo: mail.replyTo.map((a) => a.address).filter(Boolean),
      textBody: mail.text,
      htmlBody: mail.html,
      extractedText: extracted,
      quotedText: quoted ?? null,
      snippet: snippet ?? snippetOf(extracted || mail.text || ""),
      attachments: stored,
    };
  }
}

/** What processing reads of a received message. */
type Arrived = Pick<MessageRow, "id" | "mailboxId" | "rawSha256" | "envelope" | "fromAddress" | "toAddress" | "subject">;

/** The message as its job's payload describes it (`arrival`, written with the row), or undefined for a job without it. */
function arrivalOf(job: OutboxRow, messageId: string): Arrived | undefined {
  const a = job.payload.arrival as { raw_sha256?: unknown; envelope?: unknown; from?: unknown; to?: unknown; subject?: unknown } | undefined;
  if (!a || typeof a !== "object" || !job.mailboxId || typeof a.raw_sha256 !== "string" || typeof a.from !== "string" || typeof a.to !== "string" || typeof a.subject !== "string") return undefined;
  return { id: messageId, mailboxId: job.mailboxId, rawSha256: a.raw_sha256, envelope: (a.envelope ?? null) as MessageRow["envelope"], fromAddress: a.from, toAddress: a.to, subject: a.subject };
}

/** A message the parser gave up on: kept raw, described by what the head reader could read. */
function fallback(message: { fromAddress: string; subject: string }, headers: ProcessedMail["headers"]): ParsedResult {
  const header = (k: string) => headers.find((h) => h.key.toLowerCase() === k)?.value ?? null;
  return {
    headers,
    messageIdHeader: header("message-id"),
    inReplyTo: header("in-reply-to"),
    references: (header("references") ?? "").split(/\s+/).filter(Boolean),
    subject: header("subject") ?? message.subject,
    fromAddress: message.fromAddress,
    toAddresses: [],
    ccAddresses: [],
    replyTo: [],
    textBody: null,
    htmlBody: null,
    extractedText: null,
    snippet: "",
    attachments: [],
  };
}
