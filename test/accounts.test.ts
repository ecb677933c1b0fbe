import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { actions } from "../db/schema/index.ts";
import { UUID, ISO, startTestService, uniqueSlug, type TestService } from "./harness.ts";

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ MAIL_DOMAIN: "mail.example.test", AGENT_DOMAIN: "agents.example.test" });
});
afterAll(() => t.stop());


describe("POST /v1/accounts", () => {
  test("ignores fields it does not know (the create bodies are open, README \"Bounds in every schema\")", async () => {
    const slug = uniqueSlug("open");
    const res = await t.api("POST", "/v1/accounts", { body: { slug, displayName: "Open Ltd", display_name: "other", plan: { tier: "pro" } } });
    expect(res.status).toBe(201);
    expect(res.body.account).toMatchObject({ slug, display_name: "Open Ltd" });
    const mailbox = await t.api("POST", `/v1/accounts/${res.body.account.id}/mailboxes`, { body: { slug: "helper", note: "x" } });
    expect(mailbox.status).toBe(201);
    const key = await t.api("POST", `/v1/mailboxes/${mailbox.body.mailbox.id}/api-keys`, { body: { name: "k", scope: "mailbox", expires: "never" } });
    expect(key.status).toBe(201);
  });

  test("takes at most 32 fields", async () => {
    const body: Record<string, unknown> = { slug: uniqueSlug("many"), displayName: "Many" };
    for (let i = 0; i < 31; i++) body[`extra${i}`] = i;
    expect((await t.api("POST", "/v1/accounts", { body })).status).toBe(400);
  });

  test("creates the account and its primary mailbox with exactly the spec's fields", async () => {
    const slug = uniqueSlug("acme");
    const res = await t.api("POST", "/v1/accounts", { body: { slug, displayName: "Acme Inc" } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["account", "primary_mailbox"]);
    const { account, primary_mailbox: mb } = res.body;
    expect(Object.keys(account).sort()).toEqual(["created_at", "display_name", "id", "slug", "status"]);
    expect(account).toMatchObject({ slug, display_name: "Acme Inc", status: "active" });
    expect(account.id).toMatch(UUID);
    expect(account.created_at).toMatch(ISO);
    expect(Object.keys(mb).sort()).toEqual(["created_at", "email_address", "id", "kind", "protocol_host", "slug", "status"]);
    expect(mb).toMatchObject({
      slug: "main",
      kind: "primary",
      status: "active",
      email_address: `${slug}@mail.example.test`,
      protocol_host: `${slug}.agents.example.test`,
    });
  });

  test("a duplicate slug is 409 slug_taken", async () => {
    const slug = uniqueSlug();
    expect((await t.api("POST", "/v1/accounts", { body: { slug, displayName: "A" } })).status).toBe(201);
    const dup = await t.api("POST", "/v1/accounts", { body: { slug, displayName: "B" } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("slug_taken");
    expect(dup.body.error.details.slug).toBe(slug);
  });

  test.each([
    ["Upper", "uppercase"],
    ["a", "too short"],
    ["x".repeat(31), "too long"],
    ["-lead", "leading hyphen"],
    ["trail-", "trailing hyphen"],
    ["dou--ble", "double hyphen"],
    ["has_underscore", "underscore"],
    ["has.dot", "dot"],
    ["postmaster", "reserved"],
  ])("slug %p is refused (%s)", async (slug) => {
    const res = await t.api("POST", "/v1/accounts", { body: { slug, displayName: "X" } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
    expect(res.body.error.details.fields[0].path).toContain("slug");
  });

  test("missing and blank fields are validation errors naming the field", async () => {
    const missing = await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug() } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("validation_error");
    expect(JSON.stringify(missing.body.error.details.fields)).toContain("displayName");
    const blank = await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug(), displayName: "   " } });
    expect(blank.status).toBe(400);
    expect(blank.body.error.details.fields[0].path).toBe("body.displayName");
    const noBody = await t.api("POST", "/v1/accounts");
    expect(noBody.status).toBe(400);
    expect(noBody.body.error.code).toBe("validation_error");
  });
});

describe("GET /v1/accounts/:id and its mailboxes", () => {
  test("returns the account; 404 for an unknown one; 400 for a malformed id", async () => {
    const created = (await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug(), displayName: "Get Me" } })).body;
    const res = await t.api("GET", `/v1/accounts/${created.account.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ account: created.account });

    const missing = await t.api("GET", "/v1/accounts/00000000-0000-4000-8000-000000000000");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");

    const bad = await t.api("GET", "/v1/accounts/not-a-uuid");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("validation_error");
  });

  test("lists mailboxes, primary first, with the brief account", async () => {
    const created = (await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug(), displayName: "Lister" } })).body;
    const id = created.account.id;
    const agent = (await t.api("POST", `/v1/accounts/${id}/mailboxes`, { body: { slug: "support" } })).body.mailbox;
    const res = await t.api("GET", `/v1/accounts/${id}/mailboxes`);
    expect(res.status).toBe(200);
    expect(res.body.account).toEqual({ id, slug: created.account.slug, display_name: "Lister", status: "active" });
    expect(res.body.mailboxes).toEqual([created.primary_mailbox, agent]);
    expect((await t.api("GET", "/v1/accounts/00000000-0000-4000-8000-000000000000/mailboxes")).status).toBe(404);
  });
});

describe("POST /v1/accounts/:id/mailboxes", () => {
  test("creates an agent mailbox with the address scheme and the default send_message action", async () => {
    const created = (await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug("co"), displayName: "Co" } })).body;
    const res = await t.api("POST", `/v1/accounts/${created.account.id}/mailboxes`, { body: { slug: "sales-bot" } });
    expect(res.status).toBe(201);
    const mb = res.body.mailbox;
    expect(Object.keys(mb).sort()).toEqual(["created_at", "email_address", "id", "kind", "protocol_host", "slug", "status"]);
    expect(mb).toMatchObject({
      slug: "sales-bot",
      kind: "agent",
      status: "active",
      email_address: `sales-bot.${created.account.slug}@mail.example.test`,
      protocol_host: `sales-bot.${created.account.slug}.agents.example.test`,
    });
    const rows = await t.service.internals.database.db.select().from(actions).where(eq(actions.mailboxId, mb.id));
    expect(rows.map((r) => r.name)).toEqual(["send_message"]);
    const schema = rows[0]!.parameterSchema as { required: string[]; properties: Record<string, unknown> };
    expect(schema.required.sort()).toEqual(["subject", "text", "to"]);
    expect(rows[0]!.enabled).toBe(true);
  });

  test("main and primary are refused; duplicates are 409 within an account but fine across accounts", async () => {
    const a = (await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug(), displayName: "A" } })).body.account;
    const b = (await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug(), displayName: "B" } })).body.account;
    for (const slug of ["main", "primary"]) {
      const res = await t.api("POST", `/v1/accounts/${a.id}/mailboxes`, { body: { slug } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
      expect(res.body.error.message).toContain("reserved");
    }
    expect((await t.api("POST", `/v1/accounts/${a.id}/mailboxes`, { body: { slug: "ops" } })).status).toBe(201);
    const dup = await t.api("POST", `/v1/accounts/${a.id}/mailboxes`, { body: { slug: "ops" } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("slug_taken");
    expect((await t.api("POST", `/v1/accounts/${b.id}/mailboxes`, { body: { slug: "ops" } })).status).toBe(201);
  });

  test("404 for an unknown account", async () => {
    const res = await t.api("POST", "/v1/accounts/00000000-0000-4000-8000-000000000000/mailboxes", { body: { slug: "x" } });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
  });
});
