import { createHash } from "node:crypto";
import { and, eq, lt, sql } from "drizzle-orm";
import { byteaParam } from "../../db/large-values.ts";
import type { Db } from "../../db/client.ts";
import { idempotencyKeys } from "../../db/schema/index.ts";
import { deriveKey, sealBytes, sealSplit, unsealBytes, unsealRaw } from "../crypto/seal.ts";
import type { NativeBlobs } from "../mail/native-sql.ts";
import { AppError } from "../errors.ts";
import { LARGE_TEXT_BYTES, type DetachedTexts } from "./json-parse.ts";
import { joinInTurns } from "./turns.ts";

export const IDEMPOTENCY_HEADER = "idempotency-key";
/** Answers from this size are stored as sealed bytes rather than base64 text (complete()). */
export const LARGE_ANSWER_BYTES = 64 * 1024;
const KEY_RE = /^[\x20-\x7e]{1,255}$/;

/** null when absent; throws validation_error when present but not 1-255 printable characters. */
export function readIdempotencyKey(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (!KEY_RE.test(value)) {
    throw new AppError("validation_error", "Idempotency-Key must be 1 to 255 printable ASCII characters", {
      fields: [{ path: "headers.idempotency-key", message: "must be 1 to 255 printable ASCII characters" }],
    });
  }
  return value;
}

/**
 * Same method, path (with query) and JSON body, whatever the key order or white space. A large
 * string (LARGE_TEXT_BYTES of UTF-8 or more) stands as the digest of its UTF-8, whether it came
 * as a string or was taken out of the body as bytes by the JSON worker (`texts`, with the digest
 * it made there): the same body always has the same fingerprint, and the event loop never
 * serialises megabytes of body to get one.
 */
export function fingerprint(method: string, pathWithQuery: string, body: unknown, texts?: DetachedTexts): string {
  const whole = texts && body !== null && typeof body === "object" ? { ...body, ...Object.fromEntries(Object.entries(texts).map(([k, t]) => [k, new TextDigest(t.sha256)])) } : body;
  return createHash("sha256").update(`${method}\n${pathWithQuery}\n${canonicalJson(whole)}`).digest("hex");
}

class TextDigest {
  constructor(readonly sha256: string) {}
}

function canonicalJson(v: unknown): string {
  if (v === undefined) return "";
  if (v instanceof TextDigest) return `text:${v.sha256}`;
  if (typeof v === "string" && v.length * 3 >= LARGE_TEXT_BYTES && Buffer.byteLength(v, "utf8") >= LARGE_TEXT_BYTES) {
    return `text:${createHash("sha256").update(v, "utf8").digest("hex")}`;
  }
  // A raw body (message/rfc822): its digest stands for it.
  if (v instanceof Uint8Array) return `bytes:${createHash("sha256").update(v).digest("hex")}`;
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  const obj = v as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
    .join(",")}}`;
}

export interface Claim {
  scope: string;
  /** The raw key stays in memory only: it is what the stored response is encrypted with. */
  key: string;
  keyDigest: string;
  fingerprint: string;
  claimedAt: Date;
}

export const keyDigest = (scope: string, key: string): string => createHash("sha256").update(`${scope}\n${key}`).digest("hex");

const cipherKey = (scope: string, key: string): Buffer => deriveKey(key, scope, "mailroom idempotent response");

/**
 * The stored answer is sealed as bytes on WebCrypto's thread: a send's answer can carry
 * megabytes of body, which node:crypto would encrypt on the event loop.
 */
export const sealResponse = (scope: string, key: string, body: string | Uint8Array): Promise<string> =>
  sealBytes(cipherKey(scope, key), typeof body === "string" ? Buffer.from(body, "utf8") : body);

export const openResponse = (scope: string, key: string, sealed: string): Promise<Uint8Array> => unsealBytes(cipherKey(scope, key), sealed);

export type ClaimResult = { kind: "claimed"; claim: Claim } | { kind: "replay"; status: number; body: Uint8Array };

/** A claim is renewed for at most this long: a request still running after an hour is taken for lost. */
const MAX_HOLD_MS = 60 * 60_000;

/**
 * The claim lives in the database, so two requests with one key never both run, on one
 * node or several. A claim is a lease: a node that dies mid-request frees the key after
 * `leaseSeconds` instead of blocking it for the whole retention time. While its request runs,
 * the node holding a claim renews the lease (a third of the way into each), so a command that
 * runs longer than the lease keeps its key and a retry is refused as in use, never run twice.
 */
export class IdempotencyStore {
  /** Renewal timers of the claims this node holds, and the renewal in flight, if any. */
  readonly #held = new Map<Claim, { timer: ReturnType<typeof setInterval>; inFlight: Promise<void> | null; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly ttlSeconds: number,
    private readonly leaseSeconds: number,
    /** On PostgreSQL: large answers go as bytes through Bun's client on a worker thread. */
    private readonly native?: Pick<NativeBlobs, "writeAnswer" | "readAnswer">,
  ) {}

  /** Starts renewing `claim` until complete() or release() (or MAX_HOLD_MS). */
  #hold(claim: Claim): ClaimResult {
    const held = { timer: setInterval(() => this.#renew(claim), Math.max(100, (this.leaseSeconds * 1000) / 3)), inFlight: null as Promise<void> | null, until: Date.now() + MAX_HOLD_MS };
    // A renewal timer must not keep a stopping process alive: a lease left behind ends by itself.
    held.timer.unref?.();
    this.#held.set(claim, held);
    return { kind: "claimed", claim };
  }

  /**
   * Moves the lease forward: claimed_at is both the lease's start and the owner's token, so the
   * update is a compare-and-set on it, and the claim carries the new value. A claim taken over
   * meanwhile (its lease ran out after all) is no longer ours: renewal stops.
   */
  #renew(claim: Claim): void {
    const held = this.#held.get(claim);
    if (!held || held.inFlight) return;
    if (Date.now() > held.until) {
      void this.#unhold(claim);
      return;
    }
    const next = new Date(Math.max(Date.now(), claim.claimedAt.getTime() + 1));
    held.inFlight = this.db
      .update(idempotencyKeys)
      .set({ claimedAt: next })
      .where(and(eq(idempotencyKeys.scope, claim.scope), eq(idempotencyKeys.keyDigest, claim.keyDigest), eq(idempotencyKeys.claimedAt, claim.claimedAt), eq(idempotencyKeys.state, "running")))
      .returning({ claimedAt: idempotencyKeys.claimedAt })
      .then(
        (rows) => {
          if (rows[0]) claim.claimedAt = rows[0].claimedAt;
          else void this.#unhold(claim);
        },
        () => {}, // the database is briefly unreachable: the next tick tries again, within the lease
      )
      .finally(() => {
        held.inFlight = null;
      });
  }

  /** Stops renewing, after the renewal in flight (complete and release compare on the claimed_at it sets). */
  async #unhold(claim: Claim): Promise<void> {
    const held = this.#held.get(claim);
    if (!held) return;
    clearInterval(held.timer);
    this.#held.delete(claim);
    await held.inFlight;
  }

  /** Claims this node holds and renews (tests, metrics). */
  get held(): number {
    return this.#held.size;
  }

  async claim(scope: string, key: string, fp: string): Promise<ClaimResult> {
    const digest = keyDigest(scope, key);
    const now = new Date();
    const expiresAt = new Date(now.getTime() + this.ttlSeconds * 1000);
    const inserted = await this.db
      .insert(idempotencyKeys)
      .values({ scope, keyDigest: digest, fingerprint: fp, state: "running", claimedAt: now, createdAt: now, expiresAt })
      .onConflictDoNothing()
      .returning({ claimedAt: idempotencyKeys.claimedAt });
    if (inserted[0]) return this.#hold({ scope, key, keyDigest: digest, fingerprint: fp, claimedAt: inserted[0].claimedAt });

    // Everything but a large answer's bytes, which only a replay reads (off the event loop).
    const [row] = await this.db
      .select({
        fingerprint: idempotencyKeys.fingerprint,
        state: idempotencyKeys.state,
        statusCode: idempotencyKeys.statusCode,
        responseBody: idempotencyKeys.responseBody,
        sealedBytes: sql<boolean>`${idempotencyKeys.responseSealed} is not null`,
        claimedAt: idempotencyKeys.claimedAt,
        expiresAt: idempotencyKeys.expiresAt,
      })
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.keyDigest, digest)))
      .limit(1);
    if (!row) return this.claim(scope, key, fp); // expired and swept in between: try again

    const expired = row.expiresAt <= now;
    const leaseOver = row.state === "running" && row.claimedAt.getTime() + this.leaseSeconds * 1000 <= now.getTime();
    if (expired || leaseOver) {
      // Take the row over only if nobody else did since we read it (compare-and-set on claimed_at).
      const taken = await this.db
        .update(idempotencyKeys)
        .set({ fingerprint: fp, state: "running", statusCode: null, responseBody: null, responseSealed: null, claimedAt: now, createdAt: now, expiresAt })
        .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.keyDigest, digest), eq(idempotencyKeys.claimedAt, row.claimedAt)))
        .returning({ claimedAt: idempotencyKeys.claimedAt });
      if (taken[0]) return this.#hold({ scope, key, keyDigest: digest, fingerprint: fp, claimedAt: taken[0].claimedAt });
      return this.claim(scope, key, fp);
    }
    if (row.fingerprint !== fp) {
      throw new AppError("idempotency_key_reused", "this Idempotency-Key was already used with a different request", { idempotency_key: key });
    }
    if (row.state === "running") {
      throw new AppError("idempotency_key_in_use", "a request with this Idempotency-Key is still being processed; retry later", { idempotency_key: key }, { "Retry-After": "1" });
    }
    return { kind: "replay", status: row.statusCode ?? 200, body: await this.#answer(scope, key, digest, row) };
  }

  async #answer(scope: string, key: string, digest: string, row: { responseBody: string | null; sealedBytes: boolean }): Promise<Uint8Array> {
    if (row.responseBody) return openResponse(scope, key, row.responseBody);
    if (!row.sealedBytes) return new Uint8Array(0);
    const answer = this.native ? await this.native.readAnswer({ scope, keyDigest: digest }, cipherKey(scope, key)) : await this.#readSealed(scope, digest).then((s) => s && unsealRaw(cipherKey(scope, key), s));
    // Gone between the two reads: the record expired and was swept, or was taken over.
    if (!answer) throw new AppError("idempotency_key_in_use", "this Idempotency-Key's record changed while it was read; retry", { idempotency_key: key }, { "Retry-After": "1" });
    return answer;
  }

  async #readSealed(scope: string, digest: string): Promise<Uint8Array | undefined> {
    const [row] = await this.db.select({ sealed: idempotencyKeys.responseSealed }).from(idempotencyKeys).where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.keyDigest, digest))).limit(1);
    return row?.sealed ?? undefined;
  }

  /**
   * Records the answer a retry replays: JSON text, or its UTF-8 bytes as sent. An answer of
   * LARGE_ANSWER_BYTES or more is kept as sealed bytes, on PostgreSQL sealed and written by
   * Bun's client on a blob thread: as base64 text through postgres.js, 8 MiB held the event
   * loop 70–170 ms. The event loop only joins a spliced answer's parts (a memcpy) to move them.
   */
  async complete(claim: Claim, status: number, body: string | Uint8Array | readonly Uint8Array[]): Promise<void> {
    const parts = typeof body === "string" ? [Buffer.from(body, "utf8")] : body instanceof Uint8Array ? [body] : body;
    const size = parts.reduce((n, p) => n + p.byteLength, 0);
    // Built after the renewal in flight has landed: it moves claimed_at, and the claim with it.
    const mine = () => and(eq(idempotencyKeys.scope, claim.scope), eq(idempotencyKeys.keyDigest, claim.keyDigest), eq(idempotencyKeys.claimedAt, claim.claimedAt));
    if (size >= LARGE_ANSWER_BYTES && this.native) {
      // Renewal stops first: the write compares claimed_at, which a renewal in flight would move.
      await this.#unhold(claim);
      await this.native.writeAnswer({ scope: claim.scope, keyDigest: claim.keyDigest, claimedAt: claim.claimedAt.toISOString() }, status, cipherKey(claim.scope, claim.key), [...parts]);
      return;
    }
    if (size >= LARGE_ANSWER_BYTES) {
      // Joined a megabyte a turn, sealed by WebCrypto off the event loop, and stored as sealRaw()
      // would give it, the IV joined by the database: the ciphertext is moved, not copied.
      const { iv, tagged } = await sealSplit(cipherKey(claim.scope, claim.key), parts.length === 1 ? parts[0]! : await joinInTurns(parts));
      await this.#unhold(claim);
      const sealed = sql`${byteaParam(this.db, iv)} || ${byteaParam(this.db, tagged, true)}`;
      await this.db.update(idempotencyKeys).set({ state: "done", statusCode: status, responseBody: null, responseSealed: sealed }).where(mine());
      return;
    }
    const plain = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    const sealed = await sealResponse(claim.scope, claim.key, plain);
    await this.#unhold(claim);
    await this.db.update(idempotencyKeys).set({ state: "done", statusCode: status, responseBody: sealed, responseSealed: null }).where(mine());
  }

  /** Gives the key back (the request was refused before it changed anything); only while we still own it. */
  async release(claim: Claim): Promise<void> {
    await this.#unhold(claim);
    await this.db
      .delete(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, claim.scope), eq(idempotencyKeys.keyDigest, claim.keyDigest), eq(idempotencyKeys.claimedAt, claim.claimedAt), eq(idempotencyKeys.state, "running")));
  }

  /** Deletes records past their retention, a bounded batch at a time. */
  async sweep(batch = 1000): Promise<number> {
    const res = await this.db.execute(sql`
      delete from ${idempotencyKeys}
      where (scope, key_digest) in (select scope, key_digest from ${idempotencyKeys} where ${lt(idempotencyKeys.expiresAt, new Date())} limit ${batch})`);
    return (res as { count?: number; affectedRows?: number }).count ?? (res as { affectedRows?: number }).affectedRows ?? 0;
  }
}
