/**
 * Event-loop stalls under hostile input (issue 13's rule: no request, mail or protocol
 * message may hold the event loop for more than 50 ms).
 *
 *   bun bench/stall.ts [--only <substring>[,<substring>…]] [--settle 1000] [--limit 30000] [--pglite]
 *
 * Starts the service on a fresh PostgreSQL database (DATABASE_URL's server, default the
 * local one; NATS when NATS_URL is set; with --pglite the embedded defaults), pings GET /health every 20 ms from a separate
 * process (stall-pinger.ts), and sends each hostile input in turn: HTTP bodies, action
 * schemas and protocol parameters, intelligence over a hostile message, and mail over SMTP.
 * After each input it keeps pinging for `--settle` ms (three times that for mail, which is
 * processed in the background). Prints, per input, the worst wait for a /health answer and
 * the status the input got (HTTP status and error code, or the SMTP reply). A healthy node
 * shows gaps near the 20 ms cadence. Every request gives up after `--limit` ms, so a run of
 * the 20 inputs is bounded (about 20 × (limit + settle) at worst).
 */
import { parseArgs } from "node:util";
import nodemailer from "nodemailer";
import { freePort, startEmbedded, startOnFreshDatabase, stop } from "./lib.ts";

const { values } = parseArgs({ options: { only: { type: "string" }, settle: { type: "string", default: "1000" }, limit: { type: "string", default: "30000" }, pglite: { type: "boolean", default: false } } });
const SETTLE = Number(values.settle);
const REQUEST_LIMIT_MS = Number(values.limit);
const ONLY = values.only?.split(",").map((s) => s.trim().toLowerCase());

const smtpPort = await freePort();
// --pglite: the embedded defaults (PGlite in a temporary data directory, jobs in process).
const { db, admin, svc, base } = values.pglite ? await startEmbedded({ SMTP_PORT: String(smtpPort) }) : await startOnFreshDatabase({ SMTP_PORT: String(smtpPort) });

// The pinger is a process of its own: Bun's fetch runs every request of a process, workers
// included, on one HTTP client thread, so a ping from a worker here queued behind this
// process's own 8 MiB uploads and downloads, and the bench measured itself.
const waiting = new Map<number, (worst: number) => void>();
const pinger = Bun.spawn([process.execPath, new URL("./stall-pinger.ts", import.meta.url).pathname, `${base}/health`], {
  stdio: ["ignore", "inherit", "inherit"],
  ipc(message: { id: number; worst: number }) {
    waiting.get(message.id)?.(message.worst);
    waiting.delete(message.id);
  },
});
let asks = 0;
const worstGap = (from: number, to: number) =>
  new Promise<number>((resolve) => {
    const id = ++asks;
    waiting.set(id, resolve);
    pinger.send({ id, from, to });
  });

async function api(method: string, path: string, opts: { token?: string; body?: string | object; type?: string; host?: string; idempotencyKey?: string } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${opts.token ?? admin}` };
  if (opts.idempotencyKey) headers["idempotency-key"] = opts.idempotencyKey;
  if (opts.body !== undefined) headers["content-type"] = opts.type ?? "application/json";
  if (opts.host) headers.host = opts.host;
  const body = opts.body === undefined ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
  const res = await fetch(`${base}${path}`, { method, headers, body, signal: AbortSignal.timeout(REQUEST_LIMIT_MS) });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json, label: `${res.status}${json?.error ? ` ${json.error.code}${json.error.details?.reason ? ` (${json.error.details.reason})` : ""}` : ""}` };
}

// An account, its agent mailbox (the recipient) and a key of the primary mailbox (the sender).
const slug = `stall-${crypto.randomUUID().slice(0, 8)}`;
const account = await api("POST", "/v1/accounts", { body: { slug, displayName: "Stall bench" } });
const accountId = account.json.account.id;
const agent = (await api("POST", `/v1/accounts/${accountId}/mailboxes`, { body: { slug: "agent" } })).json.mailbox;
const primary = account.json.primary_mailbox;
const key = (await api("POST", `/v1/mailboxes/${primary.id}/api-keys`, { body: { name: "bench", scope: "mailbox" } })).json.token;
const agentKey = (await api("POST", `/v1/mailboxes/${agent.id}/api-keys`, { body: { name: "bench", scope: "mailbox" } })).json.token;
await api("POST", `/v1/mailboxes/${agent.id}/actions`, { body: { name: "uniq", parameterSchema: { type: "object", properties: { ids: { type: "array", uniqueItems: true } } } } });
await api("POST", `/v1/mailboxes/${agent.id}/actions`, { body: { name: "mail_like", parameterSchema: { type: "object", properties: { to: { type: "string", pattern: "^\\S+@\\S+\\.\\S+$" } } } } });
const bigSend = { to: ["nobody@example.com"], subject: "big, once", textBody: "u".repeat(4 << 20), htmlBody: `<p>${"i".repeat(4 << 20)}</p>` };
const bigSendKey = `stall-${crypto.randomUUID()}`;
const protocol = (body: object) => api("POST", "/.agent/inbox", { token: key, host: agent.protocol_host, body });

const smtp = nodemailer.createTransport({ host: "127.0.0.1", port: smtpPort, secure: false, ignoreTLS: true, socketTimeout: REQUEST_LIMIT_MS });
async function mail(raw: string): Promise<string> {
  try {
    const info = await smtp.sendMail({ envelope: { from: "bench@example.com", to: [agent.email_address] }, raw });
    return `SMTP ${info.response.slice(0, 3)}`;
  } catch (err) {
    return `SMTP ${String((err as { responseCode?: number }).responseCode ?? (err as Error).message).slice(0, 40)}`;
  }
}
const head = (extra = "") => `From: Hostile <h@example.com>\r\nTo: ${agent.email_address}\r\nSubject: hostile\r\nMessage-ID: <${crypto.randomUUID()}@example.com>\r\n${extra}MIME-Version: 1.0\r\n`;

/** Hostile text for the local engine: dense dates, amounts, phones, references and links. */
const HOSTILE_TEXT = "On 3/4 call +44 20 7946 0958 re INV-2231 $400 by Friday 5pm, 12 Baker Street, London https://x.y/z ann@x.io.\n".repeat(1900);
let hostileMessageId: string | null = null;
let hostileThreadId: string | null = null;
const fill = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
function nestedMime(depth: number): string {
  let body = "Content-Type: text/plain\r\n\r\ninnermost\r\n";
  for (let i = depth; i > 0; i--) body = `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n${body}--b${i}--\r\n`;
  return body;
}
function manyParts(n: number): string {
  const parts = Array.from({ length: n }, (_, i) => `--p\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`).join("");
  return `Content-Type: multipart/mixed; boundary="p"\r\n\r\n${parts}--p--\r\n`;
}

type Input = { name: string; mail?: boolean; run: () => Promise<string> };
const inputs: Input[] = [
  { name: "JSON object 20,000 deep (PUT policy)", run: async () => (await api("PUT", `/v1/mailboxes/${agent.id}/policy`, { body: '{"a":'.repeat(20_000) + "1" + "}".repeat(20_000) })).label },
  { name: "array 100,000 deep in a field (PUT policy)", run: async () => (await api("PUT", `/v1/mailboxes/${agent.id}/policy`, { body: `{"allow_outbound":${"[".repeat(100_000)}${"]".repeat(100_000)}}` })).label },
  { name: "1 MB text/plain (PUT policy)", run: async () => (await api("PUT", `/v1/mailboxes/${agent.id}/policy`, { type: "text/plain", body: `{"allow_outbound":false,"x":"${"a".repeat(1024 * 1024)}"}` })).label },
  { name: "12 MB text/plain (POST search)", run: async () => (await api("POST", `/v1/mailboxes/${agent.id}/search`, { type: "text/plain", body: `{"query":"${"a".repeat(12 * 1024 * 1024)}"}` })).label },
  { name: "JSON object 30,000 deep (PUT policy)", run: async () => (await api("PUT", `/v1/mailboxes/${agent.id}/policy`, { body: '{"a":'.repeat(30_000) + "1" + "}".repeat(30_000) })).label },
  { name: "99,000 unknown keys (PUT policy)", run: async () => (await api("PUT", `/v1/mailboxes/${agent.id}/policy`, { body: Object.fromEntries(Array.from({ length: 99_000 }, (_, i) => [`k${i}`, i])) })).label },
  { name: "20,000 unknown keys (PUT policy)", run: async () => (await api("PUT", `/v1/mailboxes/${agent.id}/policy`, { body: Object.fromEntries(Array.from({ length: 19_999 }, (_, i) => [`k${i}`, i])) })).label },
  { name: "99,000-item array for a string (POST search)", run: async () => (await api("POST", `/v1/mailboxes/${agent.id}/search`, { body: { query: Array.from({ length: 99_000 }, (_, i) => i) } })).label },
  { name: "10 MiB string of the wrong type (PUT policy)", run: async () => (await api("PUT", `/v1/mailboxes/${agent.id}/policy`, { body: { allow_outbound: "a".repeat(10 * 1024 * 1024 - 64) } })).label },
  { name: "send with 2 x 4 MiB bodies (POST send)", run: async () => (await api("POST", `/v1/mailboxes/${agent.id}/send`, { body: { to: ["nobody@example.com"], subject: "big", textBody: "t".repeat(4 << 20), htmlBody: `<p>${"h".repeat(4 << 20)}</p>` } })).label },
  { name: "the same with an Idempotency-Key (POST send)", run: async () => (await api("POST", `/v1/mailboxes/${agent.id}/send`, { idempotencyKey: bigSendKey, body: bigSend })).label },
  { name: "its replay (POST send, same key)", run: async () => (await api("POST", `/v1/mailboxes/${agent.id}/send`, { idempotencyKey: bigSendKey, body: bigSend })).label },
  { name: "12 MB JSON (PUT policy, over the limit)", run: async () => (await api("PUT", `/v1/mailboxes/${agent.id}/policy`, { body: { x: "a".repeat(12_000_000) } })).label },
  { name: "page=99999999999999999999 (GET messages)", run: async () => (await api("GET", `/v1/mailboxes/${agent.id}/messages?page=99999999999999999999`)).label },
  { name: "Host port 99999 (GET agent.json)", run: async () => (await api("GET", "/.well-known/agent.json", { host: `${agent.protocol_host}:99999` })).label },
  { name: "NUL in displayName (POST account)", run: async () => (await api("POST", "/v1/accounts", { body: { slug: `${slug}-nul`, displayName: "a\u0000b" } })).label },
  { name: "schema: pattern ^(a+)+$ (register action)", run: async () => (await api("POST", `/v1/mailboxes/${agent.id}/actions`, { body: { name: "redos", parameterSchema: { type: "object", properties: { q: { type: "string", pattern: "^(a+)+$" } } } } })).label },
  { name: "schema: 33 levels deep (register action)", run: async () => {
    let schema: object = { type: "string" };
    for (let i = 0; i < 17; i++) schema = { properties: { a: schema } };
    return (await api("POST", `/v1/mailboxes/${agent.id}/actions`, { body: { name: "deep", parameterSchema: schema } })).label;
  } },
  { name: "uniqueItems over 60,000 items (protocol)", run: async () => (await protocol({ subject: "u", action: "uniq", parameters: { ids: Array.from({ length: 60_000 }, (_, i) => i) } })).label },
  { name: "uniqueItems over 20,000 arrays (protocol)", run: async () => (await protocol({ subject: "u", action: "uniq", parameters: { ids: Array.from({ length: 20_000 }, (_, i) => [i + 10_000]) } })).label },
  { name: "pattern \\S+@\\S+\\.\\S+ on 200 KB (protocol)", run: async () => (await protocol({ subject: "p", action: "mail_like", parameters: { to: `a@${"a.".repeat(100_000)} ` } })).label },
  { name: "hostile 200 KB protocol message", run: async () => {
    const r = await protocol({ subject: "hostile", body: HOSTILE_TEXT });
    hostileMessageId = r.json?.id ?? null;
    hostileThreadId = r.json?.thread_id ?? null;
    return r.label;
  } },
  { name: "extractions of the hostile message", run: async () => (hostileMessageId ? (await api("POST", `/v1/messages/${hostileMessageId}/extractions`, { token: agentKey })).label : "skipped") },
  { name: "summary of the hostile message", run: async () => (hostileMessageId ? (await api("POST", `/v1/messages/${hostileMessageId}/summary`, { token: agentKey })).label : "skipped") },
  { name: "digest of its thread", run: async () => (hostileThreadId ? (await api("POST", `/v1/threads/${hostileThreadId}/digest`, { token: agentKey })).label : "skipped") },
  { name: "mail with 90 random Cc (SMTP)", mail: true, run: () => mail(`${head(`Cc: ${Array.from({ length: 90 }, () => `${crypto.randomUUID()}@${crypto.randomUUID().slice(0, 8)}.example`).join(", ")}\r\n`)}Content-Type: text/plain\r\n\r\nhello\r\n`) },
  { name: "mail: 1,000 nested multiparts (SMTP)", mail: true, run: () => mail(`${head()}${nestedMime(1000)}`) },
  { name: "mail: 2,000 parts (SMTP)", mail: true, run: () => mail(`${head()}${manyParts(2000)}`) },
  { name: "mail: 1 MB of '-- ' lines (SMTP)", mail: true, run: () => mail(`${head()}Content-Type: text/plain\r\n\r\n${fill("-- \r\n", 1024 * 1024)}\r\n`) },
  // Anyone can add a DKIM-Signature field: mailauth then hashes the whole body.
  { name: "mail: DKIM-signed, 1 MB of '-- ' lines (SMTP)", mail: true, run: () => mail(`DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.com; s=s1; h=from:to:subject; bh=AAAA; b=AAAA\r\n${head()}Content-Type: text/plain\r\n\r\n${fill("-- \r\n", 1024 * 1024)}\r\n`) },
  { name: "mail: 256 KB of hidden HTML (SMTP)", mail: true, run: () => mail(`${head()}Content-Type: text/html\r\n\r\n${fill('<span style="display:none">x</span>\r\n', 256 * 1024)}\r\n`) },
  { name: "mail: hostile 200 KB text (SMTP)", mail: true, run: () => mail(`${head()}Content-Type: text/plain\r\n\r\n${HOSTILE_TEXT.replace(/\n/g, "\r\n")}\r\n`) },
];

const rows: { name: string; gap: number; status: string }[] = [];
await Bun.sleep(500); // let the pinger settle into its cadence
for (const input of inputs) {
  if (ONLY && !ONLY.some((o) => input.name.toLowerCase().includes(o))) continue;
  const from = Date.now();
  let status: string;
  try {
    status = await input.run();
  } catch (err) {
    status = `error: ${(err as Error).message.slice(0, 60)}`;
  }
  await Bun.sleep(input.mail ? SETTLE * 3 : SETTLE);
  const gap = await worstGap(from, Date.now());
  rows.push({ name: input.name, gap, status });
  console.log(`${input.name.padEnd(48)} ${String(gap).padStart(7)} ms  ${status}`);
}

console.log("\n| input | worst /health gap (ms) | status |\n| --- | ---: | --- |");
for (const r of rows) console.log(`| ${r.name} | ${r.gap} | ${r.status} |`);

pinger.kill();
smtp.close();
await stop(svc.proc);
await db.drop();
