import fc from "fast-check";
import { sleep } from "../harness.ts";
import type { FuzzCase } from "./known.ts";
import { bytes, mail } from "./mime.ts";
import { RawClient } from "../smtp-support.ts";
import { record, runCases, type Tally, type World } from "./support.ts";
import { anyString } from "./values.ts";

/** A reply later than this is reported as "<timeout>", a finding of its own. */
const REPLY_MS = 20_000;

/**
 * The mail surfaces: generated mail through both doors, POST /v1/inbound/email and SMTP, then
 * the check that every accepted message is processed and reads back without a fault.
 */

export interface Accepted {
  id: string;
  c: FuzzCase;
}

/** At most this many accepted messages are followed through processing. */
const FOLLOW = Number(process.env.FUZZ_FOLLOW ?? 80);

const to = (w: World) => w.seed.agent.email_address;

export async function fuzzInbound(w: World, tally: Tally, runs: number, seed: number, accepted: Accepted[]): Promise<void> {
  const samples = fc.sample(fc.tuple(mail(to(w)), fc.boolean()), { seed, numRuns: runs });
  const cases = samples.map(([m, explicit]): FuzzCase => ({
    surface: "mime-http",
    route: "POST /v1/inbound/email",
    method: "POST",
    // Half the time the envelope recipient is given; otherwise the service reads To and Cc.
    target: explicit ? `/v1/inbound/email?to=${encodeURIComponent(to(w))}` : "/v1/inbound/email",
    headers: { authorization: `Bearer ${w.t.admin}`, "content-type": "message/rfc822" },
    body: bytes(m.raw),
  }));
  await runCases(w, tally, cases, (c, r) => {
    if (r.status !== 202 || accepted.length >= FOLLOW) return;
    for (const id of JSON.parse(r.text).message_ids ?? []) accepted.push({ id, c });
  });
}

const smtpSessionArb = (w: World) =>
  fc.record({
    helo: fc.oneof(fc.constant("client.example.org"), anyString(60).map((s) => s.replace(/[\r\n]/g, " ")), fc.constantFrom("", "[127.0.0.1]", "[IPv6:::1]", "x".repeat(600), "localhost")),
    from: fc.oneof(fc.constant("<sender@example.org>"), fc.constantFrom("<>", "sender@example.org", "<a@b@c>", "<" + "l".repeat(500) + "@example.org>", "<sender@example.org> SIZE=999999999999", "<sender@example.org> BODY=8BITMIME SMTPUTF8", "<üñí@example.org> SMTPUTF8", "<sender@example.org> FOO=BAR", "<\u0000@x>")),
    extra: fc.oneof({ weight: 4, arbitrary: fc.array(fc.constantFrom("nobody@mail.localhost", "x@elsewhere.example", "<>", "a+tag@mail.localhost", "reply+bogus@mail.localhost", "postmaster@mail.localhost", "bad address"), { maxLength: 3 }) }, { weight: 1, arbitrary: fc.integer({ min: 50, max: 150 }).map((n) => Array.from({ length: n }, (_, i) => `r${i}@elsewhere.example`)) }),
    message: mail(to(w)),
  });

export async function fuzzSmtp(w: World, tally: Tally, runs: number, seed: number, accepted: Accepted[]): Promise<void> {
  const samples = fc.sample(smtpSessionArb(w), { seed, numRuns: runs });
  let sinceHealth = 0;
  for (const s of samples) {
    const c: FuzzCase = { surface: "smtp", route: "SMTP", method: "DATA", target: `HELO ${s.helo} / MAIL ${s.from} / ${s.extra.length} extra RCPT`, headers: {}, body: bytes(s.message.raw) };
    await smtpSession(w, tally, c, s, accepted);
    if (++sinceHealth >= 5) {
      sinceHealth = 0;
      await runCases(w, tally, []);
    }
  }
  await runCases(w, tally, []);
}

async function smtpSession(w: World, tally: Tally, c: FuzzCase, s: { helo: string; from: string; extra: string[]; message: { raw: string } }, accepted: Accepted[]) {
  const fault = (step: string, reply: string) => record(tally, { ...c, route: `SMTP ${step}` }, Number(reply.slice(0, 3)) || 0, `${step}: ${reply.split("\n")[0]}`, reply);
  tally.inputs++;
  const smtp = await RawClient.connect(w.t.service.smtpPort);
  try {
    const greeting = await smtp.reply(REPLY_MS);
    if (!greeting.startsWith("220")) return fault("greeting", greeting);
    let r = await smtp.cmd(`EHLO ${s.helo}`, REPLY_MS);
    // 421 to a command line past the listener's limit ends the session, as it should.
    if (r.startsWith("421")) return;
    if (!r.startsWith("250")) r = await smtp.cmd("EHLO client.example.org", REPLY_MS);
    if (!r.startsWith("250")) return fault("EHLO", r);
    r = await smtp.cmd(`MAIL FROM:${s.from}`, REPLY_MS);
    if (r.startsWith("421")) return;
    if (!r.startsWith("250")) r = await smtp.cmd("MAIL FROM:<sender@example.org>", REPLY_MS);
    if (!r.startsWith("250")) return fault("MAIL", r);
    let rcpts = 0;
    for (const address of [to(w), ...s.extra]) {
      r = await smtp.cmd(`RCPT TO:<${address}>`, REPLY_MS);
      tally.statuses.set(Number(r.slice(0, 3)), (tally.statuses.get(Number(r.slice(0, 3))) ?? 0) + 1);
      if (r.startsWith("250")) rcpts++;
      // Refusals count as junk commands: past SMTP_MAX_JUNK_COMMANDS the listener says 421 and closes, as it should.
      else if (r.startsWith("421")) return;
      // 451 is the listener's "something broke on our side"; a closed or silent session is worse.
      else if (r.startsWith("451") || r.startsWith("<")) return fault("RCPT", r);
    }
    if (rcpts === 0) return;
    r = await smtp.cmd("DATA", REPLY_MS);
    if (!r.startsWith("354")) return fault("DATA", r);
    r = await smtp.data(s.message.raw, REPLY_MS);
    tally.statuses.set(Number(r.slice(0, 3)), (tally.statuses.get(Number(r.slice(0, 3))) ?? 0) + 1);
    if (r.startsWith("250")) {
      const ids = /queued as (.+)$/.exec(r)?.[1]?.split(" ") ?? [];
      for (const id of ids) if (accepted.length < FOLLOW) accepted.push({ id, c });
    } else if (!r.startsWith("5")) return fault("end of DATA", r);
    await smtp.cmd("QUIT", REPLY_MS);
  } finally {
    smtp.socket.destroy();
  }
}


/** Every accepted message leaves `received` within `waitMs`; then its reads must not fault. */
export async function fuzzProcessed(w: World, tally: Tally, accepted: Accepted[], waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
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
  const reads = done.flatMap(({ id, threadId }): FuzzCase[] => {
    const base = { surface: "mime-processed", headers: { authorization: `Bearer ${w.t.admin}` } };
    const json = { ...base.headers, "content-type": "application/json" };
    return [
      { ...base, route: "GET /v1/messages/:messageId", method: "GET", target: `/v1/messages/${id}` },
      { ...base, route: "GET /v1/messages/:messageId/raw", method: "GET", target: `/v1/messages/${id}/raw` },
      { ...base, route: "POST /v1/messages/:messageId/summary", method: "POST", target: `/v1/messages/${id}/summary`, headers: json, body: "{}" },
      { ...base, route: "POST /v1/messages/:messageId/extractions", method: "POST", target: `/v1/messages/${id}/extractions`, headers: json, body: "{}" },
      ...(threadId
        ? [
            { ...base, route: "GET /v1/threads/:threadId", method: "GET", target: `/v1/threads/${threadId}` },
            { ...base, route: "POST /v1/threads/:threadId/digest", method: "POST", target: `/v1/threads/${threadId}/digest`, headers: json, body: "{}" },
          ]
        : []),
    ];
  });
  reads.push({ surface: "mime-processed", route: "GET /v1/mailboxes/:mailboxId/messages", method: "GET", target: `/v1/mailboxes/${w.seed.agent.id}/messages?limit=100`, headers: { authorization: `Bearer ${w.t.admin}` } });
  reads.push({ surface: "mime-processed", route: "GET /v1/mailboxes/:mailboxId/threads", method: "GET", target: `/v1/mailboxes/${w.seed.agent.id}/threads?limit=100`, headers: { authorization: `Bearer ${w.t.admin}` } });
  await runCases(w, tally, reads);
}
