import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import { isUuid } from "../domain/ids.ts";
import { attemptDelivery, type AttemptOptions, type AttemptResult } from "./attempt.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { AttemptRecorder, Recorded } from "./recorder.ts";

/** What became of a delivery handed to the executor. */
export type Outcome =
  | { kind: "done" } // succeeded or failed for good, or gone: nothing more to schedule
  | { kind: "retry"; at: Date } // pending: attempt again at `at`
  | { kind: "not-yet"; at: Date }; // not due (an early duplicate): look again at `at`

interface Loaded {
  id: string;
  endpoint_id: string | null;
  signature_header: string | null;
  event: string;
  body: string;
  state: string;
  next_attempt_at: string | Date;
  url: string;
  /** Sealed; null when nobody is left to sign for (the callback's sender mailbox is gone). */
  secret: string | null;
  enabled: boolean;
}

/**
 * Runs one attempt of a delivery, whichever transport handed it over: reads the delivery and
 * its endpoint (reads of the same turn share one query), makes the request and has the
 * result recorded. The database decides: a delivery that already succeeded or failed for
 * good is not sent again, whatever a transport redelivers.
 */
export class DeliveryExecutor {
  private pending = new Map<string, { resolve: (row: Loaded | undefined) => void; reject: (err: unknown) => void }[]>();
  private scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly recorder: AttemptRecorder,
    private readonly secrets: SecretBox,
    private readonly opts: AttemptOptions,
  ) {}

  async deliver(id: string, trigger: AttemptResult["trigger"] = "scheduled"): Promise<Outcome> {
    // Never a row; and in the batched read it would fail its neighbours' query too.
    if (!isUuid(id)) return { kind: "done" };
    const row = await this.load(id);
    if (!row) return { kind: "done" };
    if (trigger === "scheduled") {
      if (row.state !== "pending") return { kind: "done" };
      const due = new Date(row.next_attempt_at);
      if (due.getTime() > Date.now() + 50) return { kind: "not-yet", at: due };
      if (!row.enabled || row.secret === null) {
        await this.db.execute(sql`update webhook_deliveries set state = 'failed', finished_at = now(), locked_until = null where id = ${id} and state = 'pending'`);
        return { kind: "done" };
      }
    }
    const result = await attemptDelivery(this.attemptInput(row), trigger, this.opts);
    const recorded = await this.recorder.record(result);
    return outcomeOf(recorded);
  }

  /** A replay: one attempt now whatever the delivery's state; returns the recorded attempt. */
  async replay(id: string): Promise<{ result: AttemptResult; recorded: Recorded | null } | null> {
    const row = await this.load(id);
    if (!row || row.secret === null) return null;
    const result = await attemptDelivery(this.attemptInput(row), "replay", this.opts);
    return { result, recorded: await this.recorder.record(result) };
  }

  private load(id: string): Promise<Loaded | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.pending.get(id);
      if (waiters) waiters.push({ resolve, reject });
      else this.pending.set(id, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        // A macrotask, not a microtask: messages a transport hands over one by one within the
        // same turn of the event loop then share one query.
        setImmediate(() => void this.loadBatch());
      }
    });
  }

  private async loadBatch(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    const ids = [...batch.keys()];
    let rows: Loaded[] = [];
    try {
      rows = rowsOf<Loaded>(
        await this.db.execute(sql`
          select d.id, d.endpoint_id, d.signature_header, d.event, d.body, d.state, d.next_attempt_at,
            coalesce(e.url, d.url) as url,
            -- Read at attempt time, so a rotation signs retries too; never copied into deliveries.
            case d.target when 'webhook' then e.secret when 'runtime' then b.signing_secret else sender.callback_secret end as secret,
            -- An endpoint's switch, or for a runtime message whether the binding is still enabled.
            coalesce(e.enabled, case when d.target = 'runtime' then coalesce(b.enabled, false) else true end) as enabled
          from webhook_deliveries d
          left join webhook_endpoints e on e.id = d.endpoint_id
          left join agent_runtime_bindings b on d.target = 'runtime' and b.mailbox_id = d.mailbox_id
          left join protocol_responses r on d.target = 'callback' and r.id = d.subject_id
          left join protocol_messages pm on pm.message_id = r.protocol_message_id
          left join mailboxes sender on sender.id = pm.sender_mailbox_id
          where d.id = any(${`{${ids.join(",")}}`}::uuid[])`),
      );
    } catch (err) {
      // The transports treat a throwing deliver() as "not handled": offered again shortly.
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
      return;
    }
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [id, waiters] of batch) for (const w of waiters) w.resolve(byId.get(id));
  }

  private attemptInput(row: Loaded) {
    return {
      deliveryId: row.id,
      endpointId: row.endpoint_id,
      event: row.event,
      body: row.body,
      url: row.url,
      secret: this.secrets.open(row.secret!),
      signatureHeader: row.signature_header ?? undefined,
    };
  }
}

function outcomeOf(recorded: Recorded | null): Outcome {
  if (!recorded || recorded.state !== "pending" || !recorded.nextAttemptAt) return { kind: "done" };
  return { kind: "retry", at: recorded.nextAttemptAt };
}
