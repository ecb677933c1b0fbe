import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";
import { collect, Mailroom, MailroomError, unwrap, verifyWebhook, WebhookVerificationError, type MailboxEvent } from "../clients/typescript/src/index.ts";
import { renderSchema, SCHEMA_FILE } from "../clients/typescript/scripts/generate.ts";
import { seedAccount, startTestService, uniqueSlug, waitFor, type TestService } from "./harness.ts";
import { rfc822, waitForMessage } from "./mail-support.ts";
import { startReceiver } from "./webhook-support.ts";

/** The generated TypeScript client against the started service, one resource group at a time. */
let t: TestService;
let admin: Mailroom;
let s: Awaited<ReturnType<typeof seedAccount>>;
let agent: Mailroom;

beforeAll(async () => {
  t = await startTestService();
  admin = new Mailroom({ baseUrl: t.url, token: t.admin });
  s = await seedAccount(t);
  agent = new Mailroom({ baseUrl: t.url, token: s.agentKey.token });
}, 180_000);
afterAll(() => t.stop());

const code = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof MailroomError) return err.code;
    throw err;
  }
  throw new Error("expected a MailroomError");
};

async function inbound(to: string, subject: string, body = "Hello there.\r\n", from = "alice@example.com") {
  const raw = rfc822({ From: from, To: to, Subject: subject, "Message-ID": `<${crypto.randomUUID()}@example.com>` }, body);
  const r = await unwrap(admin.api.POST("/v1/inbound/email", { body: raw as never, bodySerializer: (b: unknown) => b, headers: { "content-type": "message/rfc822" } }));
  return r.message_ids[0]!;
}

describe("generated schema", () => {
  test("the committed clients/typescript/src/schema.d.ts is what the service's document generates", async () => {
    const document = await (await fetch(`${t.url}/openapi.json`)).json();
    const expected = await renderSchema(document);
    // On a difference: bun clients/typescript/scripts/generate.ts (or bun run client:generate), and commit.
    expect(readFileSync(SCHEMA_FILE, "utf8") === expected).toBe(true);
  });
});

describe("resource groups round-trip through the typed client", () => {
  test("accounts, mailboxes, keys and /v1/me", async () => {
    const slug = uniqueSlug("cl");
    const created = await unwrap(admin.api.POST("/v1/accounts", { body: { slug, displayName: "Client Test" } }));
    expect(created.account.slug).toBe(slug);
    expect((await unwrap(admin.api.GET("/v1/accounts/{accountId}", { params: { path: { accountId: created.account.id } } }))).account.display_name).toBe("Client Test");
    const mb = await unwrap(admin.api.POST("/v1/accounts/{accountId}/mailboxes", { params: { path: { accountId: created.account.id } }, body: { slug: "bot" } }));
    const listed = await unwrap(admin.api.GET("/v1/accounts/{accountId}/mailboxes", { params: { path: { accountId: created.account.id } } }));
    expect(listed.mailboxes.map((m) => m.id)).toContain(mb.mailbox.id);
    expect(await code(unwrap(admin.api.POST("/v1/accounts", { body: { slug, displayName: "again" } })))).toBe("slug_taken");

    const key = await unwrap(admin.api.POST("/v1/mailboxes/{mailboxId}/api-keys", { params: { path: { mailboxId: mb.mailbox.id } }, body: { name: "k", scope: "mailbox" } }));
    const bot = new Mailroom({ baseUrl: t.url, token: key.token });
    const me = await bot.me();
    expect(me).toMatchObject({ principal: "key", mailbox: { id: mb.mailbox.id }, key: { id: key.api_key.id, scope: "mailbox" }, binding: null });
    expect((await admin.me()).principal).toBe("admin");
    expect((await unwrap(bot.api.GET("/v1/mailboxes/{mailboxId}", { params: { path: { mailboxId: mb.mailbox.id } } }))).mailbox.id).toBe(mb.mailbox.id);
    expect((await unwrap(bot.api.POST("/v1/mailboxes/{mailboxId}/disable", { params: { path: { mailboxId: mb.mailbox.id } } }))).mailbox.status).toBe("disabled");
    expect((await unwrap(bot.api.POST("/v1/mailboxes/{mailboxId}/enable", { params: { path: { mailboxId: mb.mailbox.id } } }))).mailbox.status).toBe("active");
    expect((await unwrap(admin.api.GET("/v1/mailboxes/{mailboxId}/api-keys", { params: { path: { mailboxId: mb.mailbox.id } } }))).items.map((k) => k.id)).toContain(key.api_key.id);
    expect(await code(unwrap(bot.api.GET("/v1/accounts/{accountId}", { params: { path: { accountId: created.account.id } } })))).toBe("forbidden");
    await unwrap(admin.api.POST("/v1/mailboxes/{mailboxId}/api-keys/{keyId}/revoke", { params: { path: { mailboxId: mb.mailbox.id, keyId: key.api_key.id } } }));
    const refused = await bot.me().catch((e) => e);
    expect(refused).toBeInstanceOf(MailroomError);
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 401, code: "invalid_token" });
    expect(refused.requestId).toBeTruthy();
  });

  test("every mutating call carries its own Idempotency-Key, and a retry after a lost answer reuses it", async () => {
    const seen: string[] = [];
    let lose = true;
    const flaky = new Mailroom({
      baseUrl: t.url,
      token: t.admin,
      fetch: async (request) => {
        seen.push(request.headers.get("idempotency-key") ?? "");
        const response = await fetch(request);
        // The first answer is lost on the way back: the call is retried with the same key.
        if (lose) {
          lose = false;
          await response.body?.cancel();
          throw new TypeError("connection reset");
        }
        return response;
      },
    });
    const slug = uniqueSlug("idem");
    const r = await flaky.api.POST("/v1/accounts", { body: { slug, displayName: "Once" } });
    expect(r.response.status).toBe(201);
    expect(r.response.headers.get("x-idempotent-replay")).toBe("true");
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]).toBe(seen[0]!);
    // A second call is a new request with a new key.
    await unwrap(flaky.api.POST("/v1/accounts", { body: { slug: uniqueSlug("idem"), displayName: "Twice" } }));
    expect(seen[2]).not.toBe(seen[0]!);
    // GETs carry none.
    await flaky.me();
    expect(seen[3]).toBe("");
  });

  test("policy, suppressions, sending, messages, threads, labels, drafts, search, intelligence, stats", async () => {
    const mailboxId = s.agent.id;
    expect((await unwrap(agent.api.GET("/v1/mailboxes/{mailboxId}/policy", { params: { path: { mailboxId } } }))).policy.allow_outbound).toBe(true);
    await unwrap(agent.api.PUT("/v1/mailboxes/{mailboxId}/policy", { params: { path: { mailboxId } }, body: { max_outbound_per_day: 500 } }));

    const sup = await unwrap(admin.api.POST("/v1/accounts/{accountId}/suppressions", { params: { path: { accountId: s.account.id } }, body: { address: "nope@example.com" } }));
    expect((await unwrap(admin.api.GET("/v1/accounts/{accountId}/suppressions", { params: { path: { accountId: s.account.id } } }))).items.map((x) => x.id)).toContain(sup.suppression.id);
    const refused = await unwrap(agent.api.POST("/v1/mailboxes/{mailboxId}/send", { params: { path: { mailboxId } }, body: { to: ["nope@example.com"], subject: "x", textBody: "y" } })).catch((e) => e);
    expect(refused).toMatchObject({ status: 409, code: "address_suppressed", details: { address: "nope@example.com" } });
    await unwrap(admin.api.DELETE("/v1/accounts/{accountId}/suppressions", { params: { path: { accountId: s.account.id }, query: { address: "nope@example.com" } } }));

    const sent = await unwrap(agent.api.POST("/v1/mailboxes/{mailboxId}/send", { params: { path: { mailboxId } }, body: { to: ["bob@example.com"], subject: "Quarterly numbers", textBody: "Attached soon." } }));
    const sentMessage = (sent as { message: { id: string; status: string } }).message;
    expect(["sent", "queued"]).toContain(sentMessage.status);
    // The first attempt runs before the answer; under load it may finish just after.
    const delivery = await waitFor(async () => {
      const d = await unwrap(agent.api.GET("/v1/messages/{messageId}/delivery", { params: { path: { messageId: sentMessage.id } } }));
      return d.events.some((e) => e.status === "sent") ? d : undefined;
    }, "the sent delivery event", 30_000);
    expect(delivery.events.map((e) => e.status)).toContain("sent");
    const raw = await agent.api.GET("/v1/messages/{messageId}/raw", { params: { path: { messageId: sentMessage.id } }, parseAs: "text" });
    expect(raw.data).toContain("Subject: Quarterly numbers");

    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await inbound(s.agent.email_address, `Paged ${i} invoice`));
    await waitForMessage(t, ids[2]!, ["processed"], 30_000);
    // The iterator walks the pages (one item each) and stops at the last.
    const pages: number[] = [];
    const paged = await collect(
      (async function* () {
        for await (const m of agent.messages(mailboxId, { direction: "inbound", limit: 1 })) {
          pages.push(pages.length + 1);
          yield m;
        }
      })(),
    );
    expect(paged.map((m) => m.id).sort()).toEqual([...ids].sort());
    expect(await collect(agent.messages(mailboxId, { direction: "inbound", limit: 1 }), 2)).toHaveLength(2);

    const { message } = await unwrap(agent.api.GET("/v1/messages/{messageId}", { params: { path: { messageId: ids[0]! } } }));
    expect(message.subject).toBe("Paged 0 invoice");
    const reply = await unwrap(agent.api.POST("/v1/messages/{messageId}/reply", { params: { path: { messageId: ids[0]! } }, body: { textBody: "Thanks" } }));
    expect((reply as { message: { thread_id: string } }).message.thread_id).toBe(message.thread_id!);
    expect((await unwrap(agent.api.POST("/v1/messages/{messageId}/review", { params: { path: { messageId: ids[1]! } } }))).status).toBe("reviewed");
    expect((await unwrap(agent.api.POST("/v1/messages/{messageId}/archive", { params: { path: { messageId: ids[1]! } } }))).status).toBe("archived");

    const threads = await collect(agent.threads(mailboxId, { limit: 2 }));
    expect(threads.map((x) => x.id)).toContain(message.thread_id!);
    const threadId = message.thread_id!;
    expect((await unwrap(agent.api.GET("/v1/threads/{threadId}", { params: { path: { threadId } } }))).thread.id).toBe(threadId);
    expect((await collect(agent.threadMessages(threadId))).length).toBe(2);
    expect((await unwrap(agent.api.POST("/v1/threads/{threadId}/archive", { params: { path: { threadId } } }))).status).toBe("archived");
    expect((await unwrap(agent.api.POST("/v1/threads/{threadId}/reopen", { params: { path: { threadId } } }))).status).toBe("open");

    const { label } = await unwrap(agent.api.POST("/v1/mailboxes/{mailboxId}/labels", { params: { path: { mailboxId } }, body: { name: "Finance", color: "#0a0" } }));
    expect((await unwrap(agent.api.GET("/v1/mailboxes/{mailboxId}/labels", { params: { path: { mailboxId } } }))).items.map((l) => l.id)).toContain(label.id);
    expect((await unwrap(agent.api.POST("/v1/messages/{messageId}/labels/{labelId}", { params: { path: { messageId: ids[0]!, labelId: label.id } } }))).labels).toEqual([label.id]);
    expect((await unwrap(agent.api.POST("/v1/threads/{threadId}/labels/{labelId}", { params: { path: { threadId, labelId: label.id } } }))).labels).toEqual([label.id]);
    expect((await unwrap(agent.api.DELETE("/v1/threads/{threadId}/labels/{labelId}", { params: { path: { threadId, labelId: label.id } } }))).labels).toEqual([]);
    expect(await code(unwrap(agent.api.POST("/v1/mailboxes/{mailboxId}/labels", { params: { path: { mailboxId } }, body: { name: "finance" } })))).toBe("label_exists");
    await unwrap(agent.api.DELETE("/v1/labels/{labelId}", { params: { path: { labelId: label.id } } }));

    const { draft } = await unwrap(agent.api.POST("/v1/mailboxes/{mailboxId}/drafts", { params: { path: { mailboxId } }, body: { to: ["carol@example.com"], subject: "Draft" } }));
    expect((await unwrap(agent.api.PUT("/v1/drafts/{draftId}", { params: { path: { draftId: draft.id } }, body: { textBody: "Body" } }))).draft.text_body).toBe("Body");
    expect((await unwrap(agent.api.GET("/v1/drafts/{draftId}", { params: { path: { draftId: draft.id } } }))).draft.subject).toBe("Draft");
    expect((await collect(agent.drafts(mailboxId))).map((d) => d.id)).toContain(draft.id);
    expect(["sent", "queued"]).toContain(((await unwrap(agent.api.POST("/v1/drafts/{draftId}/send", { params: { path: { draftId: draft.id } } }))) as { message: { status: string } }).message.status);
    const second = await unwrap(agent.api.POST("/v1/mailboxes/{mailboxId}/drafts", { params: { path: { mailboxId } } }));
    expect((await unwrap(agent.api.DELETE("/v1/drafts/{draftId}", { params: { path: { draftId: second.draft.id } } }))).draft.id).toBe(second.draft.id);
    expect(await code(unwrap(agent.api.GET("/v1/drafts/{draftId}", { params: { path: { draftId: second.draft.id } } })))).toBe("not_found");

    const found = await unwrap(agent.api.POST("/v1/mailboxes/{mailboxId}/search", { params: { path: { mailboxId } }, body: { query: "invoice is:inbound", limit: 10 } }));
    expect(found.items.map((m) => m.id).sort()).toEqual([...ids].sort());
    expect(await code(unwrap(agent.api.POST("/v1/mailboxes/{mailboxId}/search", { params: { path: { mailboxId } }, body: { query: '"open' } })))).toBe("validation_error");

    expect((await unwrap(agent.api.POST("/v1/messages/{messageId}/summary", { params: { path: { messageId: ids[0]! } }, body: {} }))).summary).toBeString();
    expect((await unwrap(agent.api.GET("/v1/messages/{messageId}/summary", { params: { path: { messageId: ids[0]! } } }))).cached).toBe(true);
    expect((await unwrap(agent.api.POST("/v1/messages/{messageId}/extractions", { params: { path: { messageId: ids[0]! } }, body: {} }))).message_id).toBe(ids[0]!);
    expect((await unwrap(agent.api.POST("/v1/threads/{threadId}/digest", { params: { path: { threadId } }, body: {} }))).thread_id).toBe(threadId);

    const profiles = await unwrap(admin.api.GET("/v1/accounts/{accountId}/sender-profiles", { params: { path: { accountId: s.account.id }, query: { address: "alice" } } }));
    const profile = profiles.items[0]!;
    expect((await unwrap(admin.api.PATCH("/v1/sender-profiles/{profileId}", { params: { path: { profileId: profile.id } }, body: { disposition: "trusted" } }))).sender_profile.disposition).toBe("trusted");
    expect((await unwrap(admin.api.POST("/v1/sender-profiles/{profileId}/intelligence", { params: { path: { profileId: profile.id } }, body: {} }))).address).toBe("alice@example.com");
    const made = await unwrap(admin.api.POST("/v1/accounts/{accountId}/sender-profiles", { params: { path: { accountId: s.account.id } }, body: { address: "dave@example.com", disposition: "blocked" } }));
    expect((await unwrap(admin.api.DELETE("/v1/sender-profiles/{profileId}", { params: { path: { profileId: made.sender_profile.id } } }))).sender_profile.address).toBe("dave@example.com");

    const stats = await unwrap(agent.api.GET("/v1/mailboxes/{mailboxId}/stats", { params: { path: { mailboxId } } }));
    expect(Number(stats.messages.total)).toBeGreaterThanOrEqual(5);
    expect(Object.keys((await unwrap(agent.api.GET("/v1/mailboxes/{mailboxId}/metrics", { params: { path: { mailboxId } } }))).windows)).toEqual(["24h", "7d"]);
  });

  test("actions, autopilot, the agent protocol, callback secret and runtime binding", async () => {
    const mailboxId = s.agent.id;
    const { action } = await unwrap(agent.api.POST("/v1/mailboxes/{mailboxId}/actions", { params: { path: { mailboxId } }, body: { name: "quote", description: "a price", parameterSchema: { type: "object", properties: { units: { type: "integer" } }, required: ["units"] } } as never }));
    expect((await unwrap(agent.api.GET("/v1/mailboxes/{mailboxId}/actions", { params: { path: { mailboxId } } }))).items.map((a) => a.name)).toContain("quote");
    expect((await unwrap(agent.api.PUT("/v1/mailboxes/{mailboxId}/actions/{actionName}", { params: { path: { mailboxId, actionName: "quote" } }, body: { description: "a quote" } }))).action.description).toBe("a quote");
    expect((await unwrap(agent.api.GET("/v1/mailboxes/{mailboxId}/actions/{actionName}", { params: { path: { mailboxId, actionName: "quote" } } }))).action.id).toBe(action.id);

    expect((await unwrap(agent.api.PUT("/v1/mailboxes/{mailboxId}/autopilot", { params: { path: { mailboxId } }, body: { mode: "observe", rules: [] } }))).autopilot.mode).toBe("observe");
    expect((await unwrap(agent.api.GET("/v1/mailboxes/{mailboxId}/autopilot", { params: { path: { mailboxId } } }))).autopilot.mode).toBe("observe");
    expect(Array.isArray((await unwrap(agent.api.GET("/v1/mailboxes/{mailboxId}/autopilot/decisions", { params: { path: { mailboxId } } }))).items)).toBe(true);

    const host = { host: s.agent.protocol_host };
    const card = (await unwrap(agent.api.GET("/.well-known/agent.json", { headers: host }))) as { actions: { name: string }[] };
    expect(card.actions.map((a) => a.name)).toContain("quote");
    expect(((await unwrap(agent.api.GET("/.well-known/agent-card.json", { headers: host }))) as { name: string }).name).toBeString();
    const primary = new Mailroom({ baseUrl: t.url, token: s.primaryKey.token });
    expect(await code(unwrap(primary.api.POST("/.agent/inbox", { headers: host, body: { subject: "q", action: "quote", parameters: { units: "ten" } } })))).toBe("schema_validation_failed");
    const sent = await unwrap(primary.api.POST("/.agent/inbox", { headers: host, body: { subject: "Quote", action: "quote", parameters: { units: 10 } } }));
    const messageId = (sent as { id: string }).id;
    const answered = await unwrap(agent.api.POST("/.agent/inbox/{messageId}/respond", { params: { path: { messageId } }, headers: host, body: { body: "420" } }));
    expect((answered as { response: { status: string } }).response.status).toBe("delivered");
    expect((await unwrap(primary.api.GET("/.agent/inbox/{messageId}", { params: { path: { messageId } }, headers: host }))).status).toBe("responded");
    expect((await unwrap(primary.api.GET("/.agent/inbox/{messageId}/responses", { params: { path: { messageId } }, headers: host }))).items[0]!.body).toBe("420");
    await unwrap(agent.api.DELETE("/v1/mailboxes/{mailboxId}/actions/{actionName}", { params: { path: { mailboxId, actionName: "quote" } } }));

    expect((await unwrap(admin.api.POST("/v1/mailboxes/{mailboxId}/callback-secret", { params: { path: { mailboxId } }, body: {} }))).callback_secret).toMatch(/^[0-9a-f]{64}$/);

    const bound = await unwrap(admin.api.POST("/v1/mailboxes/{mailboxId}/agent-runtime-binding", { params: { path: { mailboxId } }, body: { agentId: "bot", runtimeBaseUrl: "http://127.0.0.1:9", permissionTier: "read-only" } }));
    const runtime = new Mailroom({ baseUrl: t.url, token: (bound as { runtime_token: string }).runtime_token });
    expect((await runtime.me()).binding).toMatchObject({ permission_tier: "read-only", agent_id: "bot", enabled: true });
    expect((await runtime.me()).key?.scope).toBe("runtime");
    const denied = await unwrap(runtime.api.POST("/v1/mailboxes/{mailboxId}/drafts", { params: { path: { mailboxId } } })).catch((e) => e);
    expect(denied).toMatchObject({ status: 403, code: "forbidden", details: { needs: "draft" } });
    expect((await unwrap(admin.api.GET("/v1/mailboxes/{mailboxId}/agent-runtime-binding", { params: { path: { mailboxId } } }))).binding.permissionTier).toBe("read-only");
    expect((await unwrap(admin.api.GET("/v1/admin/agent-runtime-bindings"))).items.map((b) => b.mailboxId)).toContain(mailboxId);
    expect(Array.isArray((await unwrap(admin.api.GET("/v1/admin/agent-runtime-events", { params: { query: { mailboxId, limit: 5 } } }))).items)).toBe(true);
    await unwrap(admin.api.DELETE("/v1/mailboxes/{mailboxId}/agent-runtime-binding", { params: { path: { mailboxId } } }));
    expect((await agent.me()).binding).toBeNull();
  });

  test("health and the document are public", async () => {
    const anon = new Mailroom({ baseUrl: t.url, token: "" });
    expect((await unwrap(anon.api.GET("/health"))).status).toBe("ok");
  });
});

describe("webhooks, verifyWebhook and the event stream", () => {
  test("a real delivery verifies under both schemes, matches the standardwebhooks library, and refuses tampering", async () => {
    const receiver = startReceiver();
    try {
      const seed = await seedAccount(t);
      const created = await unwrap(admin.api.POST("/v1/mailboxes/{mailboxId}/webhooks", { params: { path: { mailboxId: seed.agent.id } }, body: { url: receiver.url, events: ["message.received"] } }));
      const endpointId = created.webhook.id;
      expect((await unwrap(admin.api.GET("/v1/mailboxes/{mailboxId}/webhooks", { params: { path: { mailboxId: seed.agent.id } } }))).items.map((w) => w.id)).toContain(endpointId);
      expect((await unwrap(admin.api.GET("/v1/webhooks/{endpointId}", { params: { path: { endpointId } } }))).webhook.url).toBe(receiver.url);
      await inbound(seed.agent.email_address, "Hook me");
      const [req] = await receiver.waitFor((rs) => rs.length >= 1, 20_000);

      const viaService = verifyWebhook(req!.body, { ...req!.headers, "webhook-signature": undefined }, created.signing_secret);
      expect(viaService).toMatchObject({ scheme: "service", event: "message.received", payload: { subject: "Hook me" } });
      const viaStandard = verifyWebhook(req!.body, req!.headers, created.signing_secret);
      expect(viaStandard.scheme).toBe("standard");
      expect(viaStandard.deliveryId).toBe(req!.headers["webhook-id"]!);
      expect(verifyWebhook(req!.body, new Headers(req!.headers), created.standard_webhooks_secret).payload).toEqual(viaStandard.payload);
      // The reference implementation agrees.
      expect(new Webhook(created.standard_webhooks_secret).verify(req!.body, req!.headers)).toEqual(viaStandard.payload as object);

      expect(() => verifyWebhook(req!.body.replace("Hook me", "Hook you"), req!.headers, created.signing_secret)).toThrow(WebhookVerificationError);
      expect(() => verifyWebhook(req!.body, { ...req!.headers, "webhook-signature": undefined }, "0".repeat(64))).toThrow(WebhookVerificationError);
      expect(() => verifyWebhook(req!.body, req!.headers, created.signing_secret, { now: () => Date.now() + 10 * 60_000 })).toThrow(/tolerance/);

      // Attempts are recorded just after the receiver answers (group commit).
      const history = await waitFor(async () => {
        const h = await unwrap(admin.api.GET("/v1/webhooks/{endpointId}/deliveries", { params: { path: { endpointId }, query: { limit: 10 } } }));
        return h.items.length > 0 ? h : undefined;
      }, "the recorded attempt");
      expect(history.items[0]!.success).toBe(true);
      const deliveryId = history.items[0]!.delivery_id;
      const replayed = await unwrap(admin.api.POST("/v1/webhooks/{endpointId}/deliveries/{deliveryId}/replay", { params: { path: { endpointId, deliveryId } } }));
      expect(replayed.attempt.trigger).toBe("replay");
      await receiver.waitFor((rs) => rs.length >= 2);
      const rotated = await unwrap(admin.api.POST("/v1/webhooks/{endpointId}/rotate-secret", { params: { path: { endpointId } } }));
      expect(rotated.signing_secret).not.toBe(created.signing_secret);
      expect((await unwrap(admin.api.POST("/v1/webhooks/{endpointId}/replay-failed", { params: { path: { endpointId } }, body: {} }))).replayed).toBe(0);
      expect((await unwrap(admin.api.PATCH("/v1/webhooks/{endpointId}", { params: { path: { endpointId } }, body: { enabled: false } }))).webhook.enabled).toBe(false);
      expect(await code(unwrap(admin.api.POST("/v1/webhooks/{endpointId}/replay-failed", { params: { path: { endpointId } }, body: {} })))).toBe("validation_error");
      await unwrap(admin.api.DELETE("/v1/webhooks/{endpointId}", { params: { path: { endpointId } } }));
    } finally {
      receiver.stop();
    }
  });

  test("the event iterator follows live events and resumes after the last one it yielded", async () => {
    const seed = await seedAccount(t);
    const key = new Mailroom({ baseUrl: t.url, token: seed.agentKey.token });
    const start = Number((await key.me()).latest_event_id);
    const first = await inbound(seed.agent.email_address, "Stream one");
    const stop = new AbortController();
    const seen: MailboxEvent[] = [];
    for await (const e of key.events(seed.agent.id, { lastEventId: start, signal: stop.signal })) {
      seen.push(e as MailboxEvent);
      if ((e as MailboxEvent).event === "message.processed") break;
    }
    expect(seen.map((e) => e.event)).toEqual(["message.received", "message.processed"]);
    expect(seen[0]!.payload.id).toBe(first);
    // A second iterator resumes after what the first yielded: only the new mail's events.
    const second = await inbound(seed.agent.email_address, "Stream two");
    const resumed: MailboxEvent[] = [];
    for await (const e of key.events(seed.agent.id, { lastEventId: seen.at(-1)!.id })) {
      resumed.push(e as MailboxEvent);
      if (resumed.length === 2) break;
    }
    expect(resumed.map((e) => [e.event, e.payload.id])).toEqual([
      ["message.received", second],
      ["message.processed", second],
    ]);
    expect(resumed[0]!.id).toBe(seen.at(-1)!.id + 1);
    // An error ends it with the code.
    expect(await code(collect(key.events(s.agent.id, { reconnect: false }), 1))).toBe("forbidden");
  });
});

