import { eq } from "drizzle-orm";
import nodemailer from "nodemailer";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import type { Db } from "../../../db/client.ts";
import { messages, type OutboxRow } from "../../../db/schema/index.ts";
import type { Logger } from "../../log.ts";
import { isPermanent, JobFailed } from "../../jobs/failure.ts";
import { messageIdOf } from "../../jobs/outbox.ts";
import { getBlob, hasBlob } from "../blobs.ts";
import type { Ingest } from "../ingest.ts";
import type { Recipient, Recipients } from "../recipients.ts";

export interface DelivererOptions {
  relayUrl: string | undefined;
  mailDomain: string;
  /** Attempts before a transient relay failure becomes `failed`. */
  maxAttempts: number;
  log: Logger;
  /** Reads a raw message (on PostgreSQL the native client's binary read); default getBlob on the main client. */
  readBlob?: (sha256: string) => Promise<Uint8Array | undefined>;
}

class PermanentFailure extends Error {}

/**
 * The `mail.deliver` job. With a relay, the stored raw message goes to it as it is. Without
 * one, mail to this service's own addresses goes through the inbound pipeline and other mail
 * stays in the local outbox (the stored message), marked sent. Every attempt is a delivery
 * event; a transient relay failure is retried by the job runner until `maxAttempts`.
 */
export class Deliverer {
  private readonly relay: ReturnType<typeof nodemailer.createTransport> | undefined;

  constructor(
    private readonly db: Db,
    private readonly mailboxes: Mailboxes,
    private readonly recipients: Recipients,
    private readonly ingest: Ingest,
    private readonly opts: DelivererOptions,
  ) {
    this.relay = opts.relayUrl
      ? nodemailer.createTransport(opts.relayUrl, { connectionTimeout: 5000, greetingTimeout: 5000, socketTimeout: 15_000, disableFileAccess: true, disableUrlAccess: true } as never)
      : undefined;
  }

  readonly handle = async (job: OutboxRow): Promise<void> => {
    const messageId = messageIdOf(job);
    // Only what delivery reads: the bodies of a large send are megabytes the relay gets from the raw.
    const [message] = await this.db
      .select({
        status: messages.status,
        mailboxId: messages.mailboxId,
        rawSha256: messages.rawSha256,
        envelope: messages.envelope,
        fromAddress: messages.fromAddress,
        messageIdHeader: messages.messageIdHeader,
      })
      .from(messages)
      .where(eq(messages.id, messageId))
      .limit(1);
    if (!message || message.status === "sent" || message.status === "failed") return;
    // Read only when something takes it (the relay, or a mailbox here): kept mail needs none.
    const raw = async () => {
      const bytes = await (this.opts.readBlob ? this.opts.readBlob(message.rawSha256) : getBlob(this.db, message.rawSha256));
      if (!bytes) throw new JobFailed(`the raw message (sha256 ${message.rawSha256}) is missing`);
      return bytes;
    };
    const envelope = { from: message.envelope?.mailFrom ?? message.fromAddress, to: message.envelope?.rcptTo ?? [] };
    const record = (outcome: "sent" | "retrying" | "failed", detail: string, providerMessageId?: string | null) =>
      this.mailboxes.recordDelivery(message.mailboxId, { messageId, outcome, detail, providerMessageId });

    try {
      const result = this.relay ? await this.viaRelay(raw, envelope) : await this.locally(raw, envelope, message.rawSha256);
      await record("sent", result.detail, result.providerId ?? message.messageIdHeader);
    } catch (err) {
      if (err instanceof JobFailed) throw err; // no raw message: the job ends, not an attempt
      const reason = describe(err);
      if (err instanceof PermanentFailure || job.attempts >= this.opts.maxAttempts) {
        await record("failed", `${reason} (attempt ${job.attempts} of ${this.opts.maxAttempts})`);
        return;
      }
      await record("retrying", `${reason} (attempt ${job.attempts} of ${this.opts.maxAttempts}; will retry)`);
      throw err; // the runner schedules the retry
    }
  };

  /**
   * The job ended failed outside the relay's own verdicts (an error before or after the
   * attempt, attempts used up, a hung attempt): the message is `failed`, with the reason as
   * its last delivery event.
   */
  readonly failed = async (job: OutboxRow, reason: string): Promise<void> => {
    const messageId = messageIdOf(job, null);
    if (!job.mailboxId || !messageId) return;
    const [message] = await this.db.select({ status: messages.status }).from(messages).where(eq(messages.id, messageId)).limit(1);
    if (!message || message.status === "sent" || message.status === "failed") return;
    try {
      await this.mailboxes.recordDelivery(job.mailboxId, { messageId, outcome: "failed", detail: `${reason} (attempt ${job.attempts}; gave up)` });
    } catch (err) {
      if (!isPermanent(err)) throw err; // the mailbox or message is gone
    }
  };

  close(): void {
    this.relay?.close();
  }

  private async viaRelay(raw: () => Promise<Uint8Array>, envelope: { from: string; to: string[] }): Promise<{ detail: string; providerId: string | null }> {
    const bytes = await raw();
    let info: { response?: string; rejected?: unknown[]; accepted?: unknown[] };
    try {
      info = await this.relay!.sendMail({ envelope, raw: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
    } catch (err) {
      const code = (err as { responseCode?: number }).responseCode;
      if (code !== undefined && code >= 500) throw new PermanentFailure(describe(err));
      throw err;
    }
    const response = String(info.response ?? "").slice(0, 500);
    const rejected = (info.rejected ?? []).map(String);
    const queued = /queued as\s+([A-Za-z0-9._-]+)/i.exec(response)?.[1] ?? null;
    const detail = rejected.length > 0 ? `relay: ${response}; refused: ${rejected.join(", ")}` : `relay: ${response}`;
    return { detail, providerId: queued };
  }

  private async locally(raw: () => Promise<Uint8Array>, envelope: { from: string; to: string[] }, sha256: string): Promise<{ detail: string; providerId: null }> {
    const ours: Recipient[] = [];
    const refused: string[] = [];
    const kept: string[] = [];
    for (const address of envelope.to) {
      if (!address.toLowerCase().endsWith(`@${this.opts.mailDomain}`)) {
        kept.push(address);
        continue;
      }
      const r = await this.recipients.resolve(address);
      if (r.ok) ours.push(r.recipient);
      else refused.push(`${address} (${r.problem})`);
    }
    const parts: string[] = [];
    if (ours.length > 0) {
      const { ids } = await this.ingest.accept({ raw: await raw(), mailFrom: envelope.from, recipients: ours, remoteAddress: null, heloName: null });
      parts.push(`delivered internally to ${ours.map((r) => r.address).join(", ")} (${ids.join(", ")})`);
    }
    if (kept.length > 0) {
      // Kept mail is read later (GET /raw, a relay set up afterwards): its bytes must exist now,
      // or "sent" would claim a message nobody can ever read.
      if (ours.length === 0 && !(await hasBlob(this.db, sha256))) throw new JobFailed(`the raw message (sha256 ${sha256}) is missing`);
      parts.push(`no relay configured (SMTP_RELAY_URL); kept in the local outbox for ${kept.join(", ")}`);
    }
    if (refused.length > 0) {
      if (ours.length === 0 && kept.length === 0) throw new PermanentFailure(`no such recipient here: ${refused.join(", ")}`);
      parts.push(`refused: ${refused.join(", ")}`);
    }
    return { detail: parts.join("; "), providerId: null };
  }
}

function describe(err: unknown): string {
  const e = err as { response?: string; code?: string; message?: string };
  return String(e?.response ?? (e?.code ? `${e.code}: ${e.message}` : e?.message ?? err)).slice(0, 500);
}
