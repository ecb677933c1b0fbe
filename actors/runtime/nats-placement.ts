/**
 * NatsPlacement: every (kind, id) lives on the one node that holds the lease of its
 * partition; any other node forwards the message there over NATS and hands back the answer.
 *
 * The runtime stays a library: who owns what (`Ownership`) and how messages travel as bytes
 * (`WireCodec`) are given to it. Subjects: `{subjectPrefix}.{node}` per node (requests),
 * `{subjectPrefix}.nudge` (ownership changed: look again), and one reply inbox per node.
 *
 * A forwarded ask runs this protocol on the owner's reply subject:
 *   "R"          the node does not hold the partition (any more): nothing ran, ask elsewhere;
 *   "A"          accepted: it runs (sent only when the answer takes longer than ACK_AFTER_MS);
 *   "V" + reply  the outcome, the handler's own errors included.
 * With no answer at all within `ackWaitMs` (the owner is gone or frozen) the forwarder looks
 * up the owner again and retries until its deadline; past it, PlacementUnavailableError:
 * nothing ran. Every attempt of one ask carries the same ask id, and an owner that was only
 * slow (a stalled event loop reads the first attempt and its retries together) runs the
 * command once and answers each attempt with that one outcome: a retry never runs a write
 * twice (a send sent twice, a rate window counted twice). After an "A", the forwarder waits for the outcome as long as the owner keeps
 * its lease; if the lease moves without an outcome, PlacementOutcomeUnknownError.
 * A "p" request (probe) is answered "P" and runs nothing; the server's "no responders" to any
 * request says the node's subject has no subscriber (it is reported to `unreachable`).
 *
 * Each node PINGs its NATS server every `pingMs` (`reachableSince`: the proof that its own
 * subject is served, which the ownership may make a condition of serving), and messages out
 * leave in one batch per turn of the event loop: the requests of a turn to one node travel
 * as one NATS message, and so do the answers of a turn to one node (see `envelope`).
 */
import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import { AskMemory, type AskOrigin } from "./ask-memory.ts";
import { safeLog } from "./logger.ts";
import type { Placement } from "./placement.ts";
import type { ActorSystem } from "./system.ts";
import { ActorError, type ActorLogger, type AskOptions } from "./types.ts";

/** Who owns which partition; implemented outside the runtime (leases in a database). */
export interface Ownership {
  /** This node's address (a subject token). */
  readonly self: string;
  partitionOf(id: string): number;
  /** The epoch of the lease this node holds and may serve under now; undefined when it must not. */
  held(partition: number): number | undefined;
  /** The node to forward to, as far as this node knows; undefined when nobody holds it. */
  ownerOf(partition: number): string | undefined;
  /** Ownership may have changed: read it again (coalesced; resolves when read). */
  refresh(): Promise<void>;
  /**
   * The NATS server answered "no responders" for `node`'s subject to a request queued at
   * `sentAt` and answered at `seenAt` (performance.now()): the node may be dead.
   */
  unreachable?(node: string, sentAt: number, seenAt: number): void;
}

export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Messages and outcomes as text, errors included (they come out as the same typed errors). */
export interface WireCodec {
  encodeCommand(msg: unknown): string;
  decodeCommand(text: string): unknown;
  encodeReply(outcome: Outcome): string;
  decodeReply(text: string): Outcome;
}

/** The node that was asked does not hold the actor's lease: nothing ran; ask the owner. */
export class NotOwnerError extends ActorError {
  constructor(kind: string, id: string, why = "this node does not hold the lease") {
    super(`${kind}/${id}: ${why}`, { kind, id });
    this.name = "NotOwnerError";
  }
}

/** No owner could be reached before the deadline; the message never ran anywhere. */
export class PlacementUnavailableError extends ActorError {
  constructor(
    kind: string,
    id: string,
    readonly retryAfterMs: number,
  ) {
    super(`no node holding ${kind}/${id} could be reached in time; the message was not run`, { kind, id });
    this.name = "PlacementUnavailableError";
  }
}

/** The owner accepted the message, then lost its lease without answering: it ran or not. */
export class PlacementOutcomeUnknownError extends ActorError {
  constructor(kind: string, id: string) {
    super(`the node running a message of ${kind}/${id} lost its lease before answering`, { kind, id });
    this.name = "PlacementOutcomeUnknownError";
  }
}

export interface NatsPlacementOptions {
  nc: NatsConnection;
  /** e.g. `{prefix}.actors`: node subjects are `{subjectPrefix}.{node}`. */
  subjectPrefix: string;
  system: ActorSystem;
  ownership: Ownership;
  codec: WireCodec;
  /** Deadline to reach an owner (and start) when the ask gives none. */
  askTimeoutMs: number;
  /** The reach deadline of an ask with timeoutMs 0 ("wait your turn however long"). Default 60 s. */
  unboundedReachMs?: number;
  /** Silence after which a forward is taken as lost and the owner looked up again. Default 1 s. */
  ackWaitMs?: number;
  /** Period of the PING that proves this node's connection (and so its subject) alive. Default 200 ms. */
  pingMs?: number;
  /** Under load, how long after a flush the next waits for company (see `send`). Default 1 ms. */
  flushGapMs?: number;
  /** This node's connection changed (lost, or a new one made): what was proven on the old one is void. */
  onConnectionChange?: () => void;
  /** The first PING after a connection change was answered: the node's subscription is on the server again. */
  onConnectionProven?: () => void;
  logger: ActorLogger;
}

const ACK_AFTER_MS = 100;
/**
 * How long at least an owner remembers a forwarded ask's outcome after it settled, for retries
 * of the same ask: they follow the first attempt by at most the forwarder's silence wait each,
 * and a stalled owner reads them in the same batch as the first.
 */
const ASK_MEMORY_MS = 5_000;
const DRAIN_POLL_MS = 10;
/**
 * One timer per node checks every deadline of the protocol (a forward's silence, an owner's
 * "A") at this period, instead of a timer armed and cleared per message: the deadlines are
 * hundreds of milliseconds, so this much lateness changes nothing.
 */
const SWEEP_MS = 20;
/**
 * Under load, how long after a flush the next one waits (see `send`): at most a millisecond
 * more per hop, for 8% more reads a second with two nodes on two CPUs (bench/cluster-read.ts).
 */
const FLUSH_GAP_MS = 1;

interface Pending {
  /** An answer's text, or null: the server said nobody listens on the node's subject. */
  onMessage(text: string | null): void;
  /** performance.now() at which `onDue` runs (Infinity: none). */
  due: number;
  onDue(): void;
}

/** A forwarded message running here, answered "A" if it is still running at `ackAt`. */
interface Serving {
  reply: string;
  ackAt: number;
}

type Outgoing = {
  subject: string;
  data: string;
  reply?: string;
  failed?: () => void;
  /** An answer to a request that came in an envelope: it may go back in one. */
  enveloped?: boolean;
};

export class NatsPlacement implements Placement {
  private readonly nc: NatsConnection;
  private readonly system: ActorSystem;
  private readonly own: Ownership;
  private readonly codec: WireCodec;
  private readonly subjectPrefix: string;
  private readonly inbox: string;
  private readonly pending = new Map<string, Pending>();
  private readonly inflight = new Map<number, number>();
  private readonly subs: Subscription[] = [];
  private readonly serving = new Set<Serving>();
  /** Envelopes of requests sent, by the name their "no responders" would come to: the asks inside. */
  private readonly envelopes = new Map<string, { batch: Outgoing[]; until: number }>();
  /** Node subjects that answered an envelope "no responders" (gone, or a node that takes none), until when. */
  private readonly plain = new Map<string, number>();
  private readonly nodeSubjectPrefix: string;
  private readonly replyPrefix: string;
  /** Forwarded asks run here by ask id, for their retries. */
  private readonly asks = new AskMemory(ASK_MEMORY_MS);
  private askSeq = 0;
  /** This node's asks (by number) not yet ended; every ask numbered below `askLow` has ended. */
  private readonly asking = new Set<number>();
  private askLow = 1;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private outbox: Outgoing[] = [];
  private readonly ackWaitMs: number;
  private readonly unboundedReachMs: number;
  private seq = 0;
  private closed = false;
  /** performance.now() at which the latest PING answered on the current connection was sent. */
  private provenAt = -Infinity;
  /** Bumped on every disconnect and reconnect: a PONG of an older connection proves nothing. */
  private connection = 0;
  private pinger: ReturnType<typeof setInterval> | undefined;
  private changed = false;

  constructor(private readonly opts: NatsPlacementOptions) {
    this.nc = opts.nc;
    this.system = opts.system;
    this.own = opts.ownership;
    this.codec = opts.codec;
    this.subjectPrefix = opts.subjectPrefix;
    this.ackWaitMs = opts.ackWaitMs ?? 1000;
    this.flushGapMs = opts.flushGapMs ?? FLUSH_GAP_MS;
    this.unboundedReachMs = opts.unboundedReachMs ?? 60_000;
    this.inbox = `${opts.subjectPrefix}.reply.${opts.ownership.self}`;
    this.nodeSubjectPrefix = `${opts.subjectPrefix}.node.`;
    this.replyPrefix = `${opts.subjectPrefix}.reply.`;
    this.subs.push(
      this.nc.subscribe(`${this.inbox}.*`, {
        callback: (err, msg) => {
          if (err) return safeLog(opts.logger, "warn", { err }, "placement reply subscription error");
          const token = msg.subject.slice(this.inbox.length + 1);
          if (token === ENVELOPE) return this.answers(msg.string());
          const noResponders = msg.data.length === 0 && msg.headers?.code === 503;
          if (token.charCodeAt(0) === 78 /* N */) {
            if (noResponders) this.unanswered(token);
            return;
          }
          this.pending.get(token)?.onMessage(noResponders ? null : msg.string());
        },
      }),
      this.nc.subscribe(`${opts.subjectPrefix}.node.${opts.ownership.self}`, {
        callback: (err, msg) => {
          if (err) return safeLog(opts.logger, "warn", { err }, "placement request subscription error");
          this.serve(msg.string(), msg.reply ?? "", false);
        },
      }),
      // Envelopes come on a subject of their own: a node that does not take them has no
      // subscriber there, and the sender, told "no responders", sends their messages one by one.
      this.nc.subscribe(`${opts.subjectPrefix}.node.${opts.ownership.self}.${ENVELOPE}`, {
        callback: (err, msg) => {
          if (err) return safeLog(opts.logger, "warn", { err }, "placement envelope subscription error");
          try {
            unpack(msg.string(), (reply, frame) => this.serve(frame, reply, true));
          } catch (err) {
            safeLog(opts.logger, "warn", { err }, "placement: malformed envelope dropped");
          }
        },
      }),
      this.nc.subscribe(`${opts.subjectPrefix}.nudge`, { callback: () => void this.own.refresh().catch(() => {}) }),
    );
    this.pinger = setInterval(() => this.ping(), opts.pingMs ?? 200);
    this.pinger.unref?.();
    this.ping();
    void this.watchConnection();
  }

  /**
   * Whether this node's own subject was served by the NATS server at some moment after
   * `since` (performance.now()): a PING sent at or after it was answered on the connection
   * that carries the subscription. When a server answers "no responders" for this node, no
   * PING sent later than that is answered on that connection, so `reachableSince(t)` turns
   * false for every `t` after it. The cluster makes it a condition of serving (leases.ts).
   */
  reachableSince(since: number): boolean {
    return !this.closed && this.provenAt >= since;
  }

  /** Probes `node`'s subject: "absent" (the server has no subscriber), "present", or "unknown" (no answer in time). */
  probe(node: string, timeoutMs = 250): Promise<"absent" | "present" | "unknown"> {
    const token = (++this.seq).toString(36);
    return new Promise((resolve) => {
      const finish = (v: "absent" | "present" | "unknown") => {
        if (this.pending.delete(token)) resolve(v);
      };
      this.pending.set(token, {
        due: performance.now() + timeoutMs,
        onDue: () => finish("unknown"),
        onMessage: (text) => finish(text === null ? "absent" : "present"),
      });
      this.arm();
      this.send({ subject: this.nodeSubject(node), data: requestFrame("", "", "p", 0, ""), reply: `${this.inbox}.${token}`, failed: () => finish("unknown") });
    });
  }

  private ping(): void {
    if (this.closed || this.nc.isClosed()) return;
    const sentAt = performance.now();
    const connection = this.connection;
    this.nc.flush().then(
      () => {
        if (connection !== this.connection) return;
        if (sentAt > this.provenAt) this.provenAt = sentAt;
        if (this.changed) {
          this.changed = false;
          this.hook(this.opts.onConnectionProven);
        }
      },
      () => {},
    );
  }

  private async watchConnection(): Promise<void> {
    try {
      for await (const s of this.nc.status()) {
        if (s.type !== "disconnect" && s.type !== "reconnect" && s.type !== "staleConnection" && s.type !== "forceReconnect") continue;
        this.connection++;
        this.provenAt = -Infinity;
        this.changed = true;
        this.hook(this.opts.onConnectionChange);
        if (s.type === "reconnect") this.ping();
      }
    } catch {
      // The connection is closed: nothing more to watch.
    }
  }

  private hook(fn: (() => void) | undefined): void {
    try {
      fn?.();
    } catch (err) {
      safeLog(this.opts.logger, "warn", { err }, "placement: connection hook failed");
    }
  }

  ask<R = unknown>(kind: string, id: string, msg: unknown, opts?: AskOptions): Promise<R> {
    return this.route(kind, id, msg, opts, false) as Promise<R>;
  }

  read<R = unknown>(kind: string, id: string, msg: unknown, opts?: AskOptions): Promise<R> {
    return this.route(kind, id, msg, opts, true) as Promise<R>;
  }

  tell(kind: string, id: string, msg: unknown): void {
    const p = this.own.partitionOf(id);
    if (this.own.held(p) !== undefined) return this.system.tell(kind, id, msg);
    const owner = this.own.ownerOf(p);
    if (owner === undefined || this.closed) return;
    let frame: string;
    try {
      frame = requestFrame(kind, id, "t", 0, this.codec.encodeCommand(msg));
    } catch (err) {
      return safeLog(this.opts.logger, "warn", { err, kind, id }, "could not forward a tell");
    }
    this.send({ subject: this.nodeSubject(owner), data: frame, failed: () => safeLog(this.opts.logger, "warn", { kind, id }, "could not forward a tell") });
  }

  /** A local ask run at once (see Placement.runNow): only on the node holding the lease, only when the actor is idle. */
  runNow(kind: string, id: string, msg: unknown): { value: unknown } | undefined {
    const p = this.own.partitionOf(id);
    if (this.own.held(p) === undefined || this.closed) return undefined;
    let now: { value: unknown } | undefined;
    try {
      now = this.system.runNow(kind, id, msg);
    } catch (err) {
      // The fence refused to start it (the lease just went): nothing ran; the caller asks.
      if (err instanceof NotOwnerError) return undefined;
      throw err;
    }
    // A handler that awaits keeps the partition busy (drain waits for it), as runLocal does.
    if (now !== undefined && now.value instanceof Promise) {
      this.enter(p);
      now.value.then(
        () => this.leave(p),
        () => this.leave(p),
      );
    }
    return now;
  }

  /** Tells every node to look at ownership again now (a partition was released). */
  nudge(): void {
    if (this.closed) return;
    try {
      this.nc.publish(`${this.subjectPrefix}.nudge`, "");
    } catch {
      // The periodic look-up still finds the change.
    }
  }

  /**
   * Waits until no message of the partition runs here (at most `timeoutMs`), then passivates
   * its actors, so a later owner starts from the database. The partition must already be
   * out of `held()`: nothing new starts here meanwhile.
   */
  async drain(partition: number, timeoutMs: number): Promise<void> {
    const until = performance.now() + timeoutMs;
    while ((this.inflight.get(partition) ?? 0) > 0 && performance.now() < until) await Bun.sleep(DRAIN_POLL_MS);
    const matches = (_kind: string, id: string) => this.own.partitionOf(id) === partition;
    for (let i = 0; i < 50; i++) {
      if ((await this.system.passivateMatching(matches)) === 0) return;
      await Bun.sleep(DRAIN_POLL_MS);
    }
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.flushOutbox();
      for (const sub of this.subs) sub.unsubscribe();
      if (this.sweeper !== undefined) clearInterval(this.sweeper);
      this.sweeper = undefined;
      if (this.pinger !== undefined) clearInterval(this.pinger);
    }
    await this.system.shutdown();
  }

  private nodeSubject(node: string): string {
    return `${this.subjectPrefix}.node.${node}`;
  }

  /**
   * An ask or read to wherever its actor lives. The usual forwarded case, an owner known and
   * answering the first attempt, takes one promise and no async frame: it runs on every
   * forwarded request, and the retry loop is needed only once an attempt goes unanswered.
   */
  private route(kind: string, id: string, msg: unknown, opts: AskOptions | undefined, read: boolean): Promise<unknown> {
    const timeoutMs = opts?.timeoutMs;
    const reachMs = timeoutMs === undefined ? this.opts.askTimeoutMs : timeoutMs === 0 || timeoutMs === Infinity ? this.unboundedReachMs : timeoutMs;
    // One id for every attempt of this ask, so an owner that got an earlier attempt runs it once;
    // beside it, the number below which all of this node's asks have ended, so that the owner
    // can forget their outcomes at once (AskMemory.ended).
    const seq = read ? 0 : ++this.askSeq;
    if (!read) this.asking.add(seq);
    const ask: Routed = {
      kind,
      id,
      msg,
      opts,
      read,
      p: this.own.partitionOf(id),
      deadline: performance.now() + reachMs,
      payload: undefined,
      seq,
      askId: read ? undefined : `${this.own.self}.${seq.toString(36)} ${this.askLow.toString(36)}`,
    };
    const owner = this.own.held(ask.p) === undefined ? this.remoteOwner(ask.p) : undefined;
    if (owner === undefined) return this.attempts(ask, 0);
    let first: Promise<Outcome | typeof UNREACHED>;
    try {
      first = this.forward(owner, this.frameOf(ask), ask.p, ask.deadline, kind, id);
    } catch (err) {
      this.routeEnded(ask);
      return Promise.reject(err);
    }
    return first.then((answer) => {
      if (answer === UNREACHED) return this.attempts(ask, 1);
      this.routeEnded(ask);
      if (answer.ok) return answer.value;
      throw answer.error;
    });
  }

  /** The attempts of an ask from its `tries`-th on, until one is answered or the deadline passes. */
  private async attempts(ask: Routed, tries: number): Promise<unknown> {
    let backoff = 20;
    try {
      for (;; tries++) {
        if (tries > 0) {
          if (performance.now() >= ask.deadline) throw new PlacementUnavailableError(ask.kind, ask.id, 1000);
          await this.own.refresh().catch(() => {});
          // A new owner is usually known after one look; otherwise leases are moving: wait a little.
          if (tries > 1) {
            await Bun.sleep(Math.min(backoff, Math.max(0, ask.deadline - performance.now())));
            backoff = Math.min(backoff * 2, 250);
          }
        }
        if (this.own.held(ask.p) !== undefined) {
          const local = await this.runLocal(ask.kind, ask.id, ask.msg, ask.opts, ask.read, ask.p);
          if (local !== NOT_OWNER) return local;
          continue;
        }
        const owner = this.remoteOwner(ask.p);
        if (owner === undefined) continue;
        const answer = await this.forward(owner, this.frameOf(ask), ask.p, ask.deadline, ask.kind, ask.id);
        if (answer === UNREACHED) continue;
        if (answer.ok) return answer.value;
        throw answer.error;
      }
    } finally {
      this.routeEnded(ask);
    }
  }

  /** The node to forward to: the partition's owner as far as this node knows, when it is another node and this one is open. */
  private remoteOwner(p: number): string | undefined {
    const owner = this.own.ownerOf(p);
    return owner !== undefined && owner !== this.own.self && !this.closed ? owner : undefined;
  }

  /** The request of an attempt, its deadline at the owner what is left of ours (0 keeps "no deadline"). */
  private frameOf(ask: Routed): string {
    ask.payload ??= this.codec.encodeCommand(ask.msg);
    const ownerTimeout = ask.opts?.timeoutMs === 0 ? 0 : Math.max(1, Math.ceil(ask.deadline - performance.now()));
    return requestFrame(ask.kind, ask.id, ask.read ? "r" : "a", ownerTimeout, ask.payload, ask.askId);
  }

  private routeEnded(ask: Routed): void {
    if (!ask.read) this.askEnded(ask.seq);
  }

  /** An ask of this node ended (answered, failed or given up): it is never sent again. */
  private askEnded(seq: number): void {
    this.asking.delete(seq);
    while (this.askLow <= this.askSeq && !this.asking.has(this.askLow)) this.askLow++;
  }

  private async runLocal(kind: string, id: string, msg: unknown, opts: AskOptions | undefined, read: boolean, p: number): Promise<unknown> {
    this.enter(p);
    try {
      return await (read ? this.system.read(kind, id, msg, opts) : this.system.ask(kind, id, msg, opts));
    } catch (err) {
      if (err instanceof NotOwnerError) return NOT_OWNER;
      throw err;
    } finally {
      this.leave(p);
    }
  }

  /** One attempt at the owner: its outcome, or UNREACHED when it answered "R" or not at all. */
  private forward(owner: string, frame: string, p: number, deadline: number, kind: string, id: string): Promise<Outcome | typeof UNREACHED> {
    const token = (++this.seq).toString(36);
    const queuedAt = performance.now();
    return new Promise((resolve) => {
      let accepted = false;
      let lostSince = 0;
      const finish = (v: Outcome | typeof UNREACHED) => {
        if (!this.pending.delete(token)) return;
        resolve(v);
      };
      // Before the "A": silence means lost. After it: wait while the owner keeps the lease,
      // and give up when another node has held it for a second without an outcome.
      const pending: Pending = {
        due: performance.now() + Math.max(1, Math.min(this.ackWaitMs, deadline - performance.now())),
        onDue: () => {
          if (!accepted) return finish(UNREACHED);
          void this.own.refresh().catch(() => {});
          if (this.own.ownerOf(p) === owner) lostSince = 0;
          else if (lostSince === 0) lostSince = performance.now();
          else return finish({ ok: false, error: new PlacementOutcomeUnknownError(kind, id) });
          pending.due = performance.now() + 1000;
        },
        onMessage: (text) => {
          // The server's "no responders": nobody listens on that node's subject (it is gone).
          if (text === null) {
            this.own.unreachable?.(owner, queuedAt, performance.now());
            return finish(UNREACHED);
          }
          const tag = text.charCodeAt(0);
          if (tag === 65 /* A */) {
            accepted = true;
            pending.due = performance.now() + 1000;
            return;
          }
          if (tag === 82 /* R */) return finish(UNREACHED);
          try {
            finish(this.codec.decodeReply(text.slice(1)));
          } catch (err) {
            finish({ ok: false, error: err });
          }
        },
      };
      this.pending.set(token, pending);
      this.arm();
      this.send({ subject: this.nodeSubject(owner), data: frame, reply: `${this.inbox}.${token}`, failed: () => finish(UNREACHED) });
    });
  }

  /**
   * Messages to other nodes leave together once per turn of the event loop: every request and
   * answer made while handling one batch of socket reads goes out in one socket write (the
   * client flushes after each microtask otherwise, a write per message under load).
   *
   * Under load they wait longer: when the last flush carried several messages, or other asks
   * of this node are in flight, and the last flush left less than `flushGapMs` ago, the next
   * leaves when the gap has passed rather than on the next turn. Each flush is a socket write,
   * a NATS message and a wakeup of the server and of the other node, and on two busy CPUs
   * those, not the messages, were the cost. A lone ask (one agent's calls one after another)
   * still leaves on the next turn.
   */
  private send(out: Outgoing): void {
    if (this.outbox.push(out) !== 1) return;
    const since = performance.now() - this.lastFlushAt;
    const loaded = this.lastFlushSize > 1 || this.pending.size > 1;
    if (loaded && since < this.flushGapMs) setTimeout(this.flushOutbox, this.flushGapMs - since);
    else setImmediate(this.flushOutbox);
  }

  private readonly flushGapMs: number;
  private lastFlushAt = -Infinity;
  private lastFlushSize = 0;

  private readonly flushOutbox = (): void => {
    const out = this.outbox;
    if (out.length === 0) return;
    this.lastFlushAt = performance.now();
    this.lastFlushSize = out.length;
    this.outbox = [];
    if (out.length === 1) return this.publish(out[0]!);
    // Requests go by node subject, answers by the asker's inbox; a large message goes alone,
    // after what was queued before it for the same place, so their order holds.
    const groups = new Map<string, Outgoing[]>();
    for (const o of out) {
      // An answer to a placement's inbox goes by that inbox; one to any other requester alone.
      const answer = o.reply === undefined && !o.subject.startsWith(this.nodeSubjectPrefix);
      if (answer ? !o.enveloped || !o.subject.startsWith(this.replyPrefix) : this.isPlain(o.subject)) {
        this.publish(o);
        continue;
      }
      const key = answer ? o.subject.slice(0, o.subject.lastIndexOf(".")) : o.subject;
      let group = groups.get(key);
      if (o.data.length > MAX_ENVELOPED) {
        if (group) this.envelope(key, group.splice(0));
        this.publish(o);
        continue;
      }
      if (!group) groups.set(key, (group = []));
      group.push(o);
    }
    for (const [key, group] of groups) this.envelope(key, group);
  };

  private publish(o: Outgoing): void {
    try {
      if (this.nc.isClosed()) throw new Error("the NATS connection is closed");
      this.nc.publish(o.subject, o.data, o.reply === undefined ? undefined : { reply: o.reply });
    } catch {
      o.failed?.();
    }
  }

  /**
   * Messages to one place as one NATS message ("B" + each one's reply subject and data), in
   * pieces of at most MAX_ENVELOPE characters: the client and the server handle a message, not
   * its size, so a turn's forwards cost them once. A request envelope asks the server's "no
   * responders" to `{inbox}.N…`, which hands it to every request inside (see `unanswered`).
   */
  private envelope(key: string, group: Outgoing[]): void {
    for (let start = 0; start < group.length; ) {
      let size = 0;
      let end = start;
      while (end < group.length && (end === start || size + group[end]!.data.length <= MAX_ENVELOPE)) size += group[end++]!.data.length;
      if (end - start === 1) {
        this.publish(group[start]!);
        start = end;
        continue;
      }
      const batch = group.slice(start, end);
      start = end;
      const isAnswer = batch[0]!.reply === undefined && key !== batch[0]!.subject;
      let data = "B";
      for (const o of batch) {
        const label = isAnswer ? o.subject.slice(key.length + 1) : (o.reply ?? "");
        data += `${label.length} ${o.data.length}\n${label}${o.data}`;
      }
      let reply: string | undefined;
      if (!isAnswer) {
        const name = `N${(++this.seq).toString(36)}`;
        this.envelopes.set(name, { batch, until: performance.now() + ENVELOPE_MEMORY_MS });
        this.arm();
        reply = `${this.inbox}.${name}`;
      }
      this.publish({
        subject: `${key}.${ENVELOPE}`,
        data,
        reply,
        failed: () => {
          for (const o of batch) o.failed?.();
        },
      });
    }
  }

  /** An envelope of answers from another node: each to the ask waiting for it. */
  private answers(text: string): void {
    try {
      unpack(text, (token, frame) => this.pending.get(token)?.onMessage(frame));
    } catch (err) {
      safeLog(this.opts.logger, "warn", { err }, "placement: malformed answers dropped");
    }
  }

  /**
   * The server found nobody on the subject an envelope of requests went to: the node is gone,
   * or it takes no envelopes (an older version). Its messages go again one by one, where a
   * gone node's "no responders" reaches each ask; that node gets no envelopes for a while.
   */
  private unanswered(name: string): void {
    const sent = this.envelopes.get(name);
    if (!sent) return;
    this.envelopes.delete(name);
    const subject = sent.batch[0]!.subject;
    this.plain.set(subject, performance.now() + PLAIN_MS);
    for (const o of sent.batch) {
      if (o.reply === undefined || this.pending.has(o.reply.slice(this.inbox.length + 1))) this.send(o);
    }
  }

  private isPlain(subject: string): boolean {
    const until = this.plain.get(subject);
    if (until === undefined) return false;
    if (until > performance.now()) return true;
    this.plain.delete(subject);
    return false;
  }

  private arm(): void {
    if (this.sweeper !== undefined || this.closed) return;
    this.sweeper = setInterval(this.sweep, SWEEP_MS);
    this.sweeper.unref?.();
  }

  private readonly sweep = (): void => {
    const now = performance.now();
    for (const pending of this.pending.values()) if (pending.due <= now) pending.onDue();
    // Kept in the order sent, each for the same time: the first one still due ends the sweep
    // (at a thousand envelopes a second, two seconds of them scanned 50 times a second showed).
    for (const [name, sent] of this.envelopes) {
      if (sent.until > now) break;
      this.envelopes.delete(name);
    }
    for (const s of this.serving) {
      if (s.ackAt > now) continue;
      this.serving.delete(s);
      this.send({ subject: s.reply, data: "A" });
    }
    if (this.pending.size === 0 && this.serving.size === 0 && this.envelopes.size === 0 && this.sweeper !== undefined) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  };

  /** A message from another node for an actor this node should hold. */
  private serve(text: string, reply: string, enveloped: boolean): void {
    let req: Request;
    try {
      req = parseRequest(text);
    } catch (err) {
      safeLog(this.opts.logger, "warn", { err }, "placement: malformed request dropped");
      return;
    }
    if (req.mode === "p") {
      if (reply) this.send({ subject: reply, data: "P", enveloped });
      return;
    }
    const p = this.own.partitionOf(req.id);
    if (req.mode === "t") {
      if (this.own.held(p) !== undefined) this.system.tell(req.kind, req.id, this.codec.decodeCommand(req.payload));
      return;
    }
    if (!reply) return;
    if (this.own.held(p) === undefined || this.closed) return this.send({ subject: reply, data: "R", enveloped });
    let cmd: unknown;
    try {
      cmd = this.codec.decodeCommand(req.payload);
    } catch (err) {
      return this.send({ subject: reply, data: `V${this.codec.encodeReply({ ok: false, error: err })}`, enveloped });
    }
    const askId = req.askId;
    const origin = askId === undefined ? undefined : originOf(askId);
    // The forwarder has ended its asks below this one's mark: their outcomes are not needed.
    if (origin !== undefined && req.endedBelow !== undefined) this.asks.ended(origin.source, req.endedBelow);
    let serving: Serving | undefined;
    const answer = (frame: string) => {
      if (serving !== undefined) this.serving.delete(serving);
      this.send({ subject: reply, data: frame, enveloped, failed: () => safeLog(this.opts.logger, "warn", {}, "placement: could not answer a forwarded message") });
    };
    // A retry of an ask that ran or runs here: the same outcome, not a second run.
    if (askId !== undefined && this.asks.attempt(askId, answer)) return;
    this.enter(p);
    const settle = (frame: string) => {
      this.leave(p);
      // "R" ran nothing: a retry may run it (here, if the lease came back meanwhile).
      if (askId !== undefined) this.asks.settle(askId, frame, frame !== "R", origin);
      answer(frame);
    };
    const ok = (value: unknown) => settle(this.outcomeFrame({ ok: true, value }));
    const failed = (error: unknown) => settle(error instanceof NotOwnerError ? "R" : this.outcomeFrame({ ok: false, error }));
    // An idle actor runs it at once, as a local caller's runNow would: no turn through its
    // inbox, no promise, and the answer leaves with this batch's others.
    let now: { value: unknown } | undefined;
    if (req.mode === "a") {
      try {
        now = this.system.runNow(req.kind, req.id, cmd);
      } catch (error) {
        return failed(error);
      }
    }
    if (now !== undefined && !(now.value instanceof Promise)) return ok(now.value);
    serving = { reply, ackAt: performance.now() + ACK_AFTER_MS };
    this.serving.add(serving);
    this.arm();
    const run = now !== undefined ? (now.value as Promise<unknown>) : req.mode === "r" ? this.system.read(req.kind, req.id, cmd, { timeoutMs: req.timeoutMs }) : this.system.ask(req.kind, req.id, cmd, { timeoutMs: req.timeoutMs });
    run.then(ok, failed);
  }

  /** "V" and the outcome; one the codec cannot carry becomes that failure. */
  private outcomeFrame(outcome: Outcome): string {
    try {
      return `V${this.codec.encodeReply(outcome)}`;
    } catch (err) {
      return `V${this.codec.encodeReply({ ok: false, error: err })}`;
    }
  }

  private enter(p: number): void {
    this.inflight.set(p, (this.inflight.get(p) ?? 0) + 1);
  }

  private leave(p: number): void {
    const n = (this.inflight.get(p) ?? 1) - 1;
    if (n <= 0) this.inflight.delete(p);
    else this.inflight.set(p, n);
  }
}

/** Messages longer than this (characters) travel alone; envelopes stay well under NATS's 1 MB. */
const MAX_ENVELOPED = 16_000;
const MAX_ENVELOPE = 200_000;
/** How long a "no responders" to an envelope is still handed to its asks (it comes within a round trip). */
const ENVELOPE_MEMORY_MS = 2_000;
/** The last token of an envelope's subject: `{node subject}.B`, `{inbox}.B` (tokens of asks are lower-case base 36). */
const ENVELOPE = "B";
/** How long a node that answered an envelope "no responders" is sent none. */
const PLAIN_MS = 10_000;

/** Calls `each(label, data)` for every message of an envelope made by `envelope`. */
function unpack(text: string, each: (label: string, data: string) => void): void {
  let at = 1;
  while (at < text.length) {
    const space = text.indexOf(" ", at);
    const nl = text.indexOf("\n", space + 1);
    if (space < 0 || nl < 0) throw new Error("malformed placement envelope");
    const labelLength = Number(text.slice(at, space));
    const dataLength = Number(text.slice(space + 1, nl));
    const end = nl + 1 + labelLength + dataLength;
    if (!Number.isInteger(labelLength) || !Number.isInteger(dataLength) || labelLength < 0 || dataLength < 0 || end > text.length) throw new Error("malformed placement envelope");
    each(text.slice(nl + 1, nl + 1 + labelLength), text.slice(nl + 1 + labelLength, end));
    at = end;
  }
}

const NOT_OWNER = Symbol("not owner");

/** An ask or read on its way (route): what every attempt of it shares. */
interface Routed {
  kind: string;
  id: string;
  msg: unknown;
  opts: AskOptions | undefined;
  read: boolean;
  p: number;
  deadline: number;
  /** The encoded message, made by the first attempt that forwards it. */
  payload: string | undefined;
  seq: number;
  askId: string | undefined;
}
const UNREACHED = Symbol("unreached");

interface Request {
  kind: string;
  id: string;
  /** "a" ask, "r" read, "t" tell, "p" probe (answered "P", nothing runs). */
  mode: "a" | "r" | "t" | "p";
  timeoutMs: number;
  payload: string;
  /** The same for every attempt of one forwarded ask ("a" only). */
  askId?: string | undefined;
  /** The forwarder's mark beside the ask id: every ask it numbered below this has ended. */
  endedBelow?: number | undefined;
}

/**
 * `{mode}{timeoutMs}[ {askId}[ {endedBelow}]]\n{kind}\n{id}\n{payload}`: the routing fields never
 * need the codec. The placement's ask ids are `{node}.{n}` (n in base 36, counting up), and the
 * mark after them (base 36) says below which n all of that node's asks have ended. `askId`
 * here is both, as the forwarder made them once for every attempt.
 */
function requestFrame(kind: string, id: string, mode: Request["mode"], timeoutMs: number, payload: string, askId?: string): string {
  return `${mode}${timeoutMs}${askId === undefined ? "" : ` ${askId}`}\n${kind}\n${id}\n${payload}`;
}

function parseRequest(text: string): Request {
  const a = text.indexOf("\n");
  const b = text.indexOf("\n", a + 1);
  const c = text.indexOf("\n", b + 1);
  if (a < 2 || b < 0 || c < 0) throw new Error("malformed placement request");
  const mode = text[0] as Request["mode"];
  if (mode !== "a" && mode !== "r" && mode !== "t" && mode !== "p") throw new Error("malformed placement request");
  const space = text.indexOf(" ");
  const timeoutEnd = space > 0 && space < a ? space : a;
  const timeoutMs = Number(text.slice(1, timeoutEnd));
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutEnd === 1) throw new Error("malformed placement request");
  const ask = timeoutEnd < a ? text.slice(timeoutEnd + 1, a) : undefined;
  if (ask === "") throw new Error("malformed placement request");
  const markAt = ask === undefined ? -1 : ask.indexOf(" ");
  const askId = markAt < 0 ? ask : ask!.slice(0, markAt);
  // A mark that does not read as a number is ignored: the outcome is then kept for its generations.
  const mark = markAt < 0 ? undefined : parseInt(ask!.slice(markAt + 1), 36);
  if (askId === "") throw new Error("malformed placement request");
  return { mode, timeoutMs, askId, endedBelow: mark !== undefined && Number.isSafeInteger(mark) ? mark : undefined, kind: text.slice(a + 1, b), id: text.slice(b + 1, c), payload: text.slice(c + 1) };
}

/** The forwarding node and the ask's number in a placement ask id (`{node}.{n}`); undefined for any other id. */
function originOf(askId: string): AskOrigin | undefined {
  const dot = askId.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const seq = parseInt(askId.slice(dot + 1), 36);
  return Number.isSafeInteger(seq) ? { source: askId.slice(0, dot), seq } : undefined;
}
