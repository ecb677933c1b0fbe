import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError, ISO, seedAccount, sleep, startTestService, type TestService } from "./harness.ts";
import { postInbound, rfc822, waitForMessage } from "./mail-support.ts";

type Seed = Awaited<ReturnType<typeof seedAccount>>;
const GHOST = "00000000-0000-4000-8000-000000000000";

let n = 0;
async function receive(t: TestService, s: Seed, opts: { from?: string; subject: string; body: string; inReplyTo?: string; date?: string }): Promise<any> {
  const id = `<intel${++n}.${crypto.randomUUID()}@example.com>`;
  const headers: Record<string, string> = {
    From: opts.from ?? "Dana Client <dana@client.example>",
    To: s.agent.email_address,
    Subject: opts.subject,
    Date: opts.date ?? "Mon, 16 Nov 2026 09:00:00 +0000",
    "Message-ID": id,
    "Content-Type": "text/plain; charset=utf-8",
  };
  if (opts.inReplyTo) Object.assign(headers, { "In-Reply-To": opts.inReplyTo, References: opts.inReplyTo });
  const res = await postInbound(t, rfc822(headers, `${opts.body.replace(/\n/g, "\r\n")}\r\n`), [s.agent.email_address]);
  if (res.status !== 202) throw new Error(`inbound failed: ${res.status} ${res.text}`);
  const message = await waitForMessage(t, res.body.message_ids[0]);
  return { ...message, messageIdHeader: id };
}

const INVOICE = `Hi,

Please find invoice INV-2026-0042 for $1,250.00 attached. Payment is due by December 1, 2026.
You can pay online at https://billing.acme.example/pay?inv=42 or email billing@acme.example with questions.

Can you confirm the PO number?

Thanks,
Dana`;

describe("local engine", () => {
  let t: TestService;
  let s: Seed;
  beforeAll(async () => {
    t = await startTestService();
    s = await seedAccount(t);
  });
  afterAll(() => t.stop());

  test("summary: 404 before, POST makes and caches, GET reads the cache, force remakes", async () => {
    const m = await receive(t, s, { subject: "Invoice INV-2026-0042", body: INVOICE });
    const path = `/v1/messages/${m.id}/summary`;
    const before = await t.api("GET", path);
    expectError(before, 404, "not_found");
    expect(before.body.error.message).toContain("POST");

    const made = await t.api("POST", path);
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ message_id: m.id, cached: false, engine: { name: "local", model: null, fallback_reason: null } });
    expect(made.body.engine.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(made.body.summary.length).toBeGreaterThan(10);
    expect(made.body.summary.length).toBeLessThanOrEqual(600);
    expect(made.body.generated_at).toMatch(ISO);

    const read = await t.api("GET", path);
    expect(read.body).toEqual({ ...made.body, cached: true });
    expect((await t.api("POST", path)).body).toEqual({ ...made.body, cached: true });
    const forced = await t.api("POST", path, { body: { force: true } });
    expect(forced.body.cached).toBe(false);
    expect(forced.body.summary).toBe(made.body.summary); // deterministic
  });

  test("extractions: dates, amounts, URLs, emails, invoice numbers, questions", async () => {
    const m = await receive(t, s, { subject: "Invoice INV-2026-0042", body: INVOICE });
    const res = await t.api("POST", `/v1/messages/${m.id}/extractions`);
    expect(res.status).toBe(200);
    const x = res.body;
    expect(x.amounts).toEqual([expect.objectContaining({ value: 1250, currency: "USD" })]);
    expect(x.dates.map((d: any) => d.date)).toContain("2026-12-01");
    expect(x.dates.find((d: any) => d.date === "2026-12-01").kind).toBe("deadline");
    expect(x.urls.map((u: any) => u.url)).toEqual(["https://billing.acme.example/pay?inv=42"]);
    expect(x.urls[0].domain).toBe("billing.acme.example");
    expect(x.emails.map((e: any) => e.address)).toEqual(["billing@acme.example"]);
    expect(x.invoice_numbers.map((i: any) => i.value)).toContain("INV-2026-0042");
    expect(x.questions.map((q: any) => q.text).join(" ")).toContain("PO number");
    for (const key of ["people", "organizations", "addresses", "phones", "tracking_numbers", "action_items"]) expect(Array.isArray(x[key])).toBe(true);
  });

  test("digest: participants, timeline, open questions; remade when the thread grows", async () => {
    const first = await receive(t, s, { subject: "Kickoff plan", body: "Hi team,\n\nWe agreed to launch on March 3. Could you send the budget draft by Friday?\n\nDana" });
    const path = `/v1/threads/${first.thread_id}/digest`;
    expectError(await t.api("GET", path), 404, "not_found");
    const made = await t.api("POST", path);
    expect(made.status).toBe(200);
    expect(made.body.thread_id).toBe(first.thread_id);
    expect(made.body.timeline.map((e: any) => e.message_id)).toEqual([first.id]);
    expect(made.body.participants).toContainEqual(expect.objectContaining({ address: "dana@client.example", role: "external", messages: 1 }));
    expect(made.body.participants).toContainEqual(expect.objectContaining({ address: s.agent.email_address, role: "self" }));
    expect(made.body.latest_state).toMatchObject({ status: "open", awaiting: "us", last_from: "dana@client.example" });
    expect(made.body.open_questions.length).toBeGreaterThan(0);

    const second = await receive(t, s, { from: "Eli <eli@client.example>", subject: "Re: Kickoff plan", body: "Yes, budget draft coming Thursday.", inReplyTo: first.messageIdHeader, date: "Mon, 16 Nov 2026 10:00:00 +0000" });
    expect(second.thread_id).toBe(first.thread_id);
    const read = await t.api("GET", path);
    expect(read.body.cached).toBe(false);
    expect(read.body.timeline.map((e: any) => e.message_id)).toEqual([first.id, second.id]);
    // Dana's question was followed by someone else's message: no longer open.
    expect(read.body.open_questions).toEqual([]);
    expect((await t.api("GET", path)).body.cached).toBe(true);
  });

  test("sender intelligence: volume, triage and risk history, authentication, an assessment; remade on new mail", async () => {
    const other = await seedAccount(t);
    await receive(t, other, { from: "Vic Vendor <vic@vendor.example>", subject: "Price list", body: "Here is our price list." });
    await receive(t, other, { from: "Vic Vendor <vic@vendor.example>", subject: "Question", body: "Are you available to talk tomorrow?" });
    const profile = (await t.api("GET", `/v1/accounts/${other.account.id}/sender-profiles?address=vic@vendor.example`)).body.items[0];
    const path = `/v1/sender-profiles/${profile.id}/intelligence`;
    expectError(await t.api("GET", path), 404, "not_found");
    const made = await t.api("POST", path);
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({
      profile_id: profile.id,
      address: "vic@vendor.example",
      display_name: "Vic Vendor",
      disposition: "neutral",
      volume: { inbound: 2, outbound_to: 0 },
      threads: 2,
      replied_threads: 0,
      reply_rate: 0,
      standing: "occasional",
    });
    expect(made.body.triage).toMatchObject({ fyi: 1, reply_needed: 1 });
    expect(made.body.risk).toMatchObject({ low: 2 });
    expect(Object.keys(made.body.authentication).sort()).toEqual(["dkim", "dmarc", "spf"]);
    expect(made.body.assessment).toContain("vic@vendor.example");

    await receive(t, other, { from: "vic@vendor.example", subject: "Third", body: "One more." });
    const read = await t.api("GET", path);
    expect(read.body).toMatchObject({ cached: false, volume: { inbound: 3 } });

    await t.api("PATCH", `/v1/sender-profiles/${profile.id}`, { body: { disposition: "blocked" } });
    const blocked = await t.api("GET", path);
    expect(blocked.body).toMatchObject({ disposition: "blocked", standing: "unwanted", cached: false });
  });

  test("who may ask: the owning mailbox's key, the admin; others get 403; unknown ids 404", async () => {
    const m = await receive(t, s, { subject: "Hello", body: "Just saying hello." });
    expect((await t.api("POST", `/v1/messages/${m.id}/summary`, { token: s.agentKey.token })).status).toBe(200);
    expectError(await t.api("GET", `/v1/messages/${m.id}/summary`, { token: s.primaryKey.token }), 403, "forbidden");
    expectError(await t.api("POST", `/v1/messages/${GHOST}/extractions`), 404, "not_found");
    expectError(await t.api("POST", `/v1/threads/${GHOST}/digest`), 404, "not_found");
    expectError(await t.api("POST", `/v1/sender-profiles/${GHOST}/intelligence`), 404, "not_found");
    expectError(await t.api("POST", `/v1/messages/${m.id}/summary`, { body: { force: "yes" } }), 400, "validation_error");
    expectError(await t.api("POST", `/v1/messages/${m.id}/summary`, { body: { other: 1 } }), 400, "validation_error");
  });
});

/** An OpenAI-compatible chat-completions endpoint on 127.0.0.1 whose answers the test sets. */
function fakeModel() {
  const requests: { auth: string | null; body: any }[] = [];
  let answer: (body: any) => Response | Promise<Response> = () => new Response("{}", { status: 500 });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = await req.json();
      requests.push({ auth: req.headers.get("authorization"), body });
      return answer(body);
    },
  });
  const reply = (content: string) => Response.json({ id: "x", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    answer: (f: typeof answer) => (answer = f),
    reply,
    stop: () => server.stop(true),
  };
}

describe("OpenAI-compatible engine", () => {
  let t: TestService;
  let s: Seed;
  const model = fakeModel();
  beforeAll(async () => {
    t = await startTestService({ LLM_BASE_URL: model.url, LLM_API_KEY: "sk-test", LLM_MODEL: "test-model", LLM_TIMEOUT_MS: "500" });
    s = await seedAccount(t);
  });
  afterAll(async () => {
    await t.stop();
    model.stop();
  });

  test("a summary made by the model records the engine and model; the request carries key, model and the mail as data", async () => {
    model.answer(() => model.reply(JSON.stringify({ summary: "Dana sent invoice INV-2026-0042 for $1,250, due Dec 1.", key_points: ["Pay by Dec 1", 42] })));
    const m = await receive(t, s, { subject: "Invoice INV-2026-0042", body: INVOICE });
    const res = await t.api("POST", `/v1/messages/${m.id}/summary`);
    expect(res.body).toMatchObject({
      summary: "Dana sent invoice INV-2026-0042 for $1,250, due Dec 1.",
      key_points: ["Pay by Dec 1"],
      engine: { name: "openai-compatible", model: "test-model", fallback_reason: null },
      cached: false,
    });
    const sent = model.requests.at(-1)!;
    expect(sent.auth).toBe("Bearer sk-test");
    expect(sent.body).toMatchObject({ model: "test-model", temperature: 0, response_format: { type: "json_object" } });
    expect(sent.body.messages[0].content).toContain("untrusted");
    expect(sent.body.messages[1].content).toContain("INV-2026-0042");
  });

  test("extractions from the model are checked field by field", async () => {
    model.answer(() =>
      model.reply(
        "```json\n" +
          JSON.stringify({
            dates: [{ text: "December 1, 2026", date: "2026-12-01", kind: "deadline" }, { date: "not a date" }],
            amounts: [{ text: "$1,250.00", value: "1250", currency: "usd" }, { value: 3 }],
            urls: ["https://billing.acme.example/pay?inv=42"],
            emails: [{ address: "Billing@Acme.example" }, { address: "nope" }],
          }) +
          "\n```",
      ),
    );
    const m = await receive(t, s, { subject: "Invoice", body: INVOICE });
    const res = await t.api("POST", `/v1/messages/${m.id}/extractions`);
    expect(res.body.engine.name).toBe("openai-compatible");
    expect(res.body.dates).toEqual([{ text: "December 1, 2026", date: "2026-12-01", time: null, kind: "deadline" }]);
    expect(res.body.amounts).toEqual([{ text: "$1,250.00", value: 1250, currency: "USD" }]);
    expect(res.body.urls).toEqual([{ url: "https://billing.acme.example/pay?inv=42", domain: "billing.acme.example" }]);
    expect(res.body.emails).toEqual([{ address: "billing@acme.example" }]);
    expect(res.body.phones).toEqual([]);
  });

  test("a digest keeps counted facts local and takes the model's judgement", async () => {
    const first = await receive(t, s, { subject: "Plan", body: "Shall we ship on Friday?" });
    model.answer((body) => {
      const id = /message_id: ([0-9a-f-]{36})/.exec(body.messages[1].content)![1];
      return model.reply(JSON.stringify({ decisions: [{ text: "Ship Friday", message_id: id }, { text: "ghost", message_id: GHOST }], open_questions: [], next_steps: [], latest_summary: "Dana proposes Friday." }));
    });
    const res = await t.api("POST", `/v1/threads/${first.thread_id}/digest`);
    expect(res.body.engine.name).toBe("openai-compatible");
    expect(res.body.decisions).toEqual([{ text: "Ship Friday", message_id: first.id }]);
    expect(res.body.latest_state.summary).toBe("Dana proposes Friday.");
    expect(res.body.timeline.map((e: any) => e.message_id)).toEqual([first.id]);
  });

  test("falls back to the local engine on an error, a bad answer or a timeout, and says why", async () => {
    const m = await receive(t, s, { subject: "Invoice", body: INVOICE });
    const path = `/v1/messages/${m.id}/summary`;
    const cases: [() => Response | Promise<Response>, string][] = [
      [() => new Response("overloaded", { status: 503 }), "HTTP 503"],
      [() => model.reply("I think this email is about an invoice."), "not JSON"],
      [() => model.reply(JSON.stringify({ key_points: [] })), "no summary"],
      [async () => (await sleep(1500), model.reply("{}")), "LLM_TIMEOUT_MS"],
    ];
    for (const [answer, reason] of cases) {
      model.answer(answer);
      const res = await t.api("POST", path, { body: { force: true } });
      expect(res.status).toBe(200);
      expect(res.body.engine).toMatchObject({ name: "local", model: null });
      expect(res.body.engine.fallback_reason).toContain(reason);
      expect(res.body.summary.length).toBeGreaterThan(0);
    }
    // A fallback result is not final: the next POST asks the model again.
    model.answer(() => model.reply(JSON.stringify({ summary: "Back online." })));
    const again = await t.api("POST", path);
    expect(again.body).toMatchObject({ summary: "Back online.", engine: { name: "openai-compatible", fallback_reason: null }, cached: false });
    expect((await t.api("POST", path)).body.cached).toBe(true);
  });
});
