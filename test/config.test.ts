import { describe, expect, test } from "bun:test";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { ConfigError, loadConfig } from "../src/config.ts";

/** The ConfigError that loadConfig throws for `env`, or a failed expectation. */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe("defaults of the runtime contract", () => {
  test("loadConfig({}) gives every documented default", () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.host).toBe("0.0.0.0");
    expect(c.smtpPort).toBe(2525);
    expect(c.adminToken).toBeUndefined();
    expect(c.databaseUrl).toBeUndefined();
    expect(c.natsUrl).toBeUndefined();
    expect(c.smtpRelayUrl).toBeUndefined();
    expect(c.dataDir).toBe(resolve("./data"));
    expect(c.mailDomain).toBe("mail.localhost");
    expect(c.agentDomain).toBe("agents.localhost");
    expect(c.webhookRetryDelays).toEqual([10, 20, 30, 40, 60]);
    expect(c.replyTokenTtlSeconds).toBe(2_592_000);
    expect(c.allowPrivateWebhookTargets).toBe(false);
    // Our additions keep the promises the issue makes.
    expect(c.apiKeyRateLimit).toBe(600);
    expect(c.apiKeyRateWindowSeconds).toBe(600);
    expect(c.cacheTtlMs).toBeLessThanOrEqual(1000);
    expect(c.idempotencyTtlSeconds).toBeGreaterThanOrEqual(86_400);
    expect(c.pgliteInMemory).toBe(false);
    expect(c.jobMaxAttempts).toBe(10);
  });

  test("empty strings count as unset", () => {
    const c = loadConfig({ PORT: "", HOST: "", SMTP_PORT: "", ADMIN_TOKEN: "", DATABASE_URL: "", NATS_URL: "", WEBHOOK_RETRY_DELAYS: "" });
    expect(c.port).toBe(3000);
    expect(c.host).toBe("0.0.0.0");
    expect(c.smtpPort).toBe(2525);
    expect(c.adminToken).toBeUndefined();
    expect(c.databaseUrl).toBeUndefined();
    expect(c.natsUrl).toBeUndefined();
    expect(c.webhookRetryDelays).toEqual([10, 20, 30, 40, 60]);
  });

  test("loadConfig() reads process.env by default", () => {
    // Only checks that it does not throw on the test runner's own environment.
    expect(() => loadConfig()).not.toThrow();
  });
});

describe("accepted values", () => {
  test("every contract setting is read", () => {
    const c = loadConfig({
      PORT: "8080",
      HOST: "127.0.0.1",
      SMTP_PORT: "2626",
      ADMIN_TOKEN: "a-long-enough-admin-token",
      DATABASE_URL: "postgres://u:p@db.example:5432/x",
      DATA_DIR: "/tmp/mailroom-config-test",
      NATS_URL: "nats://127.0.0.1:4222",
      MAIL_DOMAIN: "Mail.Example.COM",
      AGENT_DOMAIN: "agents.example.com",
      SMTP_RELAY_URL: "smtp://user:pass@relay.example:587",
      WEBHOOK_RETRY_DELAYS: "1, 2 ,3",
      REPLY_TOKEN_TTL_SECONDS: "60",
      ALLOW_PRIVATE_WEBHOOK_TARGETS: "true",
    });
    expect(c).toMatchObject({
      port: 8080,
      host: "127.0.0.1",
      smtpPort: 2626,
      adminToken: "a-long-enough-admin-token",
      databaseUrl: "postgres://u:p@db.example:5432/x",
      dataDir: "/tmp/mailroom-config-test",
      natsUrl: "nats://127.0.0.1:4222",
      mailDomain: "mail.example.com",
      agentDomain: "agents.example.com",
      smtpRelayUrl: "smtp://user:pass@relay.example:587",
      webhookRetryDelays: [1, 2, 3],
      replyTokenTtlSeconds: 60,
      allowPrivateWebhookTargets: true,
    });
  });

  test("fractions are allowed in WEBHOOK_RETRY_DELAYS (for tests)", () => {
    expect(loadConfig({ WEBHOOK_RETRY_DELAYS: "0.1,0.2" }).webhookRetryDelays).toEqual([0.1, 0.2]);
    expect(loadConfig({ WEBHOOK_RETRY_DELAYS: "0" }).webhookRetryDelays).toEqual([0]);
  });

  test("port 0 (any free port) is allowed", () => {
    const c = loadConfig({ PORT: "0", SMTP_PORT: "0" });
    expect(c.port).toBe(0);
    expect(c.smtpPort).toBe(0);
  });

  test.each([
    ["1", true],
    ["yes", true],
    ["ON", true],
    ["0", false],
    ["False", false],
    ["no", false],
  ])("ALLOW_PRIVATE_WEBHOOK_TARGETS=%p is %p", (raw, expected) => {
    expect(loadConfig({ ALLOW_PRIVATE_WEBHOOK_TARGETS: raw }).allowPrivateWebhookTargets).toBe(expected);
  });

  test("DATA_DIR is resolved to an absolute path", () => {
    expect(loadConfig({ DATA_DIR: "some/rel" }).dataDir).toBe(resolve("some/rel"));
  });

  test("CACHE_TTL_MS up to 1000 is accepted", () => {
    expect(loadConfig({ CACHE_TTL_MS: "1000" }).cacheTtlMs).toBe(1000);
    expect(loadConfig({ CACHE_TTL_MS: "0" }).cacheTtlMs).toBe(0);
  });
});

describe("refused values", () => {
  test.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["PORT", "-1"],
    ["PORT", "80.5"],
    ["SMTP_PORT", "smtp"],
    ["DATABASE_URL", "mysql://localhost/x"],
    ["DATABASE_URL", "not a url"],
    ["NATS_URL", "http://localhost:4222"],
    ["SMTP_RELAY_URL", "http://relay"],
    ["MAIL_DOMAIN", "not a domain"],
    ["AGENT_DOMAIN", "-bad-.example"],
    ["WEBHOOK_RETRY_DELAYS", "10,abc"],
    ["WEBHOOK_RETRY_DELAYS", "-1"],
    ["REPLY_TOKEN_TTL_SECONDS", "0"],
    ["REPLY_TOKEN_TTL_SECONDS", "ten"],
    ["ALLOW_PRIVATE_WEBHOOK_TARGETS", "maybe"],
    ["ADMIN_TOKEN", "short"],
    ["ADMIN_TOKEN", "has a space in the middle"],
    ["LOG_LEVEL", "loud"],
    ["CACHE_TTL_MS", "1001"],
    ["CACHE_TTL_MS", "60000"],
  ])("%s=%p throws a ConfigError naming %s", (name, value) => {
    const err = configError({ [name]: value });
    // Name the variable itself, not just a longer one that contains it (SMTP_PORT vs PORT).
    expect(err.message).toMatch(new RegExp(`(^|[^A-Z_])${name}\\b`));
  });

  test("several bad variables are all reported at once", () => {
    const err = configError({
      PORT: "abc",
      SMTP_PORT: "99999",
      MAIL_DOMAIN: "bad domain",
      WEBHOOK_RETRY_DELAYS: "x",
      ALLOW_PRIVATE_WEBHOOK_TARGETS: "perhaps",
      CACHE_TTL_MS: "5000",
    });
    for (const name of ["PORT", "SMTP_PORT", "MAIL_DOMAIN", "WEBHOOK_RETRY_DELAYS", "ALLOW_PRIVATE_WEBHOOK_TARGETS", "CACHE_TTL_MS"]) {
      expect(err.message).toMatch(new RegExp(`(^|[^A-Z_])${name}\\b`));
    }
    // One problem per line, so an operator sees each of them.
    expect(err.message.split("\n").filter((l) => l.trim().startsWith("-")).length).toBe(6);
    expect(err.name).toBe("ConfigError");
  });

  test("WEBHOOK_MAX_ENDPOINTS_PER_MAILBOX: default 20, read as given, 0 or a non-number refused", () => {
    expect(loadConfig({}).webhookMaxEndpointsPerMailbox).toBe(20);
    expect(loadConfig({ WEBHOOK_MAX_ENDPOINTS_PER_MAILBOX: "3" }).webhookMaxEndpointsPerMailbox).toBe(3);
    for (const raw of ["0", "-1", "x", "1001"]) expect(configError({ WEBHOOK_MAX_ENDPOINTS_PER_MAILBOX: raw }).message).toContain("WEBHOOK_MAX_ENDPOINTS_PER_MAILBOX");
  });

  test("DATABASE_POOL_SIZE: twice the CPUs, from 4 to 20, by default; read as given; 0, over 200 or a non-number refused", () => {
    expect(loadConfig({}).databasePoolSize).toBe(Math.max(4, Math.min(20, 2 * availableParallelism())));
    expect(loadConfig({ DATABASE_POOL_SIZE: "1" }).databasePoolSize).toBe(1);
    expect(loadConfig({ DATABASE_POOL_SIZE: "50" }).databasePoolSize).toBe(50);
    for (const raw of ["0", "-2", "4.5", "many", "201"]) expect(configError({ DATABASE_POOL_SIZE: raw }).message).toContain(`DATABASE_POOL_SIZE must be an integer from 1 to 200, got "${raw}"`);
  });

  test("SEARCH_VECTOR: auto by default (the service's pieces on the embedded database; on PostgreSQL pieces for long texts, its parser for short ones), read as given, anything else refused", () => {
    const pg = "postgres://u@127.0.0.1:5432/db";
    expect(loadConfig({}).searchVector).toBe("service");
    expect(loadConfig({ SEARCH_VECTOR: "service" }).searchVector).toBe("service");
    expect(loadConfig({ DATABASE_URL: pg }).searchVector).toBe("by-length");
    expect(loadConfig({ DATABASE_URL: pg, SEARCH_VECTOR: "AUTO" }).searchVector).toBe("by-length");
    expect(loadConfig({ DATABASE_URL: pg, SEARCH_VECTOR: "database" }).searchVector).toBe("database");
    expect(loadConfig({ DATABASE_URL: pg, SEARCH_VECTOR: "service" }).searchVector).toBe("service");
    expect(loadConfig({ SEARCH_VECTOR: "database" }).searchVector).toBe("database");
    expect(loadConfig({ SEARCH_VECTOR: "By-Length" }).searchVector).toBe("by-length");
    for (const raw of ["postgres", "js", "1", "length"]) expect(configError({ SEARCH_VECTOR: raw }).message).toContain(`SEARCH_VECTOR must be auto, service, database or by-length, got "${raw}"`);
  });

  test("the message shows the refused value", () => {
    expect(configError({ PORT: "abc" }).message).toContain('"abc"');
  });

  test("an empty item in WEBHOOK_RETRY_DELAYS is refused, not read as 0 seconds", () => {
    // "10,,20" or a trailing comma is a typo; Number("") is 0, which would silently
    // turn it into an immediate retry.
    expect(configError({ WEBHOOK_RETRY_DELAYS: "10,,20" }).message).toContain("WEBHOOK_RETRY_DELAYS");
    expect(configError({ WEBHOOK_RETRY_DELAYS: "10,20," }).message).toContain("WEBHOOK_RETRY_DELAYS");
    expect(configError({ WEBHOOK_RETRY_DELAYS: " " }).message).toContain("WEBHOOK_RETRY_DELAYS");
  });
});

describe("SMTP limits", () => {
  test("defaults: 20 per address, 600 s per session, 300 s per DATA, 500 B/s after 10 s, 100 junk commands", () => {
    expect(loadConfig({})).toMatchObject({
      smtpMaxClientsPerAddress: 20,
      smtpSessionTimeoutSeconds: 600,
      smtpDataTimeoutSeconds: 300,
      smtpMinDataRate: 500,
      smtpDataRateGraceSeconds: 10,
      smtpMaxJunkCommands: 100,
    });
  });

  test("each is read, and a rate of 0 turns the rate check off", () => {
    const c = loadConfig({
      SMTP_MAX_CLIENTS_PER_ADDRESS: "3",
      SMTP_SESSION_TIMEOUT_SECONDS: "2",
      SMTP_DATA_TIMEOUT_SECONDS: "1",
      SMTP_MIN_DATA_RATE: "0",
      SMTP_DATA_RATE_GRACE_SECONDS: "0",
      SMTP_MAX_JUNK_COMMANDS: "5",
    });
    expect(c).toMatchObject({
      smtpMaxClientsPerAddress: 3,
      smtpSessionTimeoutSeconds: 2,
      smtpDataTimeoutSeconds: 1,
      smtpMinDataRate: 0,
      smtpDataRateGraceSeconds: 0,
      smtpMaxJunkCommands: 5,
    });
  });

  test.each([
    ["SMTP_MAX_CLIENTS_PER_ADDRESS", "0"],
    ["SMTP_SESSION_TIMEOUT_SECONDS", "0"],
    ["SMTP_DATA_TIMEOUT_SECONDS", "1.5"],
    ["SMTP_MIN_DATA_RATE", "-1"],
    ["SMTP_DATA_RATE_GRACE_SECONDS", "soon"],
    ["SMTP_MAX_JUNK_COMMANDS", "0"],
  ])("%s=%p is refused", (name, value) => {
    expect(configError({ [name]: value }).message).toMatch(new RegExp(`(^|[^A-Z_])${name}\\b`));
  });
});

describe("trusted hops (issue 18)", () => {
  test("none by default; IPs and CIDR blocks of both families, and authserv-ids, are read", () => {
    expect(loadConfig({}).trustedRelays).toEqual([]);
    expect(loadConfig({}).trustedAuthservIds).toEqual([]);
    const c = loadConfig({ TRUSTED_RELAYS: " 192.0.2.10, 10.0.0.0/8 ,2001:db8::/32", TRUSTED_AUTHSERV_IDS: "MX.Example.com,filter.example.net" });
    expect(c.trustedRelays).toEqual(["192.0.2.10", "10.0.0.0/8", "2001:db8::/32"]);
    expect(c.trustedAuthservIds).toEqual(["mx.example.com", "filter.example.net"]);
  });

  test.each(["mx.example.com", "10.0.0.0/33", "192.0.2.1/x", "2001:db8::/129"])("TRUSTED_RELAYS=%p is refused", (value) => {
    expect(configError({ TRUSTED_RELAYS: value }).message).toContain("TRUSTED_RELAYS");
  });

  test("an authserv-id with spaces or a semicolon is refused", () => {
    expect(configError({ TRUSTED_AUTHSERV_IDS: "mx.example.com; spf=pass" }).message).toContain("TRUSTED_AUTHSERV_IDS");
  });
});

describe("DNS_SERVERS", () => {
  test("the system's by default; IPs of both families, with or without a port, are read", () => {
    expect(loadConfig({}).dnsServers).toEqual([]);
    expect(loadConfig({ DNS_SERVERS: " 192.0.2.53, 192.0.2.54:5353,2001:db8::53 ,[2001:db8::54]:53" }).dnsServers).toEqual(["192.0.2.53", "192.0.2.54:5353", "2001:db8::53", "[2001:db8::54]:53"]);
  });

  test.each(["dns.example.com", "192.0.2.53:0", "192.0.2.53:70000", "2001:db8::zz", "[192.0.2.53]:53", "192.0.2.53:"])("DNS_SERVERS=%p is refused", (value) => {
    expect(configError({ DNS_SERVERS: value }).message).toContain("DNS_SERVERS");
  });
});
