import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, fieldPaths, ISO, seedAccount, startTestService, UUID, type TestService } from "./harness.ts";
import { postInbound, rfc822, waitForMessage } from "./mail-support.ts";

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.stop());

type Seed = Awaited<ReturnType<typeof seedAccount>>;
const GHOST = "00000000-0000-4000-8000-000000000000";
const FIELDS = ["account_id", "address", "created_at", "disposition", "display_name", "first_seen_at", "id", "last_seen_at", "message_count", "notes", "updated_at"].sort();

let n = 0;
async function receive(s: Seed, from: string, subject: string, body = "Could you send me the report?"): Promise<any> {
  const raw = rfc822({ From: from, To: s.agent.email_address, Subject: subject, Date: new Date().toUTCString(), "Message-ID": `<sp${++n}.${crypto.randomUUID()}@example.com>`, "Content-Type": "text/plain; charset=utf-8" }, `${body}\r\n`);
  const res = await postInbound(t, raw, [s.agent.email_address]);
  if (res.status !== 202) throw new Error(`inbound failed: ${res.status} ${res.text}`);
  return waitForMessage(t, res.body.message_ids[0]);
}

const profiles = (s: Seed, query = "") => t.api("GET", `/v1/accounts/${s.account.id}/sender-profiles${query}`);
const create = (s: Seed, body: unknown) => t.api("POST", `/v1/accounts/${s.account.id}/sender-profiles`, { body });

describe("sender profile CRUD", () => {
  test("create, read, change, list with filters, delete", async () => {
    const s = await seedAccount(t);
    const made = await create(s, { address: "Jane.Doe@Example.COM", disposition: "trusted", notes: "our accountant" });
    expect(made.status).toBe(201);
    const p = made.body.sender_profile;
    expect(Object.keys(p).sort()).toEqual(FIELDS);
    expect(p).toMatchObject({ account_id: s.account.id, address: "jane.doe@example.com", disposition: "trusted", notes: "our accountant", message_count: 0, first_seen_at: null, display_name: null });
    expect(p.id).toMatch(UUID);
    expect(p.created_at).toMatch(ISO);

    // Creating it again sets the fields given on the existing profile.
    const again = await create(s, { address: "jane.doe@example.com", disposition: "blocked" });
    expect(again.status).toBe(200);
    expect(again.body.sender_profile).toMatchObject({ id: p.id, disposition: "blocked", notes: "our accountant" });

    expect((await t.api("GET", `/v1/sender-profiles/${p.id}`)).body.sender_profile.disposition).toBe("blocked");
    const put = await t.api("PUT", `/v1/sender-profiles/${p.id}`, { body: { notes: "changed", display_name: "Jane" } });
    expect(put.status).toBe(200);
    expect(put.body.sender_profile).toMatchObject({ disposition: "blocked", notes: "changed", display_name: "Jane" });
    const patch = await t.api("PATCH", `/v1/sender-profiles/${p.id}`, { body: { disposition: "neutral" } });
    expect(patch.body.sender_profile).toMatchObject({ disposition: "neutral", notes: "changed" });

    await create(s, { address: "bob@vendor.example", disposition: "blocked" });
    await create(s, { address: "carol@vendor.example" });
    const all = await profiles(s);
    expect(all.body).toMatchObject({ page: 1, limit: 50, total: 3, total_pages: 1 });
    expect((await profiles(s, "?address=VENDOR")).body.items.map((x: any) => x.address).sort()).toEqual(["bob@vendor.example", "carol@vendor.example"]);
    expect((await profiles(s, "?disposition=blocked")).body.items.map((x: any) => x.address)).toEqual(["bob@vendor.example"]);
    expect((await profiles(s, "?address=vendor&disposition=neutral")).body.items.map((x: any) => x.address)).toEqual(["carol@vendor.example"]);
    expect((await profiles(s, "?address=%25")).body.items).toEqual([]);
    expect((await profiles(s, "?limit=1&page=2")).body).toMatchObject({ total: 3, total_pages: 3, page: 2 });

    const del = await t.api("DELETE", `/v1/sender-profiles/${p.id}`);
    expect(del.body.sender_profile.id).toBe(p.id);
    expectError(await t.api("GET", `/v1/sender-profiles/${p.id}`), 404, "not_found");
  });

  test("bad input is a 400 naming the field; unknown ids are 404; mailbox keys are refused", async () => {
    const s = await seedAccount(t);
    const bad = await create(s, { address: "not an address" });
    expectError(bad, 400, "validation_error");
    expect(fieldPaths(bad)).toEqual(["body.address"]);
    expectError(await create(s, { address: "a@b.example", disposition: "friendly" }), 400, "validation_error");
    expectError(await create(s, { address: "a@b.example", extra: true }), 400, "validation_error");
    expectError(await create(s, {}), 400, "validation_error");
    expectError(await profiles(s, "?disposition=friendly"), 400, "validation_error");
    const made = (await create(s, { address: "a@b.example" })).body.sender_profile;
    expectError(await t.api("PUT", `/v1/sender-profiles/${made.id}`, { body: { disposition: "nope" } }), 400, "validation_error");
    expectError(await t.api("PUT", `/v1/sender-profiles/${made.id}`, { body: { notes: "x".repeat(4001) } }), 400, "validation_error");
    expectError(await t.api("GET", `/v1/sender-profiles/${GHOST}`), 404, "not_found");
    expectError(await t.api("PUT", `/v1/sender-profiles/${GHOST}`, { body: { notes: "" } }), 404, "not_found");
    expectError(await t.api("GET", `/v1/accounts/${GHOST}/sender-profiles`), 404, "not_found");
    expectError(await t.api("POST", `/v1/accounts/${GHOST}/sender-profiles`, { body: { address: "a@b.example" } }), 404, "not_found");
    expectError(await t.api("GET", `/v1/sender-profiles/${made.id}`, { token: s.agentKey.token }), 403, "forbidden");
    expectError(await t.api("GET", `/v1/accounts/${s.account.id}/sender-profiles`, { token: s.agentKey.token }), 403, "forbidden");
  });
});

describe("profiles kept current by inbound mail", () => {
  test("each inbound message counts into its sender's profile, made on first sight", async () => {
    const s = await seedAccount(t);
    const first = await receive(s, "Jane Roe <jane@roe.example>", "Hello");
    await receive(s, "Jane Roe <JANE@roe.example>", "Hello again");
    await receive(s, "other@else.example", "Unrelated");
    const list = (await profiles(s, "?address=roe")).body.items;
    expect(list.length).toBe(1);
    expect(list[0]).toMatchObject({ address: "jane@roe.example", display_name: "Jane Roe", message_count: 2, disposition: "neutral" });
    expect(list[0].first_seen_at).toBe(first.created_at);
    expect(Date.parse(list[0].last_seen_at)).toBeGreaterThanOrEqual(Date.parse(first.created_at));
    // Another account's mail from the same address is another profile.
    const other = await seedAccount(t);
    await receive(other, "jane@roe.example", "Hi");
    expect((await profiles(other, "?address=roe")).body.items[0].message_count).toBe(1);
    expect((await profiles(s, "?address=roe")).body.items[0].message_count).toBe(2);
  });

  test("a blocked sender's mail is triaged spam with sender_blocked; unblocking takes effect at once", async () => {
    const s = await seedAccount(t);
    const before = await receive(s, "pest@spam.example", "Question", "Are you around this afternoon?");
    expect(before.triage_label).toBe("reply_needed");
    const profile = (await create(s, { address: "pest@spam.example", disposition: "blocked" })).body.sender_profile;
    const blocked = await receive(s, "pest@spam.example", "Question again", "Are you around this afternoon?");
    expect(blocked.triage_label).toBe("spam");
    expect(blocked.suspicious_signals).toContain("sender_blocked");
    // Mail already stored keeps its assessment.
    expect((await t.api("GET", `/v1/messages/${before.id}`)).body.message.triage_label).toBe("reply_needed");
    await t.api("PATCH", `/v1/sender-profiles/${profile.id}`, { body: { disposition: "neutral" } });
    expect((await receive(s, "pest@spam.example", "Third", "Are you around this afternoon?")).triage_label).toBe("reply_needed");
  });

  test("a trusted sender: risk one level lower when authenticated (agent protocol), not when the From is unproven (email)", async () => {
    const s = await seedAccount(t);
    const risky = "Download the scan at http://198.51.100.23/docs/scan.pdf";
    // Email from a trusted address that nothing authenticates: the trust is not applied.
    await create(s, { address: "scanner@office.example", disposition: "trusted" });
    const mail = await receive(s, "scanner@office.example", "Scan", risky);
    expect(mail.risk_level).toBe("medium");
    expect(mail.suspicious_signals).toEqual(["ip_url", "sender_trusted_unverified"]);

    // A protocol message is authenticated by the sending mailbox's key.
    const send = () => t.api("POST", "/.agent/inbox", { token: s.primaryKey.token, body: { subject: "Scan", body: risky }, headers: { host: s.agent.protocol_host } });
    const neutral = await waitForMessage(t, (await send()).body.id);
    expect(neutral.risk_level).toBe("medium");
    await create(s, { address: s.primary.email_address, disposition: "trusted" });
    const trusted = await waitForMessage(t, (await send()).body.id);
    expect(trusted.risk_level).toBe("low");
    expect(trusted.suspicious_signals).toEqual(["ip_url", "sender_trusted"]);
    const profile = (await profiles(s, `?address=${encodeURIComponent(s.primary.email_address)}`)).body.items[0];
    expect(profile.message_count).toBe(2);
  });
});
