import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import { newId } from "../domain/ids.ts";
import type { AttemptResult } from "./attempt.ts";

/** Consecutive failed attempts after which an endpoint is `degraded` (spec section 6). */
export const DEGRADE_AFTER = 5;

export interface Recorded {
  state: "pending" | "succeeded" | "failed";
  /** For a pending delivery: when its next attempt is due. */
  nextAttemptAt: Date | null;
  attempt: number;
}

interface Waiting {
  result: AttemptResult;
  resolve: (r: Recorded | null) => void;
  reject: (err: unknown) => void;
}

const MAX_BATCH = 200;

/**
 * Writes attempt results: the attempt row, the delivery's new state and its endpoint's
 * health, in one transaction. Results that arrive while a commit is running are written
 * together by the next one (group commit), which is what keeps thousands of deliveries a
 * second from costing thousands of transactions.
 *
 * Scheduled attempts move the delivery along its retry schedule (`delays`, seconds): after
 * a failure it is due again after the next delay, and failed for good once the delays are
 * used up. A replay that fails leaves the delivery's state as it was; one that succeeds
 * completes it.
 */
export class AttemptRecorder {
  private queue: Waiting[] = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly delays: number[],
  ) {}

  /** Resolves once the result is committed; null when the delivery no longer exists. */
  record(result: AttemptResult): Promise<Recorded | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ result, resolve, reject });
      this.flushSoon();
    });
  }

  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private flushSoon(): void {
    if (this.flushing) return;
    this.flushing = (async () => {
      await Promise.resolve(); // let results of the same tick join this batch
      while (this.queue.length > 0) {
        const batch = this.takeBatch();
        try {
          const recorded = await this.write(batch.map((w) => w.result));
          batch.forEach((w, i) => w.resolve(recorded[i] ?? null));
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    })().finally(() => {
      this.flushing = undefined;
      if (this.queue.length > 0) this.flushSoon();
    });
  }

  /** Up to MAX_BATCH results, at most one per delivery (a second waits for the next commit). */
  private takeBatch(): Waiting[] {
    const seen = new Set<string>();
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    for (const w of this.queue) {
      if (batch.length < MAX_BATCH && !seen.has(w.result.deliveryId)) {
        seen.add(w.result.deliveryId);
        batch.push(w);
      } else rest.push(w);
    }
    this.queue = rest;
    return batch;
  }

  private async write(results: AttemptResult[]): Promise<(Recorded | null)[]> {
    const delays = `{${this.delays.join(",")}}`;
    const values = sql.join(
      results.map((r) => sql`(${r.deliveryId}::uuid, ${r.success}::boolean, ${r.trigger === "scheduled"}::boolean)`),
      sql`, `,
    );
    return this.db.transaction(async (tx) => {
      const updated = rowsOf<{ id: string; state: Recorded["state"]; next_attempt_at: string | Date; attempt: number; target: string; subject_id: string | null; mailbox_id: string }>(
        await tx.execute(sql`
          update webhook_deliveries d set
            attempt_count = d.attempt_count + 1,
            schedule_attempts = d.schedule_attempts + (case when v.scheduled then 1 else 0 end),
            state = case
              when v.success then 'succeeded'
              when not v.scheduled then d.state
              when d.schedule_attempts + 1 > cardinality(${delays}::float8[]) then 'failed'
              else 'pending' end,
            next_attempt_at = case
              when not v.success and v.scheduled and d.schedule_attempts + 1 <= cardinality(${delays}::float8[])
              then now() + make_interval(secs => (${delays}::float8[])[d.schedule_attempts + 1])
              else d.next_attempt_at end,
            finished_at = case
              when v.success or (v.scheduled and d.schedule_attempts + 1 > cardinality(${delays}::float8[])) then now()
              else d.finished_at end,
            locked_until = null
          from (values ${values}) as v(id, success, scheduled)
          where d.id = v.id
          returning d.id, d.state, d.next_attempt_at, d.attempt_count as attempt, d.target, d.subject_id, d.mailbox_id`),
      );
      const byId = new Map(updated.map((u) => [u.id, u]));
      const kept = results.filter((r) => byId.has(r.deliveryId));
      if (kept.length > 0) {
        await tx.execute(sql`
          insert into webhook_attempts (id, delivery_id, endpoint_id, attempt, trigger, url, status_code, response_body, duration_ms, success, error, started_at, finished_at)
          values ${sql.join(
            kept.map(
              (r) =>
                sql`(${newId()}, ${r.deliveryId}, ${r.endpointId}, ${byId.get(r.deliveryId)!.attempt}, ${r.trigger}, ${r.url}, ${r.statusCode}, ${r.responseBody}, ${r.durationMs}, ${r.success}, ${r.error}, ${r.startedAt.toISOString()}::timestamptz, ${r.finishedAt.toISOString()}::timestamptz)`,
            ),
            sql`, `,
          )}`);
        const health = [...endpointHealth(kept)].map(([id, h]) => sql`(${id}::uuid, ${h.reset}::boolean, ${h.failures}::int)`);
        await settleOthers(tx, kept, byId);
        if (health.length > 0) await tx.execute(sql`
          update webhook_endpoints e set
            consecutive_failures = case when v.reset then v.failures else e.consecutive_failures + v.failures end,
            status = case
              when (case when v.reset then v.failures else e.consecutive_failures + v.failures end) >= ${DEGRADE_AFTER}::int then 'degraded'
              when v.reset then 'active'
              else e.status end
          from (values ${sql.join(health, sql`, `)}) as v(id, reset, failures)
          where e.id = v.id`);
      }
      return results.map((r) => {
        const u = byId.get(r.deliveryId);
        return u ? { state: u.state, nextAttemptAt: u.state === "pending" ? new Date(u.next_attempt_at) : null, attempt: u.attempt } : null;
      });
    });
  }
}

type Settled = { state: Recorded["state"]; attempt: number; target: string; subject_id: string | null; mailbox_id: string };

/**
 * What a callback's or runtime message's attempt means beyond the delivery: a protocol
 * response becomes `delivered` or `failed` once its delivery has succeeded or failed for good;
 * a runtime message's every attempt goes into the routing log.
 */
async function settleOthers(tx: Parameters<Parameters<Db["transaction"]>[0]>[0], results: AttemptResult[], byId: Map<string, Settled>): Promise<void> {
  const finished = results.filter((r) => byId.get(r.deliveryId)?.target === "callback" && byId.get(r.deliveryId)?.state !== "pending");
  if (finished.length > 0) {
    const values = sql.join(
      finished.map((r) => sql`(${byId.get(r.deliveryId)!.subject_id}::uuid, ${byId.get(r.deliveryId)!.state === "succeeded" ? "delivered" : "failed"})`),
      sql`, `,
    );
    await tx.execute(sql`
      update protocol_responses p set status = v.status, delivered_at = case when v.status = 'delivered' then now() else p.delivered_at end
      from (values ${values}) as v(id, status) where p.id = v.id and p.status <> 'delivered'`);
  }
  const runtime = results.filter((r) => byId.get(r.deliveryId)?.target === "runtime");
  if (runtime.length > 0) {
    const rows = runtime.map((r) => {
      const d = byId.get(r.deliveryId)!;
      const kind = r.success ? "delivered" : d.state === "failed" ? "failed" : "retrying";
      const detail = r.success ? `runtime answered ${r.statusCode}` : `${r.error ?? "failed"}${d.state === "pending" ? "; will retry" : d.state === "failed" ? "; no retries left" : ""}`;
      const data = JSON.stringify({ attempt: d.attempt, trigger: r.trigger, status_code: r.statusCode, duration_ms: r.durationMs });
      return sql`(${newId()}::uuid, ${d.mailbox_id}::uuid, ${d.subject_id}::uuid, ${kind}, ${detail.slice(0, 1000)}, ${data}::jsonb, ${r.deliveryId}::uuid)`;
    });
    await tx.execute(sql`insert into agent_runtime_events (id, mailbox_id, message_id, kind, detail, data, delivery_id) values ${sql.join(rows, sql`, `)}`);
  }
}

/** Per endpoint, in order: whether a success resets its failure count, and the failures after it. */
function endpointHealth(results: AttemptResult[]): Map<string, { reset: boolean; failures: number }> {
  const health = new Map<string, { reset: boolean; failures: number }>();
  for (const r of results) {
    if (r.endpointId === null) continue; // a callback or runtime message: no endpoint to keep healthy
    const h = health.get(r.endpointId) ?? { reset: false, failures: 0 };
    if (r.success) {
      h.reset = true;
      h.failures = 0;
    } else h.failures++;
    health.set(r.endpointId, h);
  }
  return health;
}
