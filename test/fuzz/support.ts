import { ROUTE_AUTH, type AuthRule } from "../../src/http/route-auth.ts";
import { issueKey, seedAccount, sleep, startTestService, type TestService } from "../harness.ts";
import { knownFinding, type FuzzCase } from "./known.ts";
import { setRealistic } from "./values.ts";

/**
 * What every fuzz surface shares: one service with real keys and real resources to name, the
 * routes with their documented schemas, the one property every response must hold, and the
 * tally of what was found.
 *
 * FUZZ_RUNS (inputs per surface, default small enough for CI) and FUZZ_SEED (default fixed)
 * make a larger or different run: `FUZZ_RUNS=5000 FUZZ_SEED=7 bun test test/fuzz`.
 */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 13);
export const runsFor = (ciDefault: number) => Number(process.env.FUZZ_RUNS ?? ciDefault);
/** Requests in flight at once: a handful, so the run is quick without turning into a load test. */
export const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 4);

export interface Route {
  key: string;
  method: string;
  pattern: string;
  rule: AuthRule;
  /** The OpenAPI operation: parameters and request body schema. */
  op: any;
}

export interface Finding {
  c: FuzzCase;
  status: number;
  problem: string;
  response: string;
}

export interface Tally {
  surface: string;
  inputs: number;
  unsendable: number;
  statuses: Map<number, number>;
  known: Map<string, number>;
  /** The routes each known finding was seen on, so a known pattern cannot hide a new route. */
  knownRoutes: Map<string, Set<string>>;
  findings: Finding[];
  /** The slowest inputs, slowest first (the bench prints them; tests never judge time). */
  slowest: { ms: number; c: FuzzCase; status: number }[];
}

export const newTally = (surface: string): Tally => ({ surface, inputs: 0, unsendable: 0, statuses: new Map(), known: new Map(), knownRoutes: new Map(), findings: [], slowest: [] });

export type Seed = Awaited<ReturnType<typeof seedAccount>>;

export interface World {
  t: TestService;
  seed: Seed;
  /** A key of the agent mailbox used only as `:keyId` in paths, so a revoke never locks the fuzzer out. */
  pathKey: { id: string; token: string };
  message: { id: string; threadId: string; attachmentId: string };
  routes: Route[];
}

export async function startWorld(): Promise<World> {
  // The fuzzer makes thousands of calls with one key: the call window must not be what answers.
  const t = await startTestService({ API_KEY_RATE_LIMIT: "10000000" });
  const seed = await seedAccount(t);
  const pathKey = await issueKey(t, seed.agent.id, "fuzz path key");
  const message = await deliverMessage(t, seed.agent.email_address);
  const doc = (await t.api("GET", "/openapi.json", { token: null })).body;
  const routes = Object.entries(ROUTE_AUTH).map(([key, rule]) => {
    const [method, pattern] = key.split(" ") as [string, string];
    const op = doc.paths[pattern.replace(/:([A-Za-z0-9_]+)/g, "{$1}")]?.[method.toLowerCase()] ?? {};
    return { key, method, pattern, rule, op };
  });
  const draft = await create(t, `/v1/mailboxes/${seed.agent.id}/drafts`, { subject: "fuzz" }, (b) => b.draft.id);
  const label = await create(t, `/v1/mailboxes/${seed.agent.id}/labels`, { name: "fuzz" }, (b) => b.label.id);
  setRealistic([seed.account.id, seed.agent.id, seed.primary.id, message.id, message.threadId, message.attachmentId, draft, label, "fuzz", seed.agent.email_address, seed.primary.email_address, seed.agent.protocol_host, "send_message", "sender@example.com", "main", "agent"]);
  return { t, seed, pathKey, message, routes };
}

async function deliverMessage(t: TestService, to: string) {
  const raw = [
    `From: Fuzz Sender <sender@example.com>`,
    `To: ${to}`,
    `Subject: fuzz fixture`,
    `Message-ID: <fuzz.${crypto.randomUUID()}@example.com>`,
    `MIME-Version: 1.0`,
    `Content-Type: multipart/mixed; boundary="fz"`,
    ``,
    `--fz`,
    `Content-Type: text/plain`,
    ``,
    `Please send the invoice by Friday, 12 March. Order ORD-1.`,
    `--fz`,
    `Content-Type: text/plain`,
    `Content-Disposition: attachment; filename="a.txt"`,
    ``,
    `attached`,
    `--fz--`,
    ``,
  ].join("\r\n");
  const res = await t.api("POST", `/v1/inbound/email?to=${encodeURIComponent(to)}`, { rawBody: raw, headers: { "content-type": "message/rfc822" } });
  if (res.status !== 202) throw new Error(`fuzz: inbound failed: ${res.status} ${res.text}`);
  const id = res.body.message_ids[0];
  // Generous: on a loaded machine the first parse worker can take a while to start.
  for (const deadline = Date.now() + 100_000; Date.now() < deadline; ) {
    const m = (await t.api("GET", `/v1/messages/${id}`)).body?.message;
    if (m?.thread_id && m.attachments.length > 0) return { id, threadId: m.thread_id as string, attachmentId: m.attachments[0].id as string };
    await sleep(20);
  }
  throw new Error(`fuzz: message ${id} was not processed`);
}

/** A value for each path parameter that names something real; DELETEs get a fresh resource so fixtures survive. */
export async function realParams(w: World, route: Route): Promise<Record<string, string>> {
  const { t, seed } = w;
  const names = [...route.pattern.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  const fresh = route.method === "DELETE";
  const out: Record<string, string> = {};
  for (const name of names) {
    switch (name) {
      case "accountId":
        out[name] = seed.account.id;
        break;
      case "mailboxId":
        out[name] = seed.agent.id;
        break;
      case "keyId":
        out[name] = w.pathKey.id;
        break;
      case "messageId":
        out[name] = w.message.id;
        break;
      case "threadId":
        out[name] = w.message.threadId;
        break;
      case "attachmentId":
        out[name] = w.message.attachmentId;
        break;
      case "deliveryId":
        out[name] = crypto.randomUUID();
        break;
      case "actionName":
        out[name] = fresh ? await create(t, `/v1/mailboxes/${seed.agent.id}/actions`, { name: `fz_${crypto.randomUUID().slice(0, 8)}`, description: "fuzz" }, (b) => b.action.name) : "send_message";
        break;
      case "draftId":
        out[name] = await create(t, `/v1/mailboxes/${seed.agent.id}/drafts`, { subject: "fuzz" }, (b) => b.draft.id);
        break;
      case "labelId":
        out[name] = await create(t, `/v1/mailboxes/${seed.agent.id}/labels`, { name: `fz-${crypto.randomUUID()}` }, (b) => b.label.id);
        break;
      case "profileId":
        out[name] = await create(t, `/v1/accounts/${seed.account.id}/sender-profiles`, { address: `fz-${crypto.randomUUID()}@example.com` }, (b) => b.sender_profile.id);
        break;
      case "endpointId":
        out[name] = await freshEndpoint(w);
        break;
      default:
        throw new Error(`fuzz: no value for :${name} of ${route.key}; add one to realParams()`);
    }
  }
  return out;
}

const newEndpoint = (t: TestService, mailboxId: string) => create(t, `/v1/mailboxes/${mailboxId}/webhooks`, { url: "http://127.0.0.1:9/fuzz", events: ["message.sent"] }, (b) => b.webhook.id);

/**
 * A new endpoint for each case, since a case may disable or delete it. A mailbox has a bounded
 * number of endpoints, so the ones earlier cases left go first: they also keep every send of the
 * agent mailbox from fanning out to all of them.
 */
async function freshEndpoint(w: World): Promise<string> {
  const mailboxId = w.seed.agent.id;
  const res = await w.t.api("GET", `/v1/mailboxes/${mailboxId}/webhooks`);
  for (const e of res.body?.items ?? []) await w.t.api("DELETE", `/v1/webhooks/${e.id}`);
  return newEndpoint(w.t, mailboxId);
}

async function create(t: TestService, path: string, body: unknown, pick: (b: any) => string): Promise<string> {
  const res = await t.api("POST", path, { body });
  if (res.status !== 201) throw new Error(`fuzz: fixture ${path} failed: ${res.status} ${res.text}`);
  return pick(res.body);
}

export const fillPath = (pattern: string, params: Record<string, string>) => pattern.replace(/:([A-Za-z0-9_]+)/g, (_, n: string) => params[n] ?? n);

/** The token a route is called with: admin for admin routes, else the agent's key or (half the time) admin. */
export function tokenFor(w: World, route: Route, pick: number): string {
  if (route.rule.level === "admin" || route.rule.level === "public") return w.t.admin;
  if (route.rule.level === "key") return w.seed.primaryKey.token;
  return pick % 2 === 0 ? w.seed.agentKey.token : w.t.admin;
}

/** The agent protocol answers on the agent mailbox's protocol host. */
export const hostFor = (w: World, route: Route): Record<string, string> => (route.pattern.startsWith("/.") ? { host: w.seed.agent.protocol_host } : {});

export interface Sent {
  status: number;
  contentType: string;
  requestId: string | null;
  text: string;
}

/** Sends a case as is; undefined when the client itself refuses to send it (a header fetch will not carry). */
export async function send(w: World, c: FuzzCase): Promise<Sent | undefined> {
  let res: Response;
  try {
    res = await fetch(w.t.url + c.target, { method: c.method, headers: c.headers, body: c.body as string | Uint8Array<ArrayBuffer> | undefined, redirect: "manual" });
  } catch (err) {
    if (err instanceof TypeError || (err as Error)?.name === "TypeError" || /header|invalid|URL/i.test(String((err as Error)?.message))) return undefined;
    throw err;
  }
  const contentType = res.headers.get("content-type") ?? "";
  if (contentType.startsWith("text/event-stream")) {
    await res.body?.cancel();
    return { status: res.status, contentType, requestId: res.headers.get("x-request-id"), text: "" };
  }
  return { status: res.status, contentType, requestId: res.headers.get("x-request-id"), text: await res.text() };
}

/** The property: no 5xx, and every non-2xx is exactly the error envelope. Returns the problem, if any. */
export function problemOf(r: Sent): string | undefined {
  if (r.status >= 500) return `status ${r.status}`;
  if (r.status < 300) return undefined;
  if (r.status >= 300 && r.status < 400) return `redirect ${r.status}`;
  let body: any;
  try {
    body = JSON.parse(r.text);
  } catch {
    return "non-2xx body is not JSON";
  }
  const e = body?.error;
  const ok =
    body !== null &&
    typeof body === "object" &&
    Object.keys(body).join() === "error" &&
    e !== null &&
    typeof e === "object" &&
    Object.keys(e).sort().join() === "code,details,message" &&
    typeof e.code === "string" &&
    typeof e.message === "string" &&
    e.message.length > 0 &&
    e.details !== null &&
    typeof e.details === "object" &&
    !Array.isArray(e.details);
  if (!ok) return "non-2xx body is not the error envelope";
  if (!r.contentType.includes("application/json")) return "error envelope without application/json";
  if (!r.requestId) return "error without x-request-id";
  return undefined;
}

/** Runs cases a few at a time, checks each, and checks that /health answers between batches. */
export async function runCases(w: World, tally: Tally, cases: AsyncIterable<FuzzCase> | Iterable<FuzzCase>, onSent?: (c: FuzzCase, r: Sent) => void): Promise<void> {
  const pending = new Set<Promise<void>>();
  let sinceHealth = 0;
  for await (const c of cases) {
    const p = check(w, tally, c, onSent).finally(() => pending.delete(p));
    pending.add(p);
    if (pending.size >= CONCURRENCY) await Promise.race(pending);
    if (++sinceHealth >= 25) {
      sinceHealth = 0;
      await Promise.all(pending);
      await expectHealthy(w, tally, c);
    }
  }
  await Promise.all(pending);
  await expectHealthy(w, tally, undefined);
}

async function check(w: World, tally: Tally, c: FuzzCase, onSent?: (c: FuzzCase, r: Sent) => void): Promise<void> {
  const started = performance.now();
  const r = await send(w, c);
  if (r) noteTime(tally, c, r.status, performance.now() - started);
  if (!r) {
    tally.unsendable++;
    return;
  }
  onSent?.(c, r);
  tally.inputs++;
  tally.statuses.set(r.status, (tally.statuses.get(r.status) ?? 0) + 1);
  const problem = problemOf(r);
  if (!problem) return;
  record(tally, c, r.status, problem, r.text);
}

function noteTime(tally: Tally, c: FuzzCase, status: number, ms: number) {
  if (tally.slowest.length >= 5 && ms <= tally.slowest[tally.slowest.length - 1]!.ms) return;
  tally.slowest.push({ ms, c, status });
  tally.slowest.sort((a, b) => b.ms - a.ms);
  tally.slowest.length = Math.min(tally.slowest.length, 5);
}

export function record(tally: Tally, c: FuzzCase, status: number, problem: string, response: string) {
  const known = knownFinding(c, status);
  if (known) {
    tally.known.set(known, (tally.known.get(known) ?? 0) + 1);
    if (!tally.knownRoutes.has(known)) tally.knownRoutes.set(known, new Set());
    tally.knownRoutes.get(known)!.add(c.route);
  }
  else tally.findings.push({ c, status, problem, response: response.slice(0, 300) });
}

async function expectHealthy(w: World, tally: Tally, last: FuzzCase | undefined): Promise<void> {
  const res = await fetch(`${w.t.url}/health`).catch(() => undefined);
  if (res?.status === 200) {
    await res.text();
    return;
  }
  const c: FuzzCase = last ?? { surface: tally.surface, route: "GET /health", method: "GET", target: "/health", headers: {} };
  tally.findings.push({ c, status: res?.status ?? 0, problem: "/health stopped answering 200 after this batch", response: (await res?.text()) ?? "no response" });
}

/** One line per distinct finding (route, status, problem), with its first input shortened. */
export function describe(tally: Tally): string {
  const seen = new Map<string, Finding & { count: number }>();
  for (const f of tally.findings) {
    const key = `${f.c.route} ${f.status} ${f.problem}`;
    const s = seen.get(key);
    if (s) s.count++;
    else seen.set(key, { ...f, count: 1 });
  }
  const lines = [...seen.entries()].map(([key, f]) => {
    const body = f.c.body === undefined ? "" : typeof f.c.body === "string" ? f.c.body : new TextDecoder().decode(f.c.body);
    return `${key} ×${f.count}\n    ${f.c.method} ${short(f.c.target)} headers=${short(JSON.stringify(f.c.headers))} body=${short(JSON.stringify(body))}\n    → ${short(f.response)}`;
  });
  return lines.join("\n");
}

export const slowest = (tally: Tally): string =>
  tally.slowest.map(({ ms, c, status }) => `${Math.round(ms)} ms ${status} ${c.route}: ${c.method} ${short(c.target, 120)} body=${short(JSON.stringify(typeof c.body === "string" ? c.body : c.body ? `<${c.body.byteLength} bytes>` : ""), 160)}`).join("\n");

const short = (s: string, n = 400) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

export function summary(tally: Tally): string {
  const statuses = [...tally.statuses.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`).join(" ");
  const known = [...tally.known.entries()].map(([f, n]) => `${n}× ${f} (on ${[...(tally.knownRoutes.get(f) ?? [])].join(", ")})`).join("; ");
  return `${tally.surface}: ${tally.inputs} inputs (${tally.unsendable} unsendable) statuses ${statuses}; findings ${tally.findings.length}${known ? `; known: ${known}` : ""}`;
}
