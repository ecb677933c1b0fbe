import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { sleep } from "../harness.ts";
import type { FuzzCase } from "./known.ts";
import { bytes, mail } from "./mime.ts";
import { SmtpSession } from "./smtp.ts";
import { describe as describeFindings, FUZZ_SEED, newTally, record, runCases, runsFor, startWorld, summary, type Tally, type World } from "./support.ts";
import { anyString } from "./values.ts";

/**
 * Generated mail through both doors, POST /v1/inbound/email and SMTP. Each door must answer
 * without a server fault; every message accepted must then be processed (it leaves `received`),
 * and reading it back (message, raw, thread, summary, extractions, search) must not fault either.
 */

let w: World;
const accepted: { id: string; c: FuzzCase }[] = [];
beforeAll(async () => {
  w = await startWorld();
}, 120_000);
afterAll(() => w.t.stop());

const to = () => w.seed.agent.email_address;

test("inbound HTTP: generated MIME is stored or refused in the envelope", async () => {
  const tally = newTally("mime-http");
  const samples = fc.sample(fc.tuple(mail(to()), fc.boolean()), { seed: FUZZ_SEED, numRuns: runsFor(20) });
  const cases = samples.map(([m, explicit]): FuzzCase => ({
    surface: "mime-http",
    route: "POST /v1/inbound/email",
    method: "POST",
    // Half the time the envelope recipient is given; otherwise the service reads To and Cc.
    target: explicit ? `/v1/inbound/email?to=${encodeURIComponent(to())}` : "/v1/inbound/email",
    headers: { authorization: `Bearer ${w.t.admin}`, "content-type": "message/rfc822" },
    body: bytes(m.raw),
  }));
  await runCases(w, tally, cases, (c, r) => {
    if (r.status !== 202 || accepted.length >= 60) return;
    for (const id of JSON.parse(r.text).message_ids ?? []) accepted.push({ id, c });
  });
  report(tally);
}, 600_000);

test("SMTP: generated sessions get a reply for every step, never a temporary server fault", async () => {
  const tally = newTally("smtp");
  const session = fc.record({
    helo: fc.oneof(fc.constant("client.example.org"), anyString(60).map((s) => s.replace(/[\r\n]/g, " ")), fc.constantFrom("", "[127.0.0.1]", "[IPv6:::1]", "x".repeat(600), "localhost")),
    from: fc.oneof(fc.constant("<sender@example.org>"), fc.constantFrom("<>", "sender@example.org", "<a@b@c>", "<" + "l".repeat(500) + "@example.org>", "<sender@example.org> SIZE=999999999999", "<sender@example.org> BODY=8BITMIME SMTPUTF8", "<üñí@example.org> SMTPUTF8", "<sender@example.org> FOO=BAR", "<\u0000@x>")),
    extra: fc.oneof({ weight: 4, arbitrary: fc.array(fc.constantFrom("nobody@mail.localhost", "x@elsewhere.example", "<>", "a+tag@mail.localhost", "reply+bogus@mail.localhost", "postmaster@mail.localhost", "bad address"), { maxLength: 3 }) }, { weight: 1, arbitrary: fc.integer({ min: 50, max: 150 }).map((n) => Array.from({ length: n }, (_, i) => `r${i}@elsewhere.example`)) }),
    message: mail(to()),
  });
  const samples = fc.sample(session, { seed: FUZZ_SEED + 1, numRuns: runsFor(6) });
  let sinceHealth = 0;
  for (const s of samples) {
    const c: FuzzCase = { surface: "smtp", route: "SMTP", method: "DATA", target: `HELO ${s.helo} / MAIL ${s.from} / ${s.extra.length} extra RCPT`, headers: {}, body: bytes(s.message.raw) };
    await smtpSession(w, tally, c, s);
    if (++sinceHealth >= 5) {
      sinceHealth = 0;
      await runCases(w, tally, []);
    }
  }
  await runCases(w, tally, []);
  report(tally);
}, 600_000);

async function smtpSession(w: World, tally: Tally, c: FuzzCase, s: { helo: string; from: string; extra: string[]; message: { raw: string } }) {
  const fault = (step: string, reply: string) => record(tally, { ...c, route: `SMTP ${step}` }, Number(reply.slice(0, 3)) || 0, `${step}: ${reply.split("\n")[0]}`, reply);
  tally.inputs++;
  const smtp = await SmtpSession.open(w.t.service.smtpPort);
  try {
    const greeting = await smtp.reply();
    if (!greeting.startsWith("220")) return fault("greeting", greeting);
    let r = await smtp.cmd(`EHLO ${s.helo}`);
    // 421 to a command line past the listener's limit ends the session, as it should.
    if (r.startsWith("421")) return;
    if (!r.startsWith("250")) r = await smtp.cmd("EHLO client.example.org");
    if (!r.startsWith("250")) return fault("EHLO", r);
    r = await smtp.cmd(`MAIL FROM:${s.from}`);
    if (r.startsWith("421")) return;
    if (!r.startsWith("250")) r = await smtp.cmd("MAIL FROM:<sender@example.org>");
    if (!r.startsWith("250")) return fault("MAIL", r);
    let rcpts = 0;
    for (const address of [to(), ...s.extra]) {
      r = await smtp.cmd(`RCPT TO:<${address}>`);
      tally.statuses.set(Number(r.slice(0, 3)), (tally.statuses.get(Number(r.slice(0, 3))) ?? 0) + 1);
      if (r.startsWith("250")) rcpts++;
      // 451 is the listener's "something broke on our side"; a closed or silent session is worse.
      else if (r.startsWith("451") || r.startsWith("<")) return fault("RCPT", r);
    }
    if (rcpts === 0) return;
    r = await smtp.cmd("DATA");
    if (!r.startsWith("354")) return fault("DATA", r);
    r = await smtp.data(s.message.raw);
    tally.statuses.set(Number(r.slice(0, 3)), (tally.statuses.get(Number(r.slice(0, 3))) ?? 0) + 1);
    if (r.startsWith("250")) {
      const ids = /queued as (.+)$/.exec(r)?.[1]?.split(" ") ?? [];
      for (const id of ids) if (accepted.length < 80) accepted.push({ id, c });
    } else if (!r.startsWith("5")) return fault("end of DATA", r);
    await smtp.cmd("QUIT");
  } finally {
    smtp.close();
  }
}

test("every accepted message is processed, and reading it back does not fault", async () => {
  const tally = newTally("mime-processed");
  const deadline = Date.now() + Number(process.env.FUZZ_PROCESS_WAIT_MS ?? 45_000);
  const pending = new Map(accepted.map((a) => [a.id, a]));
  const done: { id: string; threadId: string | null; c: FuzzCase }[] = [];
  while (pending.size > 0 && Date.now() < deadline) {
    for (const [id, a] of pending) {
      const m = (await w.t.api("GET", `/v1/messages/${id}`)).body?.message;
      if (m && m.status !== "received") {
        pending.delete(id);
        done.push({ id, threadId: m.thread_id, c: a.c });
      }
    }
    if (pending.size > 0) await sleep(250);
  }
  for (const [id, a] of pending) record(tally, a.c, 0, `message ${id} still received after the wait: never processed`, "");
  const reads = done.flatMap(({ id, threadId, c }): FuzzCase[] => {
    const base = { surface: "mime-processed", headers: { authorization: `Bearer ${w.t.admin}` } };
    const json = { ...base.headers, "content-type": "application/json" };
    return [
      { ...base, route: "GET /v1/messages/:messageId", method: "GET", target: `/v1/messages/${id}`, body: undefined, c },
      { ...base, route: "GET /v1/messages/:messageId/raw", method: "GET", target: `/v1/messages/${id}/raw` },
      { ...base, route: "GET /v1/messages/:messageId/summary", method: "GET", target: `/v1/messages/${id}/summary` },
      { ...base, route: "POST /v1/messages/:messageId/extractions", method: "POST", target: `/v1/messages/${id}/extractions`, headers: json, body: "{}" },
      ...(threadId
        ? [
            { ...base, route: "GET /v1/threads/:threadId", method: "GET", target: `/v1/threads/${threadId}` },
            { ...base, route: "GET /v1/threads/:threadId/digest", method: "GET", target: `/v1/threads/${threadId}/digest` },
          ]
        : []),
    ].map(({ c: _, ...r }: any) => r as FuzzCase);
  });
  reads.push({ surface: "mime-processed", route: "GET /v1/mailboxes/:mailboxId/messages", method: "GET", target: `/v1/mailboxes/${w.seed.agent.id}/messages?limit=100`, headers: { authorization: `Bearer ${w.t.admin}` } });
  reads.push({ surface: "mime-processed", route: "GET /v1/mailboxes/:mailboxId/threads", method: "GET", target: `/v1/mailboxes/${w.seed.agent.id}/threads?limit=100`, headers: { authorization: `Bearer ${w.t.admin}` } });
  await runCases(w, tally, reads);
  report(tally, accepted.length);
}, 600_000);

function report(tally: Tally, accepted?: number) {
  if (process.env.FUZZ_VERBOSE) console.log(summary(tally) + (accepted !== undefined ? ` (accepted messages checked: ${accepted})` : ""));
  expect(tally.inputs + tally.findings.length).toBeGreaterThan(0);
  if (tally.findings.length > 0) throw new Error(`${summary(tally)}\n${describeFindings(tally)}`);
}
