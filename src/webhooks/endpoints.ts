import { and, asc, count, eq, gte, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { mailboxes, webhookDeliveries, webhookEndpoints, type WebhookEndpointRow } from "../../db/schema/index.ts";
import { newId } from "../domain/ids.ts";
import { AppError, notFound, validationError } from "../errors.ts";
import { checkTargetUrl, type TargetPolicy } from "../net/target-check.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { newSigningSecret, WEBHOOK_EVENTS, type WebhookEvent } from "./signing.ts";

export interface EndpointChanges {
  url?: string;
  events?: string[];
  enabled?: boolean;
}

/** Webhook endpoints: registration (with the SSRF guard), changes, secret rotation. */
export class WebhookEndpoints {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
    private readonly targets: TargetPolicy,
    private readonly maxPerMailbox: number,
  ) {}

  /** The new endpoint; its `secret` is the plain secret, to show this once (the row holds it sealed). */
  async create(mailboxId: string, input: { url: string; events: string[] }): Promise<WebhookEndpointRow> {
    const [exists] = await this.db.select({ id: mailboxes.id }).from(mailboxes).where(eq(mailboxes.id, mailboxId)).limit(1);
    if (!exists) throw notFound("mailbox", mailboxId);
    const url = await this.checkedUrl(input.url, "body.url");
    const events = checkedEvents(input.events, "body.events");
    const secret = newSigningSecret();
    const row = await this.db.transaction(async (tx) => {
      // The mailbox row lock makes the count and the insert one step, so concurrent creates cannot pass the bound together.
      const [mailbox] = await tx.select({ accountId: mailboxes.accountId }).from(mailboxes).where(eq(mailboxes.id, mailboxId)).limit(1).for("update");
      if (!mailbox) throw notFound("mailbox", mailboxId);
      const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.mailboxId, mailboxId));
      if (n >= this.maxPerMailbox) {
        throw new AppError("webhook_endpoint_limit", `mailbox ${mailboxId} already has ${n} webhook endpoints (at most ${this.maxPerMailbox}); delete one first`, { limit: this.maxPerMailbox });
      }
      const [inserted] = await tx.insert(webhookEndpoints).values({ id: newId(), mailboxId, accountId: mailbox.accountId, url, events, secret: this.secrets.seal(secret) }).returning();
      return inserted!;
    });
    return { ...row, secret };
  }

  async list(mailboxId: string): Promise<WebhookEndpointRow[]> {
    const [mailbox] = await this.db.select({ id: mailboxes.id }).from(mailboxes).where(eq(mailboxes.id, mailboxId)).limit(1);
    if (!mailbox) throw notFound("mailbox", mailboxId);
    return this.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.mailboxId, mailboxId)).orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  }

  async get(id: string): Promise<WebhookEndpointRow> {
    const [row] = await this.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).limit(1);
    if (!row) throw notFound("webhook endpoint", id);
    return row;
  }

  async update(id: string, changes: EndpointChanges): Promise<WebhookEndpointRow> {
    await this.get(id);
    const set: Partial<typeof webhookEndpoints.$inferInsert> = { updatedAt: new Date() };
    if (changes.url !== undefined) set.url = await this.checkedUrl(changes.url, "body.url");
    if (changes.events !== undefined) set.events = checkedEvents(changes.events, "body.events");
    if (changes.enabled !== undefined) set.enabled = changes.enabled;
    const [row] = await this.db.update(webhookEndpoints).set(set).where(eq(webhookEndpoints.id, id)).returning();
    if (!row) throw notFound("webhook endpoint", id);
    return row;
  }

  /** Deletes the endpoint with its deliveries and their history; returns what it was. */
  async remove(id: string): Promise<WebhookEndpointRow> {
    const [deleted] = await this.db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)).returning();
    if (!deleted) throw notFound("webhook endpoint", id);
    return deleted;
  }

  /** A new secret signs every attempt from now on, retries of earlier deliveries included; returned plain, as by create(). */
  async rotateSecret(id: string): Promise<WebhookEndpointRow> {
    const secret = newSigningSecret();
    const [row] = await this.db.update(webhookEndpoints).set({ secret: this.secrets.seal(secret), updatedAt: new Date() }).where(eq(webhookEndpoints.id, id)).returning();
    if (!row) throw notFound("webhook endpoint", id);
    return { ...row, secret };
  }

  /**
   * Puts the endpoint's failed deliveries (created at or after `since`) back on a fresh
   * schedule; returns their ids so the caller can hand them to the transport.
   */
  async reopenFailed(id: string, since: Date | undefined): Promise<string[]> {
    const endpoint = await this.get(id);
    if (!endpoint.enabled) throw new AppError("validation_error", "the endpoint is disabled; enable it before replaying", { fields: [{ path: "endpointId", message: "endpoint is disabled" }] });
    const rows = await this.db
      .update(webhookDeliveries)
      .set({ state: "pending", scheduleAttempts: 0, nextAttemptAt: sql`now()`, publishedAt: null, lockedUntil: null, finishedAt: null })
      .where(and(eq(webhookDeliveries.endpointId, id), eq(webhookDeliveries.state, "failed"), since ? gte(webhookDeliveries.createdAt, since) : undefined))
      .returning({ id: webhookDeliveries.id });
    return rows.map((r) => r.id);
  }

  private checkedUrl(raw: string, path: string): Promise<string> {
    return checkTargetUrl(raw, path, this.targets);
  }
}

function checkedEvents(events: string[], path: string): WebhookEvent[] {
  const known = new Set<string>(WEBHOOK_EVENTS);
  const bad = events.filter((e) => !known.has(e));
  if (bad.length > 0) {
    throw validationError(`unknown event ${bad.map((e) => JSON.stringify(e)).join(", ")}; events are ${WEBHOOK_EVENTS.join(", ")}`, [{ path, message: `unknown event(s): ${bad.join(", ")}` }]);
  }
  if (events.length === 0) throw validationError("events must name at least one event", [{ path, message: "must not be empty" }]);
  return [...new Set(events)] as WebhookEvent[];
}
