/**
 * The forwarded asks an owner ran or runs, by ask id, so that a retry of one (the forwarder
 * heard nothing in time and sent it again, or a stalled owner reads the first attempt and
 * its retries together) gets that ask's one outcome instead of running it a second time.
 *
 * Running asks are kept until they settle, however long that takes. A settled outcome is
 * kept until its forwarder says it has ended that ask (`ended`: every forwarder numbers its
 * asks and tells, with each request, below which number all of its asks have ended, so it
 * sends none of them again), and at most two generations of `keepMs` either way (a
 * forwarder that stopped telling): the older map dropped whole when the newer has been
 * filling for `keepMs` (no per-entry expiry to scan). Forgetting an outcome as soon as its
 * forwarder is done with it keeps the maps small under load: at thousands of forwarded
 * asks a second, seconds of outcomes kept were a tenth of the owner's CPU (the maps and
 * the collector moving what they held).
 */

/** Where a kept outcome came from, for `ended`: the forwarding node and the ask's number there. */
export interface AskOrigin {
  source: string;
  seq: number;
}

/** One forwarder's kept outcomes in the order they settled, and the number below which it has ended every ask. */
interface SourceOrder {
  below: number;
  seqs: number[];
  ids: string[];
  head: number;
  /** Heard from (a settle or an `ended`) since the last rotation. */
  heard: boolean;
}

export class AskMemory {
  /** Asks running here, with the attempts that came meanwhile (answered when it settles). */
  private readonly running = new Map<string, ((frame: string) => void)[]>();
  private recent = new Map<string, string>();
  private older = new Map<string, string>();
  private readonly sources = new Map<string, SourceOrder>();
  private since: number;

  constructor(
    private readonly keepMs: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {
    this.since = now();
  }

  /**
   * An attempt of ask `id`: if the ask ran or runs here, `answer` gets its outcome (at once,
   * or when it settles) and true is returned; otherwise it is now running here (call `settle`).
   */
  attempt(id: string, answer: (frame: string) => void): boolean {
    const waiting = this.running.get(id);
    if (waiting) {
      waiting.push(answer);
      return true;
    }
    this.rotate();
    const frame = this.recent.get(id) ?? this.older.get(id);
    if (frame !== undefined) {
      answer(frame);
      return true;
    }
    this.running.set(id, []);
    return false;
  }

  /**
   * The ask's outcome, for the attempts that wait and later ones; `kept` false (it ran
   * nothing): a later attempt runs it. With its `origin`, it is forgotten once that
   * forwarder has ended the ask (at once if it already has: it gave up waiting).
   */
  settle(id: string, frame: string, kept: boolean, origin?: AskOrigin): void {
    const waiting = this.running.get(id) ?? [];
    this.running.delete(id);
    if (kept) {
      const order = origin === undefined ? undefined : this.orderOf(origin.source);
      if (order === undefined || origin!.seq >= order.below) {
        this.rotate();
        this.recent.set(id, frame);
        if (order !== undefined) {
          order.seqs.push(origin!.seq);
          order.ids.push(id);
        }
      }
    }
    for (const answer of waiting) answer(frame);
  }

  /**
   * `source` has ended every ask it numbered below `below` (answered, or given up): it sends
   * none of them again, so their outcomes are forgotten. Outcomes that settled out of order
   * wait until those before them go (or their generation is dropped).
   */
  ended(source: string, below: number): void {
    const order = this.orderOf(source);
    if (below <= order.below) return;
    order.below = below;
    while (order.head < order.seqs.length && order.seqs[order.head]! < below) {
      const id = order.ids[order.head]!;
      this.recent.delete(id);
      this.older.delete(id);
      order.head++;
    }
    if (order.head > 1024 && order.head * 2 > order.seqs.length) compact(order);
  }

  get size(): number {
    return this.running.size + this.recent.size + this.older.size;
  }

  private orderOf(source: string): SourceOrder {
    let order = this.sources.get(source);
    if (order === undefined) {
      order = { below: 0, seqs: [], ids: [], head: 0, heard: true };
      this.sources.set(source, order);
    }
    order.heard = true;
    return order;
  }

  private rotate(): void {
    const now = this.now();
    if (now - this.since < this.keepMs) return;
    this.older = now - this.since < 2 * this.keepMs ? this.recent : new Map();
    this.recent = new Map();
    this.since = now;
    // What a dropped generation held leaves the orders too; a forwarder with nothing kept
    // that was not heard from for a generation (gone, or restarted under a new name) is forgotten.
    for (const [source, order] of this.sources) {
      const seqs: number[] = [];
      const ids: string[] = [];
      for (let i = order.head; i < order.ids.length; i++) {
        if (!this.older.has(order.ids[i]!)) continue;
        seqs.push(order.seqs[i]!);
        ids.push(order.ids[i]!);
      }
      if (ids.length === 0 && !order.heard) {
        this.sources.delete(source);
        continue;
      }
      order.seqs = seqs;
      order.ids = ids;
      order.head = 0;
      order.heard = false;
    }
  }
}

function compact(order: SourceOrder): void {
  order.seqs = order.seqs.slice(order.head);
  order.ids = order.ids.slice(order.head);
  order.head = 0;
}
