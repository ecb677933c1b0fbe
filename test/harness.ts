import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { loadConfig } from "../src/config.ts";
import { startService, type Service } from "../src/service.ts";

/**
 * Starts the real service on free ports. It runs on embedded PGlite (in memory) and the
 * in-process job mode, or on the real PostgreSQL / NATS when DATABASE_URL / NATS_URL are
 * set. Tests isolate themselves with fresh slugs, never by mocking.
 */
export interface TestService {
  url: string;
  admin: string;
  service: Service;
  api: (method: string, path: string, opts?: RequestOpts) => Promise<ApiResponse>;
  stop: () => Promise<void>;
}

export interface RequestOpts {
  /** Bearer token; `null` sends no Authorization header. Defaults to the admin token. */
  token?: string | null;
  body?: unknown;
  /** Sent as is (no JSON encoding). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export const usingPostgres = !!process.env.DATABASE_URL;
/**
 * Every test service seals stored secrets with this key: on a shared PostgreSQL database a key
 * derived from each service's random admin token would leave the next service rows it cannot open.
 */
export const TEST_SECRETS_KEY = "test-secrets-key-0123456789abcdef0123456789abcdef";
export const usingNats = !!process.env.NATS_URL;

/**
 * A fresh database on DATABASE_URL's server, for services that must not share one with the
 * other test services: on PostgreSQL they all use DATABASE_URL's database, and a job one
 * service writes may be run by another's job runner (a service without a relay marks the
 * other's outbound mail sent, say). `prefix` names it; drop() removes it.
 */
export async function freshDatabase(prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error("freshDatabase needs DATABASE_URL");
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  const name = `${prefix}_${Date.now()}_${process.pid}_${randomBytes(3).toString("hex")}`;
  await admin.unsafe(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

export async function startTestService(env: Record<string, string> = {}): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), "mailroom-test-"));
  const admin = `test-admin-${randomBytes(16).toString("hex")}`;
  const config = loadConfig({
    PORT: "0",
    SMTP_PORT: "0",
    HOST: "127.0.0.1",
    ADMIN_TOKEN: admin,
    DATA_DIR: dataDir,
    PGLITE_IN_MEMORY: "true",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    ALLOW_PRIVATE_WEBHOOK_TARGETS: "true",
    SECRETS_KEY: TEST_SECRETS_KEY,
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    ...(process.env.NATS_URL ? { NATS_URL: process.env.NATS_URL } : {}),
    NODE_ID: `test-${randomBytes(3).toString("hex")}`,
    ...env,
  });
  const service = await startService(config);
  const url = `http://127.0.0.1:${service.httpPort}`;
  const api = (method: string, path: string, opts: RequestOpts = {}) => request(url, admin, method, path, opts);
  return {
    url,
    admin,
    service,
    api,
    stop: async () => {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function request(baseUrl: string, admin: string, method: string, path: string, opts: RequestOpts = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? admin : opts.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json";
  const res = await fetch(baseUrl + path, { method, headers, body });
  // An event stream never ends: report its status and headers, and hang up.
  if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
    await res.body?.cancel();
    return { status: res.status, headers: res.headers, body: undefined, text: "" };
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export const uniqueSlug = (prefix = "t") => `${prefix}-${randomBytes(5).toString("hex")}`;

/** An account with its primary mailbox, an agent mailbox and a key for each. */
export async function seedAccount(t: TestService) {
  const created = await t.api("POST", "/v1/accounts", { body: { slug: uniqueSlug("acct"), displayName: "Test Account" } });
  if (created.status !== 201) throw new Error(`seed account failed: ${created.status} ${created.text}`);
  const account = created.body.account;
  const primary = created.body.primary_mailbox;
  const agentRes = await t.api("POST", `/v1/accounts/${account.id}/mailboxes`, { body: { slug: "agent" } });
  if (agentRes.status !== 201) throw new Error(`seed mailbox failed: ${agentRes.status} ${agentRes.text}`);
  const agent = agentRes.body.mailbox;
  const primaryKey = await issueKey(t, primary.id);
  const agentKey = await issueKey(t, agent.id);
  return { account, primary, agent, primaryKey, agentKey };
}

export async function issueKey(t: TestService, mailboxId: string, name = "test key"): Promise<{ id: string; token: string }> {
  const res = await t.api("POST", `/v1/mailboxes/${mailboxId}/api-keys`, { body: { name, scope: "mailbox" } });
  if (res.status !== 201) throw new Error(`issue key failed: ${res.status} ${res.text}`);
  return { id: res.body.api_key.id, token: res.body.token };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `f` answers something other than undefined (effects are asynchronous). */
export async function waitFor<T>(f: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** The one error envelope: exactly {error:{code,message,details}}, JSON, with a request id. */
export function expectError(res: ApiResponse, status: number, code: string) {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(Object.keys(res.body)).toEqual(["error"]);
  expect(Object.keys(res.body.error).sort()).toEqual(["code", "details", "message"]);
  expect(typeof res.body.error.message).toBe("string");
  expect(res.body.error.message.length).toBeGreaterThan(0);
  expect(res.body.error.details).toBeObject();
  expect(Array.isArray(res.body.error.details)).toBe(false);
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(res.headers.get("x-request-id")).toBeTruthy();
}

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The field paths a validation_error names. */
export const fieldPaths = (res: ApiResponse): string[] => (res.body?.error?.details?.fields ?? []).map((f: { path: string }) => f.path);
