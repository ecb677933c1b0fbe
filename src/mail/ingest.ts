import type { Mailboxes } from "../../actors/mailbox/client.ts";
import type { Db } from "../../db/client.ts";
import { BlobWriter, putBlobs, sha256Hex, type WriteBlobs } from "./blobs.ts";
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
 * Raw messages up to this size go to the mailbox's actor with their arrival and are stored in
 * the transaction that records it (actors/mailbox/inbound.ts receive). A separate write costs
 * a transaction of its own and, on PostgreSQL, two hops to the blob thread and back: for a
 * message of a few KiB that was most of what storing its bytes cost (paired rounds of the ingest
 * bench's 8 KiB message: 5% less service CPU, 2% less database CPU). Larger messages are still
 * written first and apart, so that no actor's transaction (which the mailbox's other arrivals
 * wait behind) carries their bytes, and so that their bytes cross as binary, not base64 text.
 */
export const INLINE_RAW_MAX = 32 * 1024;

/**
 * The one door for inbound mail, SMTP and HTTP alike: the raw bytes are stored
 * (content-addressed, so a message to several mailboxes is stored once) first, or, for a
 * message of at most `inlineRawMax` bytes, by the first mailbox's actor as it records its copy
 * together with its events and processing job. Resolves once all of that is committed: only
 * then may the caller answer 250 or 202.
 */
export class Ingest {
  private readonly blobs: BlobWriter;
  private readonly inlineRawMax: number;

  constructor(
    db: Db,
    private readonly mailboxes: Mailboxes,
    private readonly onStored: () => void,
    private readonly recent?: RecentRaw,
    /** How raw bytes are written (default: through `db`), and how many writes may be in flight (1 for the embedded database's single connection). */
    blobs: { write?: WriteBlobs; parallel?: number; inlineRawMax?: number } = {},
  ) {
    this.blobs = new BlobWriter(blobs.write ?? ((items) => putBlobs(db, items)), blobs.parallel ?? 1);
    this.inlineRawMax = blobs.inlineRawMax ?? INLINE_RAW_MAX;
  }

  async accept(arrival: Arrival): Promise<{ ids: string[] }> {
    const inline = arrival.raw.byteLength <= this.inlineRawMax;
    const rawSha256 = inline ? sha256Hex(arrival.raw) : await this.blobs.put(arrival.raw);
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
        // The first copy stores them: the others are recorded only once it has committed.
        ...(inline && ids.length === 0 ? { raw: arrival.raw } : {}),
      });
      ids.push(id);
    }
    this.onStored();
    return { ids };
  }
}
