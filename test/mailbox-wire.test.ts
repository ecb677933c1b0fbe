import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Mailboxes } from "../actors/mailbox/client.ts";
import { mailboxCommands, type MailboxArgs, type MailboxCommandName, type MailboxMessage, type MailboxReply } from "../actors/mailbox/commands.ts";
import {
  decodeCommand,
  decodeOutcome,
  decodeReply,
  decodeValue,
  encodeCommand,
  encodeError,
  encodeMessage,
  encodeOutcome,
  encodeReply,
  encodeValue,
  mailboxWireCodec,
  registerWireError,
  settleReply,
  WireFormatError,
} from "../actors/mailbox/wire.ts";
import { uniqueViolation } from "../src/errors.ts";
import { ActorActivationError, ActorError, ActorStoppedError, ActorTimeoutError, LocalPlacement, UnknownActorKindError, UnknownCommandError, type AskOptions, type Placement } from "../actors/runtime/index.ts";
import { AppError, notFound } from "../src/errors.ts";
import { seedAccount, startTestService, type TestService } from "./harness.ts";

/** What actually crosses the wire between nodes: the JSON text of the encoded form. */
const overTheWire = <T>(x: T): string => JSON.stringify(x);

const at = new Date("2026-11-24T01:02:03.456Z");
/** A row as the database hands it back: dates, nulls, jsonb that may hold anything, a "$" key of a tenant's own. */
const row = (extra: Record<string, unknown> = {}) =>
  ({
    id: "0192f0a4-1111-7000-8000-000000000001",
    mailboxId: "0192f0a4-2222-7000-8000-000000000002",
    createdAt: at,
    updatedAt: new Date(at.getTime() + 1),
    processedAt: null,
    status: "processed",
    references: ["<a@x>", "<b@y>"],
    metadata: { $: "tenant data", nested: [{ $: 1, $$: null }], ["__proto__"]: { polluted: true } },
    size: 0,
    enabled: true,
    ...extra,
  }) as never;

const arrival: MailboxArgs<"receive">[0] = {
  rawSha256: "ab".repeat(32),
  rawSize: 1234,
  recipient: "agent@mail.test",
  envelope: { mailFrom: "ann@example.com", rcptTo: ["agent@mail.test"], remoteAddress: null, heloName: null },
  replyToken: { id: "t1", threadId: "th1" },
  head: { from: "ann@example.com", subject: "Hi", subjectKey: "hi", messageId: "<m@x>", inReplyTo: null, references: [], replyTo: [], cc: [], parties: ["ann@example.com"] },
};
const processed: MailboxArgs<"applyProcessed">[0] = {
  messageId: "m1",
  jobId: null,
  tokenThreadId: "th1",
  result: {
    headers: [{ key: "Subject", value: "Hi" }],
    messageIdHeader: "<m@x>",
    inReplyTo: null,
    references: [],
    subject: null,
    fromAddress: "ann@example.com",
    fromName: undefined,
    toAddresses: ["agent@mail.test"],
    ccAddresses: [],
    replyTo: [],
    textBody: "hello",
    htmlBody: null,
    extractedText: null,
    snippet: "hello",
    attachments: [{ filename: null, mimeType: "text/plain", size: 3, contentId: null, sha256: "cd".repeat(32), rawOffset: null, rawLength: null, transferEncoding: null }],
    assessment: { riskLevel: "low", triageLabel: "fyi", signals: [], auth: { spf: "pass", dkim: "none", dmarc: "none" }, autoReplyBlocked: false },
  },
};
const outgoing = { to: ["bob@example.com"], cc: [], bcc: ["c@example.com"], subject: "Offer", textBody: "Hello", htmlBody: null };
const decision = { allowed: true, limit: 600, remaining: 599, resetInMs: 600000 };

/**
 * Arguments and a reply of every command. Typed against the command map, so a command added
 * there without a case here does not compile; the test below also checks it at run time.
 */
const cases: { [N in MailboxCommandName]: { args: MailboxArgs<N>; reply: MailboxReply<N> } } = {
  get: { args: [], reply: row({ callbackSecret: null }) },
  reload: { args: [], reply: undefined },
  admit: { args: ["key-1"], reply: decision },
  admitMany: { args: ["key-1", 12], reply: { granted: 10, limit: 600, remaining: 0, resetInMs: 1234.5 } },
  poll: { args: ["key-1"], reply: { ...decision, row: row({ callbackSecret: null }) } },
  admitRuntime: { args: ["key-2"], reply: { ...decision, allowed: false, remaining: 0, resetInMs: 0.5, runtime: { tier: "send", mode: "observe" } } },
  setStatus: { args: ["disabled"], reply: row() },
  setPolicy: { args: [{ allowOutbound: false, maxOutboundPerDay: 6, allowAutoReply: undefined }], reply: row() },
  issueKey: { args: ["ci key"], reply: { apiKey: row({ revokedAt: null }), token: "mr_secret" } },
  revokeKey: { args: ["key-1"], reply: row({ revokedAt: at }) },
  callbackSecret: { args: [true], reply: "00ff".repeat(16) },
  createDraft: { args: [{ to: ["a@b.c"], subject: null, inReplyToMessageId: "m1" }], reply: row() },
  updateDraft: { args: ["d1", { textBody: "x", htmlBody: undefined }], reply: row() },
  deleteDraft: { args: ["d1"], reply: row() },
  createLabel: { args: ["Urgent", null], reply: row({ color: null }) },
  deleteLabel: { args: ["l1"], reply: row() },
  setMessageState: { args: ["m1", "archived"], reply: row({ archivedAt: at }) },
  setThreadStatus: { args: ["th1", "open"], reply: row() },
  labelMessage: { args: ["m1", "l1", true], reply: ["l1", "l2"] },
  labelThread: { args: ["th1", "l1", false], reply: [] },
  receive: { args: [arrival], reply: { id: "m1" } },
  applyProcessed: { args: [processed], reply: row() },
  send: { args: [outgoing], reply: { message: row(), jobId: "j1", replyTo: "agent+reply-x@mail.test" } },
  reply: { args: ["m1", { textBody: "ok" }], reply: { message: row(), jobId: "j2", replyTo: "r@mail.test" } },
  sendDraft: { args: ["d1"], reply: { message: row(), jobId: "j3", replyTo: "r@mail.test" } },
  recordDelivery: { args: [{ messageId: "m1", outcome: "sent", detail: "250 ok", providerMessageId: null }], reply: row() },
  recordJobFailure: { args: [{ kind: "mail.process", messageId: "m1", reason: "parser timed out" }], reply: null },
  createAction: { args: ["book", { description: "Book a slot", parameterSchema: { $schema: "x", type: "object", properties: { $: { type: "string" } } }, enabled: true }], reply: row() },
  updateAction: { args: ["book", { enabled: false }], reply: row() },
  deleteAction: { args: ["book"], reply: row() },
  receiveProtocol: {
    args: [{ sender: { mailboxId: "mb2", emailAddress: "b@agents.test" }, input: { from: { agent: "bot" }, action: "book", parameters: { when: "now", $: 2 }, subject: "Book" }, raw: { any: ["json", 1, null, { $: "x" }] } }],
    reply: { message: row(), protocol: row({ parameters: { when: "now" } }) },
  },
  respond: { args: ["m1", "agent", { body: "done", structuredData: { ok: true } }], reply: row({ deliveredAt: null }) },
  autoAct: { args: ["m1"], reply: null },
  setAutopilot: { args: [{ mode: "enforce", rules: [{ if: { from: "x" }, then: ["archive"] }] }], reply: row({ rules: [] }) },
  setBinding: { args: [{ agentId: "agent-1", runtimeBaseUrl: "http://127.0.0.1:9/x", enabled: true }], reply: { binding: row(), created: true, runtimeToken: "tok", signingSecret: "sec" } },
  removeBinding: { args: [], reply: row({ keyId: null }) },
  logRuntime: { args: [{ messageId: null, kind: "send_observed", detail: "only logged", data: { to: ["a@b.c"], subject: null } }], reply: undefined },
  holdSend: { args: ["draft-first", outgoing], reply: { disposition: "draft", draft: row() } },
  holdReply: { args: ["observe", "m1", { cc: ["x@y.z"] }], reply: { disposition: "observed" } },
};

describe("wire format of the mailbox commands", () => {
  test("covers exactly the commands of the map", () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(mailboxCommands).sort());
  });

  for (const name of Object.keys(mailboxCommands) as MailboxCommandName[]) {
    test(`${name}: command and reply come out as they went in`, () => {
      const { args, reply } = cases[name] as { args: unknown[]; reply: unknown };
      const wire = overTheWire(encodeCommand(name, args as never));
      const decoded = decodeCommand(wire);
      expect(decoded.name).toBe(name);
      expect(decoded.args as unknown[]).toStrictEqual(args);
      // The bytes form and the parsed form decode the same.
      expect(decodeCommand(new TextEncoder().encode(wire))).toStrictEqual(decoded);
      expect(decodeCommand(JSON.parse(wire))).toStrictEqual(decoded);
      const back = decodeReply(overTheWire(encodeReply(reply)));
      expect(back).toStrictEqual(reply);
    });
  }

  test("an arrival that carries its raw bytes (a small message) gets them to the owning node byte for byte", () => {
    const raw = new Uint8Array([0, 13, 10, 46, 255, ...new TextEncoder().encode("Subject: hi\r\n\r\nbody\r\n")]);
    for (const bytes of [raw, Buffer.from(raw)]) {
      const decoded = decodeCommand(overTheWire(encodeCommand("receive", [{ ...arrival, raw: bytes }])));
      const [carried] = decoded.args as [MailboxArgs<"receive">[0]];
      expect(carried.raw).toBeInstanceOf(Uint8Array);
      expect(Buffer.compare(Buffer.from(carried.raw!), Buffer.from(raw))).toBe(0);
      expect({ ...carried, raw: undefined }).toStrictEqual({ ...arrival, raw: undefined });
    }
  });

  test("a message as the placement is handed it encodes the same as its parts", () => {
    const msg: MailboxMessage = { name: "setMessageState", args: ["m1", "reviewed"] };
    expect(encodeMessage(msg)).toEqual(encodeCommand("setMessageState", ["m1", "reviewed"]));
  });

  test("dates, undefined, bytes, big and odd numbers, and a tenant's own \"$\" keys survive", () => {
    const value = {
      d: at,
      u: undefined,
      list: [undefined, null, 0, -1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
      bytes: new Uint8Array([0, 1, 2, 255]),
      buffer: Buffer.from("buffer"),
      big: 12345678901234567890n,
      $: { $: "date", v: 0 },
      ["__proto__"]: { x: 1 },
    };
    const back = decodeValue(JSON.parse(overTheWire(encodeValue(value)))) as typeof value;
    expect(back).toStrictEqual(value);
    expect(back.d).toBeInstanceOf(Date);
    expect([Buffer.isBuffer(back.buffer), Buffer.isBuffer(back.bytes)]).toEqual([true, false]);
    // An invalid date stays one (not equal to itself under toStrictEqual, so checked alone).
    const invalid = decodeValue(JSON.parse(overTheWire(encodeValue(new Date(Number.NaN))))) as Date;
    expect([invalid instanceof Date, Number.isNaN(invalid.getTime())]).toEqual([true, true]);
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.hasOwn(back, "__proto__")).toBe(true);
  });

  test("any JSON-like value with dates round-trips (property)", () => {
    const leaf = fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.date({ noInvalidDate: true }), fc.bigInt());
    // (An invalid date round-trips too, checked alone above: toStrictEqual never finds it equal to itself.)
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("node"), { maxLength: 4 }), fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("$", "v", "__proto__")), tie("node"), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        expect(decodeValue(JSON.parse(overTheWire(encodeValue(v))))).toStrictEqual(v);
      }),
      { numRuns: 300 },
    );
  });

  test("encoding and decoding copy only what they change, and never change what they are given", () => {
    const plain = { allowed: true, limit: 600, remaining: 599, list: [1, "a", { deep: null }] };
    expect(encodeValue(plain)).toBe(plain);
    const mixed = { same: { a: 1 }, at, tail: [1, 2] };
    const encoded = encodeValue(mixed) as Record<string, unknown>;
    expect(encoded).not.toBe(mixed);
    expect(encoded.same).toBe(mixed.same);
    expect(encoded.tail).toBe(mixed.tail);
    expect(mixed.at).toBe(at);
    const wire = { same: { a: 1 }, at: { $: "date", v: 0 }, list: [{ $: "undefined" }, 2] };
    const copy = structuredClone(wire);
    const decoded = decodeValue(wire) as { same: unknown; at: Date; list: unknown[] };
    expect(wire).toStrictEqual(copy);
    expect(decoded.same).toBe(wire.same);
    expect(decoded.at).toEqual(new Date(0));
    expect(decoded.list).toEqual([undefined, 2]);
  });

  test("what is not plain data is refused at encoding, not silently changed", () => {
    expect(() => encodeValue(new Map([["a", 1]]))).toThrow(WireFormatError);
    expect(() => encodeValue({ fn: () => 1 })).toThrow(WireFormatError);
    expect(() => encodeReply({ when: new (class Stamp {})() })).toThrow(WireFormatError);
  });

  test("unknown commands and malformed messages are WireFormatError", () => {
    expect(() => decodeCommand({ name: "dropDatabase", args: [] })).toThrow(WireFormatError);
    expect(() => decodeCommand({ name: "toString", args: [] })).toThrow(WireFormatError);
    expect(() => decodeCommand({ name: "get" })).toThrow(WireFormatError);
    expect(() => decodeCommand("{not json")).toThrow(WireFormatError);
    expect(() => decodeReply({ value: 1 })).toThrow(WireFormatError);
    expect(() => decodeValue({ $: "nonsense" })).toThrow(WireFormatError);
  });
});

describe("errors cross the wire as the same typed errors", () => {
  const roundTrip = (err: unknown): unknown => {
    try {
      decodeReply(overTheWire(encodeError(err)));
    } catch (e) {
      return e;
    }
    throw new Error("decodeReply did not throw");
  };

  test("AppError keeps its code, status, message, details and headers", () => {
    const err = new AppError("rate_limit_exceeded", "this mailbox may send 6 messages per hour", { limit: 6, scope: "mailbox_sends", at }, { "Retry-After": "42" });
    const back = roundTrip(err) as AppError;
    expect(back).toBeInstanceOf(AppError);
    expect([back.code, back.status, back.message, back.details, back.headers, back.isPublic]).toEqual([err.code, 429, err.message, err.details, err.headers, true]);
    const nf = roundTrip(notFound("draft", "d1")) as AppError;
    expect([nf.code, nf.status, nf.details]).toEqual(["not_found", 404, { id: "d1" }]);
  });

  test("the runtime's errors keep their class and fields; an activation failure keeps its cause", () => {
    const timeout = roundTrip(new ActorTimeoutError("mailbox", "mb1", 10000)) as ActorTimeoutError;
    expect(timeout).toBeInstanceOf(ActorTimeoutError);
    expect([timeout.kind, timeout.id, timeout.timeoutMs, timeout.message]).toEqual(["mailbox", "mb1", 10000, new ActorTimeoutError("mailbox", "mb1", 10000).message]);

    const stopped = roundTrip(new ActorStoppedError("stopping", { kind: "mailbox", id: "mb1" })) as ActorStoppedError;
    expect(stopped).toBeInstanceOf(ActorStoppedError);
    expect([stopped.message, stopped.kind, stopped.id]).toEqual(["stopping", "mailbox", "mb1"]);
    expect((roundTrip(new ActorStoppedError()) as ActorStoppedError).kind).toBeUndefined();

    const activation = roundTrip(new ActorActivationError("mailbox", "mb1", notFound("mailbox", "mb1"))) as ActorActivationError;
    expect(activation).toBeInstanceOf(ActorActivationError);
    expect(activation.cause).toBeInstanceOf(AppError);
    expect((activation.cause as AppError).status).toBe(404);

    expect(roundTrip(new UnknownActorKindError("nope"))).toBeInstanceOf(UnknownActorKindError);
    const unknown = roundTrip(new UnknownCommandError("mailbox", "nope")) as UnknownCommandError;
    expect([unknown instanceof UnknownCommandError, unknown.command]).toEqual([true, "nope"]);
    const plainActor = roundTrip(new ActorError("odd", { kind: "mailbox" })) as ActorError;
    expect([plainActor.constructor, plainActor.message, plainActor.kind]).toEqual([ActorError, "odd", "mailbox"]);
  });

  test("any other error is a plain Error with its name and message (a fault, as it is locally)", () => {
    const back = roundTrip(new TypeError("x is not a function")) as Error;
    expect([back.constructor, back.name, back.message]).toEqual([Error, "TypeError", "x is not a function"]);
    expect((roundTrip("a string was thrown") as Error).message).toBe("a string was thrown");
    // An AppError code this node does not know (a newer node) is not guessed at.
    const future = decodeReplyError({ ok: false, error: { type: "AppError", code: "from_the_future", message: "m", details: {}, headers: {} } });
    expect(future).not.toBeInstanceOf(AppError);
  });

  test("a database error keeps its SQLSTATE, constraint and cause chain (what the job runner and uniqueViolation read)", () => {
    const driver = Object.assign(new Error('duplicate key value violates unique constraint "labels_name_key"'), { code: "23505", constraint_name: "labels_name_key" });
    const wrapped = new Error("Failed query: insert into labels …", { cause: driver });
    const back = roundTrip(wrapped) as Error & { cause: Error & { code: string; constraint_name: string } };
    expect(back.message).toBe(wrapped.message);
    expect([back.cause.code, back.cause.constraint_name]).toEqual(["23505", "labels_name_key"]);
    expect(uniqueViolation(back)).toEqual({ constraint: "labels_name_key" });
  });

  test("an error class of another module crosses once registered", () => {
    class NotHere extends ActorError {
      constructor(kind: string, id: string, readonly owner: string) {
        super(`${kind}/${id} lives on ${owner}`, { kind, id });
        this.name = "NotHere";
      }
    }
    registerWireError({
      name: "NotHere",
      matches: (err): err is NotHere => err instanceof NotHere,
      encode: (err) => ({ kind: err.kind!, id: err.id!, owner: err.owner }),
      decode: (f) => new NotHere(f.kind as string, f.id as string, f.owner as string),
    });
    const back = roundTrip(new NotHere("mailbox", "mb1", "node-b")) as NotHere;
    expect(back).toBeInstanceOf(NotHere);
    expect([back.kind, back.id, back.owner]).toEqual(["mailbox", "mb1", "node-b"]);
  });

  test("as text, the shape NatsPlacement's codec takes: messages in, outcomes out", () => {
    const msg: MailboxMessage = { name: "createDraft", args: [{ to: ["a@b.c"], subject: null }] };
    expect(mailboxWireCodec.decodeCommand(mailboxWireCodec.encodeCommand(msg))).toStrictEqual(msg);
    const value = cases.send.reply;
    expect(mailboxWireCodec.decodeReply(mailboxWireCodec.encodeReply({ ok: true, value }))).toStrictEqual({ ok: true, value });
    const failed = mailboxWireCodec.decodeReply(mailboxWireCodec.encodeReply({ ok: false, error: new AppError("mailbox_disabled", "off") }));
    expect(failed.ok).toBe(false);
    expect(!failed.ok && failed.error).toBeInstanceOf(AppError);
    // A reply that is not plain data is that node's fault, carried as an error, never a throw.
    const unencodable = decodeOutcome(encodeOutcome({ ok: true, value: new Set([1]) }));
    expect(!unencodable.ok && (unencodable.error as Error).name).toBe("WireFormatError");
    expect(() => decodeOutcome("{}")).toThrow(WireFormatError);
  });

  test("settleReply never rejects: a value, a thrown error and an unencodable reply all become replies", async () => {
    expect(decodeReply(await settleReply(Promise.resolve(cases.get.reply)))).toStrictEqual(cases.get.reply);
    expect(decodeReplyError(await settleReply(Promise.reject(notFound("label", "l1"))))).toBeInstanceOf(AppError);
    expect(decodeReplyError(await settleReply(Promise.resolve(new Map())))).toBeInstanceOf(Error);
  });
});

function decodeReplyError(data: unknown): unknown {
  try {
    decodeReply(data);
  } catch (e) {
    return e;
  }
  throw new Error("decodeReply did not throw");
}

/**
 * A placement that sends every message and reply through the wire format (as JSON text)
 * before and after handing it to the local actors: what a forwarded command goes through.
 */
class WireLoopback implements Placement {
  constructor(private readonly inner: Placement) {}
  private async carry(send: (msg: unknown) => Promise<unknown>, msg: unknown): Promise<unknown> {
    const cmd = decodeCommand(overTheWire(encodeMessage(msg as MailboxMessage)));
    return decodeReply(overTheWire(await settleReply(send(cmd))));
  }
  ask<R>(kind: string, id: string, msg: unknown, opts?: AskOptions): Promise<R> {
    return this.carry((m) => this.inner.ask(kind, id, m, opts), msg) as Promise<R>;
  }
  read<R>(kind: string, id: string, msg: unknown, opts?: AskOptions): Promise<R> {
    return this.carry((m) => this.inner.read(kind, id, m, opts), msg) as Promise<R>;
  }
  tell(kind: string, id: string, msg: unknown): void {
    this.inner.tell(kind, id, decodeCommand(overTheWire(encodeMessage(msg as MailboxMessage))));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe("real commands through the wire format", () => {
  let t: TestService;
  let direct: Mailboxes;
  let wired: Mailboxes;
  let mailboxId: string;

  beforeAll(async () => {
    t = await startTestService();
    const local = new LocalPlacement(t.service.internals.actors);
    direct = new Mailboxes(local);
    wired = new Mailboxes(new WireLoopback(local));
    mailboxId = (await seedAccount(t)).agent.id;
  }, 120_000);
  afterAll(() => t?.stop());

  test("rows with their dates come back as the actor answered them", async () => {
    const row = await wired.get(mailboxId);
    expect(row.createdAt).toBeInstanceOf(Date);
    expect(row).toStrictEqual(await direct.get(mailboxId));
    const draft = await wired.createDraft(mailboxId, { to: ["bob@example.com"], subject: "Hi", textBody: null });
    expect(draft.createdAt).toBeInstanceOf(Date);
    expect(await wired.updateDraft(mailboxId, draft.id, { textBody: "Hello" })).toMatchObject({ id: draft.id, textBody: "Hello", subject: "Hi" });
    const label = await wired.createLabel(mailboxId, "Wire", "#fa0");
    expect(await wired.deleteLabel(mailboxId, label.id)).toStrictEqual(label);
    const decision = await wired.admit(mailboxId, crypto.randomUUID());
    expect(decision).toMatchObject({ allowed: true });
    const polled = await wired.poll(mailboxId, crypto.randomUUID());
    expect(polled).toMatchObject({ allowed: true, remaining: decision.limit - 1 });
    expect(polled.row).toStrictEqual(await direct.get(mailboxId));
    const key = await wired.issueKey(mailboxId, "wire key");
    expect((await wired.revokeKey(mailboxId, key.apiKey.id)).revokedAt).toBeInstanceOf(Date);
    const secret = await wired.callbackSecret(mailboxId, false);
    expect(await wired.callbackSecret(mailboxId, false)).toBe(secret);
    expect(await wired.callbackSecret(mailboxId, true)).not.toBe(secret);
    expect(await wired.logRuntime(mailboxId, { messageId: null, kind: "test", detail: "over the wire", data: {} })).toBeUndefined();
    wired.reload(mailboxId);
    expect((await wired.setPolicy(mailboxId, { maxOutboundPerDay: 7 })).maxOutboundPerDay).toBe(7);
  });

  test("errors come back as the typed errors the HTTP layer renders", async () => {
    const missing = await wired.deleteDraft(mailboxId, crypto.randomUUID()).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(AppError);
    expect((missing as AppError).code).toBe("not_found");
    const taken = await wired.createLabel(mailboxId, "Twice", null).then(() => wired.createLabel(mailboxId, "twice", null)).catch((e: unknown) => e);
    expect((taken as AppError).code).toBe("label_exists");
    const noMailbox = await wired.get(crypto.randomUUID()).catch((e: unknown) => e);
    expect(noMailbox).toBeInstanceOf(ActorActivationError);
    expect(((noMailbox as ActorActivationError).cause as AppError).status).toBe(404);
  });
});
