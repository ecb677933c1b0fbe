import type { LearnedWord } from "./text-vector-pieces.ts";

/** Learned words waiting to be handed on at most; older batches are dropped first. */
const PENDING_LIMIT = 20_000;

/**
 * Carries the words the database made lexemes of (the answer of the statement that stored a
 * message's content) to the parser threads, which make the vector's pieces and keep their own
 * lexicon (text-vector-pieces.ts WordLexicon). The pool hands each parse to whichever thread
 * is free, so a batch rides along with the next `copies` parses (one per thread the pool can
 * have): a thread that misses it finds the words missing again, and the next statement answers
 * them again. Nothing depends on a thread knowing a word but the cost of not knowing it.
 */
export class LexiconFeed {
  private batches: { entries: readonly LearnedWord[]; left: number }[] = [];
  private pending = 0;

  constructor(private readonly copies: number) {}

  learn(entries: readonly LearnedWord[]): void {
    if (entries.length === 0) return;
    this.batches.push({ entries, left: this.copies });
    this.pending += entries.length;
    while (this.pending > PENDING_LIMIT && this.batches.length > 1) this.pending -= this.batches.shift()!.entries.length;
  }

  /** What the next parse carries, or undefined when nothing is waiting. */
  take(): LearnedWord[] | undefined {
    if (this.batches.length === 0) return undefined;
    const out: LearnedWord[] = [];
    for (const batch of this.batches) {
      for (const entry of batch.entries) out.push(entry);
      batch.left--;
    }
    this.batches = this.batches.filter((b) => {
      if (b.left > 0) return true;
      this.pending -= b.entries.length;
      return false;
    });
    return out;
  }
}
