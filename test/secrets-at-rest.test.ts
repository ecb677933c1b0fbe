import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { rowsOf } from "../db/migrate.ts";
import { loadConfig } from "../src/config.ts";
import { SecretBox, UnknownSecretsKeyError } from "../src/crypto/secret-box.ts";
import { deriveKey, seal, sealBytes, unseal, unsealBytes } from "../src/crypto/seal.ts";
import { startService, type Service } from "../src/service.ts";
import { request, seedAccount, usingPostgres, type TestService } from "./harness.ts";
import { postInbound, rfc822 } from "./mail-support.ts";
import { startReceiver } from "./webhook-support.ts";

/**
 * One deployment that is stopped and started again on the same state: embedded PGlite on disk
 * (its key in DATA_DIR/secrets-key), or a fresh PostgreSQL database (its key derived from the
 * fixed ADMIN_TOKEN, as a cluster without SECRETS_KEY does).
 */
const dataDir = mkdtempSync(join(tmpdir(), "mailroom-secrets-"));
const ADMIN = `admin-${randomBytes(12).toString("hex")}`;
let fresh: { url: string; drop: () => Promise<void> } | undefined;
const running: Service[] = [];

async function freshDatabaseUrl(): Promise<string | undefined> {
  if (!usingPostgres) return undefined;
  if (fresh) return fresh.url;
  const name = `mr_secrets_${Date.now()}_${process.pid}`;
  const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  fresh = {
    url: url.toString(),
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
  return fresh.url;
}

async function boot(env: Record<string, string> = {}): Promise<TestService> {
  const databaseUrl = await freshDatabaseUrl();
  const config = loadConfig({
    PORT: "0",
    SMTP_PORT: "0",
    HOST: "127.0.0.1",
    ADMIN_TOKEN: ADMIN,
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    ALLOW_PRIVATE_WEBHOOK_TARGETS: "true",
    WEBHOOK_RETRY_DELAYS: "0.05",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(process.env.NATS_URL ? { NATS_URL: process.env.NATS_URL } : {}),
    ...env,
  });
  const service = await startService(config);
  running.push(service);
  const url = `http://127.0.0.1:${service.httpPort}`;
  return {
    url,
    admin: ADMIN,
    service,
    api: (method, path, opts = {}) => request(url, ADMIN, method, path, opts),
    stop: async () => {
      running.splice(running.indexOf(service), 1);
      await service.stop();
    },
  };
}

afterAll(async () => {
  for (const s of running) await s.stop();
  await fresh?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const column = async (t: TestService, query: ReturnType<typeof sql>) => rowsOf<{ v: string | null }>(await t.service.internals.database.db.execute(query)).map((r) => r.v);

async function inbound(t: TestService, to: string) {
  const res = await postInbound(t, rfc822({ From: "ann@example.com", To: to, Subject: "Hi", "Message-ID": `<${randomUUID()}@example.com>` }));
  expect(res.status).toBe(202);
  return res.body.message_ids[0] as string;
}

const signs = (secret: string, req: { body: string; headers: Record<string, string> }, header = "x-service-signature") => req.headers[header] === createHmac("sha256", secret).update(req.body).digest("hex");

describe("signing secrets at rest", () => {
  const receiver = startReceiver();
  afterAll(() => receiver.stop());
  let first: TestService;
  // A fresh embedded database on disk migrates slowly on a busy machine: the first start gets its own time.
  beforeAll(async () => {
    first = await boot();
  }, 180_000);
  let state: { mailboxId: string; agentMailboxId: string; endpointId: string; webhookSecret: string; callbackSecret: string; runtimeSecret: string; address: string };

  test("every secret is stored once, sealed; the API shows it as before; deliveries hold none", async () => {
    const t = first;
    const s = await seedAccount(t);
    const hook = await t.api("POST", `/v1/mailboxes/${s.primary.id}/webhooks`, { body: { url: receiver.url, events: ["message.received"] } });
    expect(hook.status).toBe(201);
    const callback = await t.api("POST", `/v1/mailboxes/${s.agent.id}/callback-secret`, { body: {} });
    expect(callback.status).toBe(200);
    // Asked again, it is the same secret (read back through the seal).
    expect((await t.api("POST", `/v1/mailboxes/${s.agent.id}/callback-secret`, { body: {} })).body.callback_secret).toBe(callback.body.callback_secret);
    const binding = await t.api("POST", `/v1/mailboxes/${s.agent.id}/agent-runtime-binding`, { body: { agentId: "bot", runtimeBaseUrl: receiver.url.replace("/hook", "") } });
    expect(binding.status).toBe(201);
    state = {
      mailboxId: s.primary.id,
      agentMailboxId: s.agent.id,
      endpointId: hook.body.webhook.id,
      webhookSecret: hook.body.signing_secret,
      callbackSecret: callback.body.callback_secret,
      runtimeSecret: binding.body.signing_secret,
      address: s.primary.email_address,
    };
    for (const secret of [state.webhookSecret, state.callbackSecret, state.runtimeSecret]) expect(secret).toMatch(/^[0-9a-f]{64}$/);

    const stored = [
      ...(await column(t, sql`select secret as v from webhook_endpoints where id = ${state.endpointId}`)),
      ...(await column(t, sql`select callback_secret as v from mailboxes where id = ${state.agentMailboxId}`)),
      ...(await column(t, sql`select signing_secret as v from agent_runtime_bindings where mailbox_id = ${state.agentMailboxId}`)),
    ];
    expect(stored).toHaveLength(3);
    for (const v of stored) expect(v).toMatch(/^sb1\.[0-9a-f]{12}\./);
    const everything = JSON.stringify(stored);
    for (const secret of [state.webhookSecret, state.callbackSecret, state.runtimeSecret]) expect(everything).not.toContain(secret);

    const deliveryColumns = await column(t, sql`select column_name as v from information_schema.columns where table_name = 'webhook_deliveries'`);
    expect(deliveryColumns).not.toContain("secret");

    // Signatures verify with the secret shown at creation.
    await inbound(t, state.address);
    const [req] = await receiver.waitFor((rs) => rs.some((r) => r.path === "/hook"), 15_000);
    expect(signs(state.webhookSecret, req!)).toBe(true);
    if (!usingPostgres) expect(statSync(join(dataDir, "secrets-key")).mode & 0o777).toBe(0o600);
    await t.stop();
  });

  test("after a restart, plaintext rows of an older version are sealed and deliveries still sign", async () => {
    // What a row written before sealing looks like: the secret itself.
    const legacy = randomBytes(32).toString("hex");
    let t = await boot();
    await t.service.internals.database.db.execute(sql`update webhook_endpoints set secret = ${legacy} where id = ${state.endpointId}`);
    await t.stop();

    t = await boot();
    const [sealed] = await column(t, sql`select secret as v from webhook_endpoints where id = ${state.endpointId}`);
    expect(sealed).toMatch(/^sb1\./);
    expect(sealed).not.toContain(legacy);
    const [keyId] = await column(t, sql`select secrets_key_id as v from deployment`);
    expect(sealed!.startsWith(`sb1.${keyId}.`)).toBe(true);

    const before = receiver.requests.length;
    await inbound(t, state.address);
    const reqs = await receiver.waitFor((rs) => rs.length > before, 15_000);
    expect(signs(legacy, reqs[reqs.length - 1]!)).toBe(true);
    // Rotation still shows the new secret once, and it signs from then on.
    const rotated = await t.api("POST", `/v1/webhooks/${state.endpointId}/rotate-secret`, {});
    expect(rotated.status).toBe(200);
    state.webhookSecret = rotated.body.signing_secret;
    const n = receiver.requests.length;
    await inbound(t, state.address);
    const after = await receiver.waitFor((rs) => rs.length > n, 15_000);
    expect(signs(state.webhookSecret, after[after.length - 1]!)).toBe(true);
    await t.stop();
  });

  test("a new key re-seals everything when given the old one; an unknown key stops the start", async () => {
    const oldMaterial = usingPostgres ? ADMIN : readFileSync(join(dataDir, "secrets-key"), "utf8").trim();
    const newKey = `new-key-${randomBytes(16).toString("hex")}`;
    // Without the previous key the stored secrets cannot be read: refuse to start rather than sign with nothing.
    await expect(boot({ SECRETS_KEY: newKey })).rejects.toBeInstanceOf(UnknownSecretsKeyError);

    let t = await boot({ SECRETS_KEY: newKey, SECRETS_KEY_PREVIOUS: oldMaterial });
    const box = new SecretBox(newKey);
    const [endpointSecret] = await column(t, sql`select secret as v from webhook_endpoints where id = ${state.endpointId}`);
    const [runtimeSecret] = await column(t, sql`select signing_secret as v from agent_runtime_bindings where mailbox_id = ${state.agentMailboxId}`);
    expect(box.isCurrent(endpointSecret!)).toBe(true);
    expect(box.open(endpointSecret!)).toBe(state.webhookSecret);
    expect(box.open(runtimeSecret!)).toBe(state.runtimeSecret);
    await t.stop();

    // The previous key is needed for one start only.
    t = await boot({ SECRETS_KEY: newKey });
    const n = receiver.requests.length;
    await inbound(t, state.address);
    const reqs = await receiver.waitFor((rs) => rs.length > n, 15_000);
    expect(signs(state.webhookSecret, reqs[reqs.length - 1]!)).toBe(true);
    expect((await t.api("POST", `/v1/mailboxes/${state.agentMailboxId}/callback-secret`, { body: {} })).body.callback_secret).toBe(state.callbackSecret);
    await t.stop();
    // Four starts of the service: 20 s on a busy two-core machine, over the default's two thirds.
  }, 90_000);
});

describe("the secret box", () => {
  test("seals with a fresh nonce, opens under the current or previous key only, refuses tampering", () => {
    const box = new SecretBox("material-one-0123456789");
    const a = box.seal("s3cret");
    expect(a).not.toContain("s3cret");
    expect(box.seal("s3cret")).not.toBe(a);
    expect(box.open(a)).toBe("s3cret");
    expect(box.isCurrent(a)).toBe(true);
    // A value from before sealing is the secret itself.
    expect(box.open("abcdef")).toBe("abcdef");
    const next = new SecretBox("material-two-0123456789", "material-one-0123456789");
    expect(next.open(a)).toBe("s3cret");
    expect(next.isCurrent(a)).toBe(false);
    expect(() => new SecretBox("material-two-0123456789").open(a)).toThrow(UnknownSecretsKeyError);
    const tampered = a.slice(0, -4) + (a.endsWith("AAAA") ? "BBBB" : "AAAA");
    expect(() => box.open(tampered)).toThrow();
  });

  test("SECRETS_KEY and SECRETS_KEY_PREVIOUS are checked at start", () => {
    expect(() => loadConfig({ SECRETS_KEY: "short" })).toThrow(/SECRETS_KEY/);
    expect(() => loadConfig({ SECRETS_KEY_PREVIOUS: "has spaces in it, too many" })).toThrow(/SECRETS_KEY_PREVIOUS/);
    expect(loadConfig({ SECRETS_KEY: "k".repeat(32) }).secretsKey).toBe("k".repeat(32));
  });
});

describe("sealing off the event loop", () => {
  const key = deriveKey("material", "salt", "test");
  test("sealBytes and seal write one format: each opens the other's, and a changed byte is refused", async () => {
    const text = "ünïcode ".repeat(10_000);
    expect(new TextDecoder().decode(await unsealBytes(key, seal(key, text)))).toBe(text);
    const sealed = await sealBytes(key, new TextEncoder().encode(text));
    expect(unseal(key, sealed)).toBe(text);
    const bytes = Buffer.from(sealed, "base64");
    bytes[20] = bytes[20]! ^ 1;
    await expect(unsealBytes(key, bytes.toString("base64"))).rejects.toThrow();
    await expect(unsealBytes(deriveKey("other", "salt", "test"), sealed)).rejects.toThrow();
  });
});
