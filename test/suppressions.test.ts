import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkAddress, normalizeAddress } from "../src/domain/email.ts";
import { expectError, seedAccount, startTestService, type TestService } from "./harness.ts";

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

describe("address check", () => {
  test.each(["a@example.com", "First.Last+tag@Sub.Example.CO", "o'brien@example.ie", "x@xn--bcher-kva.example", "a_b-c@ex-ample.org"])("%p is accepted", (a) => {
    expect(checkAddress(a).ok).toBe(true);
  });
  test.each([
    "plain",
    "@example.com",
    "a@",
    "a@localhost",
    "a@example.c0m",
    "a..b@example.com",
    ".a@example.com",
    "a.@example.com",
    "a b@example.com",
    '"quoted"@example.com',
    "a@exa_mple.com",
    "a@-example.com",
    "a@[127.0.0.1]",
    "Name <a@example.com>",
    "a@example.com\r\nBcc: victim@example.com",
    "a\u0000@example.com",
    `${"x".repeat(65)}@example.com`,
    `a@${"x".repeat(250)}.com`,
  ])("%p is refused", (a) => {
    expect(checkAddress(a).ok).toBe(false);
  });
  test("normalising lowercases the whole address and trims it", () => {
    expect(normalizeAddress("  Bob@Example.COM ")).toEqual({ ok: true, address: "bob@example.com" });
  });
});

describe("suppressions", () => {
  test("add (201, lowercased), add again (200, same entry), list, remove", async () => {
    const { account } = await seedAccount(t);
    const base = `/v1/accounts/${account.id}/suppressions`;
    const added = await t.api("POST", base, { body: { address: "Bounce@Example.com", reason: "hard bounce" } });
    expect(added.status).toBe(201);
    expect(Object.keys(added.body.suppression).sort()).toEqual(["address", "created_at", "id", "reason"]);
    expect(added.body.suppression).toMatchObject({ address: "bounce@example.com", reason: "hard bounce" });

    const again = await t.api("POST", base, { body: { address: "BOUNCE@example.COM" } });
    expect(again.status).toBe(200);
    expect(again.body.suppression).toEqual(added.body.suppression);

    await t.api("POST", base, { body: { address: "second@example.com" } });
    const listed = await t.api("GET", base);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ page: 1, limit: 50, total: 2, total_pages: 1 });
    expect(listed.body.items.map((s: { address: string }) => s.address)).toEqual(["second@example.com", "bounce@example.com"]);

    const removed = await t.api("DELETE", `${base}?address=${encodeURIComponent("BOUNCE@EXAMPLE.COM")}`);
    expect(removed.status).toBe(200);
    expect(removed.body.suppression.address).toBe("bounce@example.com");
    expect((await t.api("GET", base)).body.total).toBe(1);
    expectError(await t.api("DELETE", `${base}?address=bounce@example.com`), 404, "not_found");
  });

  test("pagination is type- and range-checked", async () => {
    const { account } = await seedAccount(t);
    const base = `/v1/accounts/${account.id}/suppressions`;
    for (let i = 0; i < 3; i++) await t.api("POST", base, { body: { address: `p${i}@example.com` } });
    const page2 = await t.api("GET", `${base}?page=2&limit=2`);
    expect(page2.body).toMatchObject({ page: 2, limit: 2, total: 3, total_pages: 2 });
    expect(page2.body.items).toHaveLength(1);
    for (const q of ["page=0", "limit=0", "limit=101", "page=abc", "limit=1.5"]) {
      expectError(await t.api("GET", `${base}?${q}`), 400, "validation_error");
    }
  });

  test("bad addresses, a missing address and unknown accounts are refused clearly", async () => {
    const { account } = await seedAccount(t);
    const base = `/v1/accounts/${account.id}/suppressions`;
    const bad = await t.api("POST", base, { body: { address: "not an address" } });
    expectError(bad, 400, "validation_error");
    expect(bad.body.error.details.fields[0].path).toBe("body.address");
    expectError(await t.api("POST", base, { body: {} }), 400, "validation_error");
    expectError(await t.api("DELETE", base), 400, "validation_error");
    expectError(await t.api("DELETE", `${base}?address=nope`), 400, "validation_error");
    const ghost = "/v1/accounts/00000000-0000-4000-8000-000000000000/suppressions";
    expectError(await t.api("GET", ghost), 404, "not_found");
    expectError(await t.api("POST", ghost, { body: { address: "a@example.com" } }), 404, "not_found");
  });

  test("lists are per account, and mailbox keys are refused", async () => {
    const one = await seedAccount(t);
    const two = await seedAccount(t);
    await t.api("POST", `/v1/accounts/${one.account.id}/suppressions`, { body: { address: "only-one@example.com" } });
    expect((await t.api("GET", `/v1/accounts/${two.account.id}/suppressions`)).body.total).toBe(0);
    expectError(await t.api("GET", `/v1/accounts/${one.account.id}/suppressions`, { token: one.agentKey.token }), 403, "forbidden");
  });
});
