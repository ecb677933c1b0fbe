import { Mailboxes } from "../actors/mailbox/client.ts";
import { mailboxActor } from "../actors/mailbox/actor.ts";
import { ActorSystem } from "../actors/runtime/index.ts";
import { openDatabase, type Database } from "../db/client.ts";
import { migrate } from "../db/migrate.ts";
import pkg from "../package.json" with { type: "json" };
import { resolveAdminToken } from "./auth/admin-token.ts";
import { Authenticator } from "./auth/authenticate.ts";
import { KeyStore } from "./auth/key-store.ts";
import { connectBus } from "./cluster/bus.ts";
import { natsNames, type NatsNames } from "./cluster/nats-names.ts";
import { mailboxPlacement } from "./cluster/placement.ts";
import type { PartitionLeases } from "./cluster/leases.ts";
import { defaultNatsPrefix, deploymentIdentity } from "./deployment.ts";
import { resealSecrets } from "./crypto/reseal.ts";
import { SecretBox, secretsKeyMaterial } from "./crypto/secret-box.ts";
import type { Config } from "./config.ts";
import { Accounts } from "./domain/accounts.ts";
import { Owners } from "./domain/owners.ts";
import { Suppressions } from "./domain/suppressions.ts";
import { SenderProfiles } from "./domain/sender-profiles.ts";
import { Intelligence } from "./intel/service.ts";
import { PooledLocalEngine } from "./intel/pooled.ts";
import { LlmEngine } from "./intel/llm/engine.ts";
import { ServiceMetrics } from "./metrics/service-metrics.ts";
import { FAST_READ_ROUTE, fastMailboxRead } from "./http/fast-read.ts";
import { createHttpApp } from "./http/app.ts";
import { JsonIntake } from "./http/json-intake.ts";
import { EventFeed } from "./events/feed.ts";
import { IdempotencyStore } from "./http/idempotency.ts";
import { createLogger, type Logger } from "./log.ts";
import { readFileSync } from "node:fs";
import { JobRunner } from "./jobs/runner.ts";
import { Assessor } from "./mail/assess/index.ts";
import { Ingest } from "./mail/ingest.ts";
import { offThreadBlobs } from "./mail/native-blobs.ts";
import { RecentRaw } from "./mail/recent-raw.ts";
import { Deliverer } from "./mail/outbound/deliver.ts";
import { MailParser } from "./mail/parse/index.ts";
import { Composer } from "./mail/outbound/composer.ts";
import { InboundProcessor } from "./mail/process.ts";
import { Recipients } from "./mail/recipients.ts";
import { InFlow } from "./mail/in-flow.ts";
import { smtpBridge } from "./mail/smtp-bridge.ts";
import { startSmtpIngress } from "./smtp/server.ts";
import { WebhookSystem } from "./webhooks/index.ts";
import { SchemaValidators } from "./protocol/validation.ts";
import { ProtocolHosts } from "./protocol/hosts.ts";
import { autoReplies } from "./protocol/auto-reply.ts";
import { setWorkerNice } from "./workers/thread-priority.ts";

export interface Service {
  httpPort: number;
  smtpPort: number;
  adminToken: string;
  log: Logger;
  /** For tests and tools in this repository; not an API. */
  internals: { /** This deployment's NATS names (used only with NATS_URL). */ nats: NatsNames; /** With NATS_URL: this node's partition leases. */ leases: PartitionLeases | undefined; database: Database; actors: ActorSystem; keys: KeyStore; webhooks: WebhookSystem; /** "METHOD /path" of every route the app serves. */ routes: string[]; /** The open SSE event streams. */ events: EventFeed };
  /** Drains and closes everything; safe to call twice. */
  stop(): Promise<void>;
}

const IDEMPOTENCY_SWEEP_MS = 10 * 60_000;

/** Composition root: config → db → cluster bus → actors → HTTP and SMTP. */
export async function startService(config: Config, opts: { log?: Logger } = {}): Promise<Service> {
  const log = opts.log ?? createLogger(config.logLevel, config.nodeId);
  const metrics = new ServiceMetrics();
  setWorkerNice(config.workerNice);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, inMemory: config.pgliteInMemory, poolSize: config.databasePoolSize });
  const cleanups: (() => Promise<unknown> | unknown)[] = [() => database.close()];
  const runCleanups = async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        log.warn({ err }, "error while stopping");
      }
    }
  };

  try {
    const { applied } = await migrate(database.db);
    if (applied > 0) log.info({ applied }, "database migrations applied");

    const adminToken = resolveAdminToken(config.adminToken, config.dataDir, (token, path) => {
      // Printed this once only; afterwards it is read from the file.
      log.warn({ admin_token: token, path }, "generated an admin token; it is stored in the data directory and will not be printed again");
    });

    const identity = await deploymentIdentity(database.db);
    const nats = natsNames(config.natsPrefix ?? defaultNatsPrefix(identity.id));

    const secretsKey = secretsKeyMaterial({ secretsKey: config.secretsKey, databaseUrl: config.databaseUrl, dataDir: config.dataDir, adminToken });
    const secrets = new SecretBox(secretsKey.material, config.secretsKeyPrevious);
    await resealSecrets(database.db, secrets, log);

    const keys = new KeyStore(database.db, config.cacheTtlMs);
    // Active keys are kept in memory instead of being read again every CACHE_TTL_MS: on
    // PostgreSQL (other nodes may revoke) revocations are read five times a second; an embedded
    // database has no other node.
    if (database.driver === "pglite") keys.revocationsAreLocal();
    else cleanups.push(keys.watchRevocations());
    // Who the mail's recipients are; kept active mailboxes are forgotten when a mailbox changes, here or elsewhere.
    const recipients = new Recipients(database.db, config.mailDomain, { ttlMs: config.cacheTtlMs });
    // The bus is connected before the actors exist; its handlers reach them through this slot.
    let mailboxesClient: Mailboxes | undefined;
    const bus = await connectBus(
      config.natsUrl,
      nats,
      config.nodeId,
      {
        onKeyRevoked: (id) => keys.invalidate(id),
        onMailboxChanged: (id) => {
          recipients.forget(id);
          mailboxesClient?.reload(id);
        },
      },
      log,
    );
    cleanups.push(() => bus.close());

    // The actors hand new deliveries and jobs over after commit; both exist only further down.
    let webhooksSlot: WebhookSystem | undefined;
    let runner: JobRunner | undefined;
    // Tenants' schemas are validated inline when cheap, else in a worker with a budget.
    const validators = new SchemaValidators({ timeoutMs: config.schemaValidationTimeoutMs });
    cleanups.push(() => validators.close());
    // On PostgreSQL large values (raw messages, a large send's bodies) go through a client that
    // sends and reads them as binary (src/mail/blobs.ts), on threads of its own
    // (src/mail/native-blobs.ts). Closed after the actors have drained.
    const blobWriter = config.databaseUrl ? offThreadBlobs(config.databaseUrl) : undefined;
    if (blobWriter) cleanups.push(() => blobWriter.close());
    // Outgoing messages are composed in a worker: a large send is hundreds of ms of MIME encoding.
    const composer = new Composer();
    cleanups.push(() => composer.close());
    const actors = new ActorSystem({ idleMs: config.actorIdleSeconds * 1000, askTimeoutMs: config.actorAskTimeoutMs, logger: log.child({ component: "actors" }) });
    const cluster = await mailboxPlacement(database.db, actors, {
      natsUrl: config.natsUrl,
      names: nats,
      nodeId: config.nodeId,
      leaseMs: config.clusterLeaseMs,
      askTimeoutMs: config.actorAskTimeoutMs,
      drainTimeoutMs: config.shutdownTimeoutSeconds * 1000,
      rateLimit: { limit: config.apiKeyRateLimit, windowMs: config.apiKeyRateWindowSeconds * 1000 },
      remoteReadMs: config.cacheTtlMs,
      log,
    });
    // Runs after the actors have drained (cleanups run in reverse).
    cleanups.push(() => cluster.stop());
    const actorCommits = { arrivals: cluster.sharedCommit(), processed: cluster.sharedCommit() };
    metrics.watchCommits(actorCommits);
    actors.register(
      cluster.define(mailboxActor({
        db: cluster.actorDb,
        commits: actorCommits,
        keys,
        secrets,
        announceRevoked: (id) => bus.announceRevoked(id),
        announceChanged: (id) => {
          recipients.forget(id);
          bus.announceMailboxChanged(id);
        },
        // With the NATS placement the owner is the one writer of its mailbox's row: nothing
        // changes it behind the actor's back, so the kept row needs no reload every second.
        freshnessMs: config.natsUrl ? 60_000 : config.cacheTtlMs,
        rateLimit: { limit: config.apiKeyRateLimit, windowMs: config.apiKeyRateWindowSeconds * 1000 },
        mailDomain: config.mailDomain,
        replyTokenTtlMs: config.replyTokenTtlSeconds * 1000,
        composer,
        ...(blobWriter ? { native: blobWriter } : {}),
        validators,
        handOver: { deliveries: (ids) => webhooksSlot?.handOver(ids), jobs: () => runner?.poke() },
      })),
    );
    const placement = cluster.placement;
    await cluster.start();
    mailboxesClient = new Mailboxes(placement);
    cleanups.push(() => actors.shutdown({ drainTimeoutMs: config.shutdownTimeoutSeconds * 1000 }));

    // The mail pipeline: ingest → outbox job → parse/assess → actor; sends → outbox job → relay.
    const parser = new MailParser({ workers: config.parseWorkers, timeoutMs: config.parseTimeoutMs, maxBytes: config.smtpMaxMessageBytes + 1024 * 1024 });
    cleanups.push(() => parser.close());
    const recentRaw = new RecentRaw();
    // On PostgreSQL a large raw message is written apart, as binary, on the blob threads; on the
    // embedded database every statement takes its one connection in turn, so every raw message
    // goes with its arrival (src/mail/ingest.ts INLINE_RAW_MAX).
    const ingest = new Ingest(database.db, mailboxesClient, () => runner?.poke(), recentRaw, blobWriter ? { write: blobWriter.write, parallel: 2 } : { inlineRawMax: Infinity });
    const assessor = new Assessor({
      mailDomain: config.mailDomain,
      dnsTimeoutMs: config.dnsTimeoutMs,
      dnsServers: config.dnsServers,
      trust: { relays: config.trustedRelays, authservIds: config.trustedAuthservIds },
    });
    cleanups.push(() => assessor.close());
    metrics.watchAuthVerdicts(assessor.authVerdicts);
    const processor = new InboundProcessor(database.db, mailboxesClient, parser, assessor, recentRaw, config.searchVector);
    const deliverer = new Deliverer(database.db, mailboxesClient, recipients, ingest, {
      relayUrl: config.smtpRelayUrl,
      mailDomain: config.mailDomain,
      maxAttempts: config.deliveryMaxAttempts,
      log,
      ...(blobWriter ? { readBlob: blobWriter.read } : {}),
    });
    cleanups.push(() => deliverer.close());
    const webhooks = await WebhookSystem.start(
      database.db,
      {
        natsUrl: config.natsUrl,
        natsNames: nats,
        secrets,
        nodeId: config.nodeId,
        retryDelaysSeconds: config.webhookRetryDelays,
        timeoutMs: config.webhookTimeoutMs,
        concurrency: config.webhookConcurrency,
        maxEndpointsPerMailbox: config.webhookMaxEndpointsPerMailbox,
        allowPrivateTargets: config.allowPrivateWebhookTargets,
        sweepSeconds: config.webhookSweepSeconds,
        eventRetentionDays: config.eventRetentionDays,
        pollMs: config.jobPollMs,
      },
      log.child({ component: "webhooks" }),
    );
    cleanups.push(() => webhooks.stop());
    webhooksSlot = webhooks;
    runner = new JobRunner(
      database.db,
      {
        "mail.process": { run: processor.handle, failed: processor.failed },
        "mail.deliver": { run: deliverer.handle, failed: deliverer.failed },
        "protocol.auto": autoReplies(mailboxesClient),
      },
      log.child({ component: "jobs" }),
      { pollMs: config.jobPollMs, concurrency: config.jobConcurrency, leaseMs: config.jobLeaseSeconds * 1000, maxAttempts: config.jobMaxAttempts, onFailed: (kind) => metrics.jobFailed(kind) },
    );
    // Stopped before the actors drain (cleanups run in reverse), after HTTP and SMTP stop taking work.
    cleanups.push(() => runner?.stop());

    const idempotency = new IdempotencyStore(database.db, config.idempotencyTtlSeconds, config.idempotencyLeaseSeconds, blobWriter);
    const sweep = setInterval(() => idempotency.sweep().catch((err) => log.warn({ err }, "idempotency sweep failed")), IDEMPOTENCY_SWEEP_MS);
    sweep.unref();
    cleanups.push(() => clearInterval(sweep));

    // One LISTEN for the SSE event streams of this process (stopped below, before the HTTP server).
    const events = new EventFeed((channel, onNotify) => database.listen(channel, onNotify), log.child({ component: "events" }), config.eventStreamsPerMailbox);
    await events.start();
    events.onRelayWork(() => webhooks.poke());

    let draining = false;
    const accounts = new Accounts(database.db, config);
    const senderProfiles = new SenderProfiles(database.db, accounts);
    metrics.watch({ db: database.db, actors, jetstreamBacklog: () => webhooks.jetstreamBacklog() });
    const local = new PooledLocalEngine({ workers: config.intelLocalWorkers, timeoutMs: config.intelLocalTimeoutMs, log: log.child({ component: "intel" }) });
    cleanups.push(() => local.close());
    const engine = config.llm ? new LlmEngine(config.llm, local) : local;
    const json = new JsonIntake({ workers: 1, timeoutMs: 5000 });
    cleanups.push(() => json.close());
    const authenticator = new Authenticator(adminToken, keys);
    const app = createHttpApp({
      db: database.db,
      json,
      accounts,
      suppressions: new Suppressions(database.db, accounts),
      senderProfiles,
      metrics,
      intel: new Intelligence(database.db, senderProfiles, engine, local, log.child({ component: "intel" }), (parts) => local.extractTexts(parts)),
      owners: new Owners(database.db),
      mailboxes: mailboxesClient,
      mail: { ingest, recipients, runner, mailDomain: config.mailDomain, maxMessageBytes: config.smtpMaxMessageBytes },
      authenticator,
      idempotency,
      webhooks,
      log,
      version: pkg.version,
      events,
      hosts: new ProtocolHosts(database.db),
      targets: { allowPrivate: config.allowPrivateWebhookTargets },
      health: {
        nodeId: config.nodeId,
        mode: { database: database.driver, jobs: bus.mode === "nats" ? "nats" : "in-process" },
        ping: () => database.ping(),
        draining: () => draining,
      },
    }).compile();

    const server = Bun.serve({
      port: config.port,
      hostname: config.host,
      // The hottest read, answered from memory before the app when it can be (src/http/fast-read.ts).
      routes: { [FAST_READ_ROUTE]: { GET: fastMailboxRead({ authenticator, mailboxes: mailboxesClient, metrics }, app.fetch) } },
      fetch: app.fetch,
      maxRequestBodySize: 32 * 1024 * 1024,
      idleTimeout: 60,
    });
    // Stop taking requests first, then let in-flight ones finish before the actors drain.
    cleanups.push(async () => {
      draining = true;
      await server.stop(false);
    });
    // Open event streams never end by themselves: close them before the server waits for in-flight requests.
    cleanups.push(() => events.stop());

    const inFlow = new InFlow(database.db, config.smtpInFlowLagMs);
    metrics.watchInFlow(inFlow);
    const smtp = await startSmtpIngress(
      {
        host: config.host,
        port: config.smtpPort,
        hostname: config.mailDomain,
        log: log.child({ component: "smtp" }),
        maxMessageBytes: config.smtpMaxMessageBytes,
        maxClients: config.smtpMaxClients,
        maxClientsPerAddress: config.smtpMaxClientsPerAddress,
        sessionTimeoutMs: config.smtpSessionTimeoutSeconds * 1000,
        dataTimeoutMs: config.smtpDataTimeoutSeconds * 1000,
        minDataRate: config.smtpMinDataRate,
        dataRateGraceMs: config.smtpDataRateGraceSeconds * 1000,
        maxJunkCommands: config.smtpMaxJunkCommands,
        sessions: { opened: () => metrics.smtpSessionOpened(), closed: () => metrics.smtpSessionClosed() },
        tls: config.smtpTls ? { key: readFileSync(config.smtpTls.keyFile), cert: readFileSync(config.smtpTls.certFile) } : undefined,
      },
      smtpBridge(recipients, ingest, inFlow),
    );
    cleanups.push(() => smtp.close());
    // First on SIGTERM: this node's mailboxes go to the others at once; requests still in
    // flight here are forwarded to them.
    cleanups.push(() => cluster.handOver());
    runner.start();

    const httpPort = server.port ?? config.port;
    log.info({ http_port: httpPort, smtp_port: smtp.port, node_id: config.nodeId, database: database.driver, jobs: bus.mode, ...(config.natsUrl ? { nats_prefix: nats.prefix } : {}), secrets_key: secretsKey.source, version: pkg.version }, "ready");

    let stopping: Promise<void> | undefined;
    return {
      httpPort,
      smtpPort: smtp.port,
      adminToken,
      log,
      internals: { nats, database, actors, keys, webhooks, leases: cluster.leases, routes: app.routes.map((r) => `${r.method} ${r.path}`), events },
      stop: () => (stopping ??= runCleanups()),
    };
  } catch (err) {
    await runCleanups();
    throw err;
  }
}
