import type { Mailboxes } from "../../actors/mailbox/client.ts";
import type { Db } from "../../db/client.ts";
import { BlobWriter, putBlobs, type WriteBlobs } from "./blobs.ts";
import { arrivalHead } from "./arrival-head.ts";
import { readHead } from "./parse/head.ts";
import type { RecentRaw } from "./recent-raw.ts";
import type { Recipient } from "./recipients.ts";
import type { Envelope, HeaderField } from "./types.ts";

export interface Arrival {
  raw: Uint8Array;
  mailFrom: string | null;
  recipients: Recipient[];
  remoteAddress: string | null;
  heloName: string | null;
  /** The head as already read by the caller, if it read it (saves reading it again). */
  headers?: HeaderField[];
}

/**
 * The one door for inbound mail, SMTP and HTTP alike: the raw bytes are stored first
 * (content-addressed, so a message to several mailboxes is stored once), then each mailbox's
 * actor records its copy together with its events and processing job. Resolves once all of
 * that is committed: only then may the caller answer 250 or 202.
 */
export class Ingest {
  private readonly blobs: BlobWriter;

  constructor(
    db: Db,
    private readonly mailboxes: Mailboxes,
    private readonly onStored: () => void,
    private readonly recent?: RecentRaw,
    /** How raw bytes are written (default: through `db`), and how many writes may be in flight (1 for the embedded database's single connection). */
    blobs: { write?: WriteBlobs; parallel?: number } = {},
  ) {
    this.blobs = new BlobWriter(blobs.write ?? ((items) => putBlobs(db, items)), blobs.parallel ?? 1);
  }

  async accept(arrival: Arrival): Promise<{ ids: string[] }> {
    const rawSha256 = await this.blobs.put(arrival.raw);
    this.recent?.put(rawSha256, arrival.raw);
    const head = arrivalHead(arrival.headers ?? readHead(arrival.raw));
    const envelope: Envelope = {
      mailFrom: arrival.mailFrom,
      rcptTo: arrival.recipients.map((r) => r.address),
      remoteAddress: arrival.remoteAddress,
      heloName: arrival.heloName,
    };
    // One copy per mailbox, however many of its addresses the envelope names.
    const byMailbox = new Map<string, Recipient>();
    for (const r of arrival.recipients) if (!byMailbox.has(r.mailboxId)) byMailbox.set(r.mailboxId, r);
    const ids: string[] = [];
    for (const r of byMailbox.values()) {
      // Once one mailbox has its copy, the others wait their turn: dropping one at its deadline
      // would fail an arrival that is already partly recorded, and the sender's retry would repeat it.
      const client = ids.length === 0 ? this.mailboxes : this.mailboxes.followUp;
      const { id } = await client.receive(r.mailboxId, {
        rawSha256,
        rawSize: arrival.raw.byteLength,
        recipient: r.address,
        envelope,
        replyToken: r.replyToken,
        head,
      });
      ids.push(id);
    }
    this.onStored();
    return { ids };
  }
}
