import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { intelResults, mailboxes, messages, threads, type IntelKind, type IntelResultRow } from "../../db/schema/index.ts";
import type { SenderProfiles } from "../domain/sender-profiles.ts";
import { AppError, notFound } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { EngineInfo, IntelEngine } from "./engine.ts";
import { withFallback } from "./fallback.ts";
import { DIGEST_MAX_MESSAGES, fingerprint, messageInput, missingText, threadInput } from "./inputs.ts";
import { senderFacts } from "./sender-facts.ts";

export interface IntelResult {
  kind: IntelKind;
  subjectId: string;
  result: Record<string, unknown>;
  info: EngineInfo;
  fallbackReason: string | null;
  generatedAt: Date;
  /** Read from the cache rather than made by this request. */
  cached: boolean;
}

/** extractText() of several messages' parts, made off the event loop (PooledLocalEngine.extractTexts). */
export type TextMaker = (parts: { text: string | null; html: string | null }[]) => Promise<string[]>;

/** One thing to know about, loaded: where it belongs, what it is made from, how to make it. */
interface Subject {
  accountId: string;
  mailboxId: string | null;
  sourceVersion: string;
  make: (engine: IntelEngine) => Promise<Record<string, unknown>>;
}

/**
 * Summaries, extractions, digests and sender intelligence, made by the configured engine
 * (falling back to the local one) and cached per subject with the engine that made them and
 * a fingerprint of what they were made from. A read returns the cached result while that
 * fingerprint still matches, and makes a new one when the message, thread or sender's mail
 * changed since; before anything was made it is a 404.
 */
export class Intelligence {
  constructor(
    private readonly db: Db,
    private readonly profiles: SenderProfiles,
    private readonly engine: IntelEngine,
    private readonly local: IntelEngine,
    private readonly log?: Logger,
    /** Without one, texts are made inline (tests of the service alone). */
    private readonly makeTexts?: TextMaker,
  ) {}

  get engineInfo(): EngineInfo {
    return this.engine.info;
  }

  /** GET: the cached result, remade first when its source changed; 404 when none was made. */
  async read(kind: IntelKind, subjectId: string): Promise<IntelResult> {
    const subject = await this.load(kind, subjectId);
    const cached = await this.cached(kind, subjectId);
    if (!cached) throw new AppError("not_found", `no ${label(kind)} has been generated for ${subjectId} yet: POST to generate one`, { id: subjectId, kind });
    if (cached.sourceVersion === subject.sourceVersion) return fromRow(cached, true);
    return this.make(kind, subjectId, subject);
  }

  /**
   * POST: makes and stores a result. A fresh one the configured engine made is returned as it
   * is (cheap and stable) unless `force`; a stale one, or a fallback's, is made anew.
   */
  async generate(kind: IntelKind, subjectId: string, force = false): Promise<IntelResult> {
    const subject = await this.load(kind, subjectId);
    if (!force) {
      const cached = await this.cached(kind, subjectId);
      if (cached && cached.sourceVersion === subject.sourceVersion && !cached.fallbackReason && cached.engine === this.engine.info.engine && cached.engineVersion === this.engine.info.version && cached.model === this.engine.info.model) {
        return fromRow(cached, true);
      }
    }
    return this.make(kind, subjectId, subject);
  }

  private async make(kind: IntelKind, subjectId: string, subject: Subject): Promise<IntelResult> {
    const made = await withFallback(this.engine, this.local, subject.make, this.log);
    const row = {
      kind,
      subjectId,
      accountId: subject.accountId,
      mailboxId: subject.mailboxId,
      engine: made.info.engine,
      engineVersion: made.info.version,
      model: made.info.model,
      fallbackReason: made.fallbackReason,
      sourceVersion: subject.sourceVersion,
      result: made.value,
      generatedAt: new Date(),
    };
    const { kind: _k, subjectId: _s, ...changes } = row;
    const [stored] = await this.db
      .insert(intelResults)
      .values(row)
      .onConflictDoUpdate({ target: [intelResults.kind, intelResults.subjectId], set: changes })
      .returning();
    return fromRow(stored!, false);
  }

  private async cached(kind: IntelKind, subjectId: string): Promise<IntelResultRow | undefined> {
    const [row] = await this.db
      .select()
      .from(intelResults)
      .where(and(eq(intelResults.kind, kind), eq(intelResults.subjectId, subjectId)))
      .limit(1);
    return row;
  }

  private async load(kind: IntelKind, id: string): Promise<Subject> {
    switch (kind) {
      case "summary":
      case "extractions":
        return this.loadMessage(kind, id);
      case "digest":
        return this.loadThread(id);
      case "sender_intelligence":
        return this.loadSender(id);
    }
  }

  private async loadMessage(kind: "summary" | "extractions", id: string): Promise<Subject> {
    const [found] = await this.db.select({ m: messages, accountId: mailboxes.accountId }).from(messages).innerJoin(mailboxes, eq(mailboxes.id, messages.mailboxId)).where(eq(messages.id, id)).limit(1);
    if (!found) throw notFound("message", id);
    const [text] = await this.texts([found.m]);
    const input = messageInput(found.m, null, text);
    return {
      accountId: found.accountId,
      mailboxId: found.m.mailboxId,
      sourceVersion: fingerprint(input),
      make: async (engine) => ({ ...(kind === "summary" ? await engine.summarize(input) : await engine.extract(input)) }),
    };
  }

  private async loadThread(id: string): Promise<Subject> {
    const [found] = await this.db
      .select({ t: threads, accountId: mailboxes.accountId, self: mailboxes.emailAddress })
      .from(threads)
      .innerJoin(mailboxes, eq(mailboxes.id, threads.mailboxId))
      .where(eq(threads.id, id))
      .limit(1);
    if (!found) throw notFound("thread", id);
    const latest = await this.db.select().from(messages).where(eq(messages.threadId, id)).orderBy(desc(messages.createdAt), desc(messages.id)).limit(DIGEST_MAX_MESSAGES);
    const rows = latest.reverse();
    const input = threadInput(found.t, found.self, rows, await this.texts(rows));
    return {
      accountId: found.accountId,
      mailboxId: found.t.mailboxId,
      sourceVersion: fingerprint(input),
      make: async (engine) => ({ ...(await engine.digest(input)) }),
    };
  }

  /**
   * The texts of rows without extracted_text: HTML conversion costs tens of milliseconds per
   * message, and a digest reads up to 100 of them.
   */
  private async texts(rows: (typeof messages.$inferSelect)[]): Promise<(string | undefined)[]> {
    const missing = rows.map(missingText);
    const wanted = missing.filter((m) => m !== null);
    if (!this.makeTexts || wanted.length === 0) return rows.map(() => undefined);
    const made = await this.makeTexts(wanted);
    let next = 0;
    return missing.map((m) => (m === null ? undefined : made[next++]));
  }

  private async loadSender(id: string): Promise<Subject> {
    const profile = await this.profiles.get(id);
    const facts = await senderFacts(this.db, profile);
    // Notes are the user's own words about the sender: a change to them is a change of source.
    return {
      accountId: profile.accountId,
      mailboxId: null,
      sourceVersion: fingerprint({ facts, notes: profile.notes }),
      make: async (engine) => ({ ...facts, ...(await engine.assessSender(facts)) }),
    };
  }
}

const label = (kind: IntelKind) => (kind === "sender_intelligence" ? "sender intelligence" : kind === "extractions" ? "extraction" : kind);

function fromRow(row: IntelResultRow, cached: boolean): IntelResult {
  return {
    kind: row.kind,
    subjectId: row.subjectId,
    result: row.result,
    info: { engine: row.engine, version: row.engineVersion, model: row.model },
    fallbackReason: row.fallbackReason,
    generatedAt: row.generatedAt,
    cached,
  };
}
