/**
 * Every budget of the parser in one place (imported by both threads, so it imports nothing).
 */

/** MailParser defaults: pool size, time budget of one parse, size budget of the input. */
export const PARSE_DEFAULTS = { workers: 2, timeoutMs: 5000, maxBytes: 32 * 1024 * 1024 } as const;

/**
 * The parser pool's spare thread: it takes mail once a message has waited this long behind
 * busy workers. An ordinary message parses in a few milliseconds and the job runner hands the
 * pool at most a few at a time, so only slow mail (up to the parse budget each) holds the queue
 * that long; the spare keeps the rest of the mail moving past it. Sized for that case only, it
 * costs nothing while the workers keep up (src/workers/pool.ts).
 */
export const PARSE_SPARE = { workers: 1, afterMs: 250 } as const;

/** Largest head of one MIME part (mailsplit's own default); a bigger one fails the parse. */
export const MAX_HEAD_BYTES = 1024 * 1024;

/**
 * Most MIME parts in one message; more fails the parse. mailsplit's default of 1,000 turns
 * away some legitimate bulk digests; 2,000 still parses in well under a second.
 */
export const MAX_PARTS = 2000;

/** The main thread's head reader on failure: a few milliseconds at most, whatever the input. */
export const FALLBACK_HEAD_LIMITS = { maxBytes: 256 * 1024, maxFields: 1000 } as const;

/** The worker's head reader: a little above MAX_HEAD_BYTES, so every head mailsplit accepts is read in full. */
export const WORKER_HEAD_LIMITS = { maxBytes: MAX_HEAD_BYTES + 64 * 1024, maxFields: Number.POSITIVE_INFINITY } as const;
