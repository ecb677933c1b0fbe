import { isIP } from "node:net";
import { availableParallelism, hostname } from "node:os";
import { resolve } from "node:path";
import { NATS_PREFIX_RE } from "./cluster/nats-names.ts";
import type { TextVectorBy } from "./mail/text-vector-rules.ts";
import { DEFAULT_WORKER_NICE } from "./workers/thread-priority.ts";
import { relayList } from "./mail/assess/upstream.ts";

/**
 * Every setting of the runtime contract plus our own additions, parsed once at boot.
 * Nothing else in the codebase reads process.env: pass a Config down instead.
 */
export interface Config {
  port: number;
  host: string;
  smtpPort: number;
  adminToken: string | undefined;
  /** Key material that seals stored signing secrets; unset: see secretsKeyMaterial(). */
  secretsKey: string | undefined;
  /** The material of the key before it, for one start that re-seals everything. */
  secretsKeyPrevious: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  natsUrl: string | undefined;
  /** Namespace of every NATS subject and stream; unset: derived from the database's deployment id. */
  natsPrefix: string | undefined;
  mailDomain: string;
  agentDomain: string;
  smtpRelayUrl: string | undefined;
  webhookRetryDelays: number[];
  replyTokenTtlSeconds: number;
  allowPrivateWebhookTargets: boolean;
  // Our additions (documented in the README settings table).
  nodeId: string;
  logLevel: string;
  apiKeyRateLimit: number;
  apiKeyRateWindowSeconds: number;
  cacheTtlMs: number;
  idempotencyTtlSeconds: number;
  idempotencyLeaseSeconds: number;
  actorIdleSeconds: number;
  /** How long a command may wait in a mailbox actor's inbox before it is dropped unrun (503). */
  actorAskTimeoutMs: number;
  /** With NATS_URL: how long a node's lease on its share of the mailboxes lasts unrenewed. */
  clusterLeaseMs: number;
  shutdownTimeoutSeconds: number;
  /** PGlite only: keep the embedded database in memory instead of under DATA_DIR (tests). */
  pgliteInMemory: boolean;
  smtpMaxMessageBytes: number;
  smtpMaxClients: number;
  smtpMaxClientsPerAddress: number;
  smtpSessionTimeoutSeconds: number;
  smtpDataTimeoutSeconds: number;
  /** Bytes/s; 0 turns the rate check off. */
  smtpMinDataRate: number;
  smtpDataRateGraceSeconds: number;
  smtpMaxJunkCommands: number;
  /** MAIL FROM waits while processing runs more than this far behind (src/mail/in-flow.ts); 0 = never. */
  smtpInFlowLagMs: number;
  smtpTls: { keyFile: string; certFile: string } | undefined;
  parseTimeoutMs: number;
  parseWorkers: number;
  /** Connections of the PostgreSQL pool (not used on the embedded database, which has one). */
  databasePoolSize: number;
  /** Nice value of worker threads (src/workers/thread-priority.ts); 0 leaves them at the loop's priority. */
  workerNice: number;
  /**
   * Who makes the text part of a processed message's full-text vector (README "Search"):
   * the service, in pieces (src/mail/text-vector-pieces.ts), or the database's own parser (migration 0018's trigger).
   */
  searchVector: TextVectorBy;
  /** The local intelligence engine's worker pool: threads and the time budget of one call. */
  intelLocalWorkers: number;
  intelLocalTimeoutMs: number;
  /** Time budget of validating one instance against an action schema, in a worker. */
  schemaValidationTimeoutMs: number;
  dnsTimeoutMs: number;
  /** The DNS servers SPF/DKIM/DMARC ask (ip or ip:port, [v6]:port); empty: the system's. */
  dnsServers: string[];
  /** Relays (IPs, CIDR blocks) whose spam verdict and Authentication-Results headers count (src/mail/assess/upstream.ts). */
  trustedRelays: string[];
  /** authserv-ids whose Authentication-Results count when a trusted hop wrote them. */
  trustedAuthservIds: string[];
  deliveryMaxAttempts: number;
  jobPollMs: number;
  /** Outbox jobs (processing, delivery, auto-reply) one node runs at once. */
  jobConcurrency: number;
  jobLeaseSeconds: number;
  /** Attempts of an outbox job before it ends as failed. */
  jobMaxAttempts: number;
  webhookTimeoutMs: number;
  webhookConcurrency: number;
  /** Webhook endpoints one mailbox may have: each event is delivered to every one of them. */
  webhookMaxEndpointsPerMailbox: number;
  webhookSweepSeconds: number;
  eventRetentionDays: number;
  /** Open SSE event streams one mailbox may have on one node. */
  eventStreamsPerMailbox: number;
  /** The OpenAI-compatible chat-completions engine for intelligence; unset: the local engine only. */
  llm: { baseUrl: string; apiKey: string | undefined; model: string; timeoutMs: number } | undefined;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const str = (name: string, fallback: string) => {
    const v = env[name];
    return v === undefined || v === "" ? fallback : v;
  };
  const opt = (name: string) => {
    const v = env[name];
    return v === undefined || v === "" ? undefined : v;
  };
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = opt(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return n;
  };
  const bool = (name: string, fallback: boolean) => {
    const raw = opt(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (["1", "true", "yes", "on"].includes(raw)) return true;
    if (["0", "false", "no", "off"].includes(raw)) return false;
    problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  };
  const url = (name: string, protocols: string[]) => {
    const raw = opt(name);
    if (raw === undefined) return undefined;
    try {
      const u = new URL(raw);
      if (!protocols.includes(u.protocol)) problems.push(`${name} must use ${protocols.join(" or ")}, got "${u.protocol}"`);
    } catch {
      problems.push(`${name} is not a valid URL`);
    }
    return raw;
  };
  const domain = (name: string, fallback: string) => {
    const v = str(name, fallback).toLowerCase();
    if (!/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(v)) {
      problems.push(`${name} must be a domain name, got "${v}"`);
    }
    return v;
  };

  const delaysRaw = str("WEBHOOK_RETRY_DELAYS", "10,20,30,40,60");
  // An empty item ("10,,20", a trailing comma) is a typo, not 0 seconds: Number("") would be 0.
  const webhookRetryDelays = delaysRaw.split(",").map((s) => (s.trim() === "" ? Number.NaN : Number(s)));
  if (webhookRetryDelays.length === 0 || webhookRetryDelays.some((n) => !Number.isFinite(n) || n < 0)) {
    problems.push(`WEBHOOK_RETRY_DELAYS must be comma-separated non-negative seconds, got "${delaysRaw}"`);
  }

  const adminToken = opt("ADMIN_TOKEN");
  if (adminToken !== undefined && !/^[\x21-\x7e]{16,512}$/.test(adminToken)) {
    problems.push("ADMIN_TOKEN must be 16 to 512 printable ASCII characters without spaces");
  }

  const secretsKey = opt("SECRETS_KEY");
  const secretsKeyPrevious = opt("SECRETS_KEY_PREVIOUS");
  for (const [name, v] of [["SECRETS_KEY", secretsKey], ["SECRETS_KEY_PREVIOUS", secretsKeyPrevious]] as const) {
    if (v !== undefined && !/^[\x21-\x7e]{16,512}$/.test(v)) problems.push(`${name} must be 16 to 512 printable ASCII characters without spaces (32 or more random ones)`);
  }

  const natsPrefix = opt("NATS_PREFIX");
  if (natsPrefix !== undefined && !NATS_PREFIX_RE.test(natsPrefix)) problems.push(`NATS_PREFIX must be 1 to 64 letters, digits, "-" or "_", got "${natsPrefix}"`);

  const list = (name: string) => (opt(name) ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  try {
    relayList(list("TRUSTED_RELAYS"));
  } catch (err) {
    problems.push(`TRUSTED_RELAYS must be a comma-separated list of IP addresses and CIDR blocks: ${(err as Error).message}`);
  }
  for (const server of list("DNS_SERVERS")) {
    if (!dnsServerAddress(server)) problems.push(`DNS_SERVERS: "${server}" is not an IP address with an optional port (192.0.2.53, 192.0.2.53:5353, [2001:db8::53]:53)`);
  }
  for (const id of list("TRUSTED_AUTHSERV_IDS")) {
    if (!/^[\x21-\x7e]{1,253}$/.test(id) || id.includes(";")) problems.push(`TRUSTED_AUTHSERV_IDS: "${id}" is not an authserv-id (a host name)`);
  }

  const config: Config = {
    port: int("PORT", 3000, 0, 65535),
    host: str("HOST", "0.0.0.0"),
    smtpPort: int("SMTP_PORT", 2525, 0, 65535),
    adminToken,
    secretsKey,
    secretsKeyPrevious,
    databaseUrl: url("DATABASE_URL", ["postgres:", "postgresql:"]),
    dataDir: resolve(str("DATA_DIR", "./data")),
    natsUrl: url("NATS_URL", ["nats:", "tls:", "ws:", "wss:"]),
    natsPrefix,
    mailDomain: domain("MAIL_DOMAIN", "mail.localhost"),
    agentDomain: domain("AGENT_DOMAIN", "agents.localhost"),
    smtpRelayUrl: url("SMTP_RELAY_URL", ["smtp:", "smtps:"]),
    webhookRetryDelays,
    replyTokenTtlSeconds: int("REPLY_TOKEN_TTL_SECONDS", 2_592_000, 1, 10 * 365 * 86_400),
    allowPrivateWebhookTargets: bool("ALLOW_PRIVATE_WEBHOOK_TARGETS", false),
    nodeId: str("NODE_ID", `${hostname()}-${process.pid}`),
    logLevel: str("LOG_LEVEL", "info"),
    apiKeyRateLimit: int("API_KEY_RATE_LIMIT", 600, 1, 10_000_000),
    apiKeyRateWindowSeconds: int("API_KEY_RATE_WINDOW_SECONDS", 600, 1, 86_400),
    // How long a node trusts what it keeps in memory of another node's writes (API keys,
    // mailbox rows). The revoke promise is "no cache outlives a revoke by more than a second".
    cacheTtlMs: int("CACHE_TTL_MS", 1000, 0, 1000),
    idempotencyTtlSeconds: int("IDEMPOTENCY_TTL_SECONDS", 86_400, 86_400, 30 * 86_400),
    idempotencyLeaseSeconds: int("IDEMPOTENCY_LEASE_SECONDS", 60, 1, 3600),
    actorIdleSeconds: int("ACTOR_IDLE_SECONDS", 60, 1, 86_400),
    actorAskTimeoutMs: int("ACTOR_ASK_TIMEOUT_MS", 10_000, 1, 600_000),
    clusterLeaseMs: int("CLUSTER_LEASE_MS", 3000, 1000, 60_000),
    shutdownTimeoutSeconds: int("SHUTDOWN_TIMEOUT_SECONDS", 10, 1, 600),
    pgliteInMemory: bool("PGLITE_IN_MEMORY", false),
    smtpMaxMessageBytes: int("SMTP_MAX_MESSAGE_BYTES", 25 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    smtpMaxClients: int("SMTP_MAX_CLIENTS", 200, 1, 100_000),
    smtpMaxClientsPerAddress: int("SMTP_MAX_CLIENTS_PER_ADDRESS", 20, 1, 100_000),
    smtpSessionTimeoutSeconds: int("SMTP_SESSION_TIMEOUT_SECONDS", 600, 1, 86_400),
    smtpDataTimeoutSeconds: int("SMTP_DATA_TIMEOUT_SECONDS", 300, 1, 86_400),
    smtpMinDataRate: int("SMTP_MIN_DATA_RATE", 500, 0, 1_000_000_000),
    smtpDataRateGraceSeconds: int("SMTP_DATA_RATE_GRACE_SECONDS", 10, 0, 3600),
    smtpMaxJunkCommands: int("SMTP_MAX_JUNK_COMMANDS", 100, 1, 100_000),
    smtpInFlowLagMs: int("SMTP_IN_FLOW_LAG_MS", 1000, 0, 600_000),
    smtpTls: undefined,
    parseTimeoutMs: int("PARSE_TIMEOUT_MS", 5000, 100, 120_000),
    parseWorkers: int("PARSE_WORKERS", defaultParseWorkers(), 1, 64),
    databasePoolSize: int("DATABASE_POOL_SIZE", defaultDatabasePoolSize(), 1, 200),
    workerNice: int("WORKER_NICE", DEFAULT_WORKER_NICE, 0, 19),
    searchVector: searchVectorOf(opt("SEARCH_VECTOR"), problems, opt("DATABASE_URL") !== undefined),
    intelLocalWorkers: int("INTEL_LOCAL_WORKERS", 1, 1, 64),
    intelLocalTimeoutMs: int("INTEL_LOCAL_TIMEOUT_MS", 5000, 100, 120_000),
    schemaValidationTimeoutMs: int("SCHEMA_VALIDATION_TIMEOUT_MS", 1000, 50, 60_000),
    dnsTimeoutMs: int("DNS_TIMEOUT_MS", 1500, 50, 30_000),
    dnsServers: list("DNS_SERVERS"),
    trustedRelays: list("TRUSTED_RELAYS"),
    trustedAuthservIds: list("TRUSTED_AUTHSERV_IDS").map((s) => s.toLowerCase()),
    jobLeaseSeconds: int("JOB_LEASE_SECONDS", 60, 2, 3600),
    webhookTimeoutMs: int("WEBHOOK_TIMEOUT_MS", 15_000, 100, 120_000),
    webhookConcurrency: int("WEBHOOK_CONCURRENCY", 256, 1, 4096),
    webhookMaxEndpointsPerMailbox: int("WEBHOOK_MAX_ENDPOINTS_PER_MAILBOX", 20, 1, 1000),
    webhookSweepSeconds: int("WEBHOOK_SWEEP_SECONDS", 60, 1, 86_400),
    eventRetentionDays: int("EVENT_RETENTION_DAYS", 7, 7, 365),
    eventStreamsPerMailbox: int("EVENT_STREAMS_PER_MAILBOX", 100, 1, 100_000),
    deliveryMaxAttempts: int("DELIVERY_MAX_ATTEMPTS", 5, 1, 100),
    jobPollMs: int("JOB_POLL_MS", 1000, 10, 60_000),
    jobConcurrency: int("JOB_CONCURRENCY", 32, 1, 256),
    jobMaxAttempts: int("JOB_MAX_ATTEMPTS", 10, 1, 1000),
    llm: undefined,
  };
  const llmBaseUrl = url("LLM_BASE_URL", ["http:", "https:"]);
  const llmTimeoutMs = int("LLM_TIMEOUT_MS", 20_000, 100, 300_000);
  if (llmBaseUrl) config.llm = { baseUrl: llmBaseUrl.replace(/\/+$/, ""), apiKey: opt("LLM_API_KEY"), model: str("LLM_MODEL", "gpt-4o-mini"), timeoutMs: llmTimeoutMs };
  const tlsKey = opt("SMTP_TLS_KEY_FILE");
  const tlsCert = opt("SMTP_TLS_CERT_FILE");
  if ((tlsKey === undefined) !== (tlsCert === undefined)) problems.push("SMTP_TLS_KEY_FILE and SMTP_TLS_CERT_FILE must be set together");
  else if (tlsKey && tlsCert) config.smtpTls = { keyFile: resolve(tlsKey), certFile: resolve(tlsCert) };
  if (!["fatal", "error", "warn", "info", "debug", "trace", "silent"].includes(config.logLevel)) {
    problems.push(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent`);
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  - ${problems.join("\n  - ")}`);
  return config;
}

/**
 * Parser threads by default: one fewer than the CPUs, at least one. The event loop needs a CPU
 * of its own, and on a small machine PostgreSQL (or the embedded one's thread) shares the rest:
 * measured on two CPUs, one parser thread ingests 5–20% more mail than two, which spend their
 * time waiting for a CPU and compile the parser's code twice. A spare thread still takes mail
 * held up behind slow mail (src/mail/parse/limits.ts PARSE_SPARE).
 */
function defaultParseWorkers(): number {
  return Math.max(1, Math.min(64, availableParallelism() - 1));
}

/**
 * PostgreSQL connections by default: twice the CPUs, from 4 to 20. The pool opens a connection
 * whenever all of its open ones are busy and hands statements to its idle ones in turn, so
 * under load every connection it may open is in use, and each is a server process of its own:
 * each statement wakes another process, with cold caches. Measured in the ingest bench on
 * two CPUs (158 KiB messages to one mailbox, paired rounds), PostgreSQL spent 18% less CPU a
 * message with 6 connections than with 20, and 10% less again with 3; fewer connections also
 * let the pool pipeline statements onto a busy one. Twice the CPUs is the usual starting point
 * for a server's connections; at least 4, so that a slow statement or two do not hold up the
 * rest (the blob writes and LISTEN have connections of their own).
 */
function defaultDatabasePoolSize(): number {
  return Math.max(4, Math.min(20, 2 * availableParallelism()));
}

/**
 * SEARCH_VECTOR: `service`, `database`, `by-length`, or `auto` (the default): the service's
 * pieces on the embedded database, whose one thread runs every statement in WebAssembly; on
 * PostgreSQL, the pieces for long texts and PostgreSQL's own parser for short ones
 * (`by-length`, src/mail/text-vector-rules.ts PIECES_FROM_CHARS, where the measured crossover
 * lies). `service` is for a cluster whose shared database is the bottleneck: it moves the text
 * part of every vector onto the nodes, which scale out.
 */
function searchVectorOf(raw: string | undefined, problems: string[], onPostgres: boolean): TextVectorBy {
  const value = raw?.toLowerCase() ?? "auto";
  if (value === "service" || value === "database" || value === "by-length") return value;
  if (value !== "auto") problems.push(`SEARCH_VECTOR must be auto, service, database or by-length, got "${raw}"`);
  return onPostgres ? "by-length" : "service";
}

/** A DNS server as node:dns setServers takes it: an IP, or an IP and a port ([v6]:port). */
export function dnsServerAddress(server: string): boolean {
  if (isIP(server)) return true;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)):(\d{1,5})$/.exec(server);
  if (!m) return false;
  const port = Number(m[3]);
  return port >= 1 && port <= 65535 && (m[1] ? isIP(m[1]) === 6 : isIP(m[2]!) === 4);
}
