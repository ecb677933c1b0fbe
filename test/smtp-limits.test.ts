import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { clientGroup } from "../src/smtp/client-address.ts";
import { seedAccount, startTestService, type TestService } from "./harness.ts";
import { rfc822, smtpSend, waitForMessage } from "./mail-support.ts";
import { captureLog, fakePipeline, RawClient, sleep, start, stopSmtpServers } from "./smtp-support.ts";

/**
 * The limits that keep one client from holding the listener: connections per address, a
 * session time limit, commands without progress, and a DATA time limit and minimum rate.
 * Small limits through the options; the assertions are on replies and closure, never time.
 */

afterEach(stopSmtpServers);

const PER_ADDRESS = (group: string) => `421 4.7.0 mx.mail.test Too many connections from ${group}, try again later`;
const SESSION_LIMIT = "421 4.4.2 Session time limit reached, closing connection";
const DATA_LIMIT = "421 4.4.2 DATA time limit reached, message not accepted";
const DATA_SLOW = "421 4.4.2 DATA too slow, message not accepted";
const JUNK_LIMIT = "421 4.7.0 Too many commands without a message, closing connection";

async function greeted(port: number, from?: string): Promise<RawClient> {
  const c = await RawClient.connect(port, from);
  expect(await c.reply()).toStartWith("220 ");
  return c;
}

/** Sends DATA content a few bytes at a time until the server stops listening; the reply it got. */
async function trickle(c: RawClient, bytes: number, everyMs: number): Promise<string> {
  const reply = c.reply();
  let settled = false;
  void reply.then(() => (settled = true));
  c.write("Subject: slow\r\n\r\n");
  while (!settled && !c.closed) {
    c.write("z".repeat(bytes));
    await sleep(everyMs);
  }
  return reply;
}

describe("client groups", () => {
  test("IPv4 is counted per address, IPv6 per /64", () => {
    expect(clientGroup("192.0.2.7")).toBe("192.0.2.7");
    expect(clientGroup("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(clientGroup("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
    expect(clientGroup("2001:0DB8:0001:0002::1")).toBe("2001:db8:1:2::/64");
    expect(clientGroup("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(clientGroup("::1")).toBe("0:0:0:0::/64");
    expect(clientGroup("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(clientGroup("64:ff9b::192.0.2.7")).toBe("64:ff9b:0:0::/64");
    expect(clientGroup(undefined)).toBe("unknown");
  });
});

describe("connections per client address", () => {
  test("the 4th connection from one address gets 421 naming it, another address still connects, and closing frees a slot", async () => {
    const sessions = { opened: 0, closed: 0 };
    const { port } = await start(fakePipeline(), {
      maxClientsPerAddress: 3,
      sessions: { opened: () => void sessions.opened++, closed: () => void sessions.closed++ },
    });
    const held = [await greeted(port), await greeted(port), await greeted(port)];

    const extra = await RawClient.connect(port);
    expect(await extra.reply()).toBe(PER_ADDRESS("127.0.0.1"));
    await extra.closedPromise();
    const other = await greeted(port, "127.0.0.2");
    expect(await other.cmd("EHLO client.example.org")).toStartWith("250-");

    // A refused connection that closed gave back nothing it never had: still full.
    await sleep(50);
    const again = await RawClient.connect(port);
    expect(await again.reply()).toBe(PER_ADDRESS("127.0.0.1"));
    await again.closedPromise();

    expect(await held[0]!.cmd("QUIT")).toStartWith("221 ");
    await held[0]!.closedPromise();
    await sleep(50);
    const next = await greeted(port);
    expect(await next.cmd("NOOP")).toStartWith("250 ");
    // Only admitted sessions are counted, open and closed alike.
    expect(sessions).toEqual({ opened: 5, closed: 1 });
  });

  test("a flood over the per-address cap takes none of the SMTP_MAX_CLIENTS slots", async () => {
    const { log, lines } = captureLog();
    const { port } = await start(fakePipeline(), { maxClients: 4, maxClientsPerAddress: 2, log });
    await greeted(port);
    await greeted(port);
    const flood = await Promise.all(Array.from({ length: 10 }, () => RawClient.connect(port)));
    // While the flood is still connected, the other address gets both remaining slots.
    const others = await Promise.all([RawClient.connect(port, "127.0.0.2"), RawClient.connect(port, "127.0.0.2")]);
    for (const c of others) expect(await c.reply()).toStartWith("220 ");
    for (const c of flood) expect(await c.reply()).toBe(PER_ADDRESS("127.0.0.1"));
    // Logged, but not once per refused connection.
    const logged = lines.filter((l) => l.msg === "smtp refused");
    expect(logged.length).toBeGreaterThanOrEqual(1);
    expect(logged.length).toBeLessThan(flood.length);
    expect(logged[0]).toMatchObject({ group: "127.0.0.1", code: 421, limit: 2 });
  });

  test("SMTP_MAX_CLIENTS still refuses with its own text first", async () => {
    const { port } = await start(fakePipeline(), { maxClients: 2, maxClientsPerAddress: 3 });
    await greeted(port);
    await greeted(port, "127.0.0.2");
    const extra = await RawClient.connect(port, "127.0.0.3");
    expect(await extra.reply()).toBe("421 mx.mail.test Too many connected clients, try again in a moment");
  });
});

describe("session limits", () => {
  test("a client that keeps the session alive with NOOP is closed at the session limit", async () => {
    const { port } = await start(fakePipeline(), { sessionTimeoutMs: 1500, maxJunkCommands: 100_000 });
    const c = await greeted(port);
    let reply = await c.cmd("EHLO client.example.org");
    while (reply.startsWith("250")) {
      await sleep(100);
      reply = await c.cmd("NOOP");
    }
    expect(reply).toBe(SESSION_LIMIT);
    await c.closedPromise();
  });

  test("commands without progress are capped; an accepted message starts the count over", async () => {
    const { log, lines } = captureLog();
    const { port, pipeline } = await start(fakePipeline(), { maxJunkCommands: 4, log });
    const c = await greeted(port);
    await c.cmd("EHLO client.example.org");
    expect(await c.cmd("NOOP")).toStartWith("250 ");
    expect(await c.cmd("RSET")).toStartWith("250 ");
    expect(await c.cmd("MAIL FROM:<sender@example.org>")).toStartWith("250 ");
    expect(await c.cmd("RCPT TO:<alice@mail.test>")).toStartWith("250 ");
    // A refusal counts as well: four so far.
    expect(await c.cmd("RCPT TO:<nobody@mail.test>")).toStartWith("550 ");
    expect(await c.cmd("VRFY alice")).toStartWith("252 ");
    expect(await c.cmd("DATA")).toStartWith("354 ");
    expect(await c.cmd("Subject: x\r\n\r\nhi\r\n.")).toStartWith("250 ");
    for (let i = 0; i < 4; i++) expect(await c.cmd("NOOP")).toStartWith("250 ");
    expect(await c.cmd("NOOP")).toBe(JUNK_LIMIT);
    await c.closedPromise();
    expect(pipeline.delivered).toHaveLength(1);
    expect(lines.filter((l) => l.msg === "smtp session cut").map((l) => l.code)).toEqual([421]);
  });

  test("a message being stored when the session limit passes still gets its 250, then the session ends", async () => {
    const { port, pipeline } = await start(fakePipeline(), { sessionTimeoutMs: 1000 });
    let release!: () => void;
    pipeline.acceptImpl = async (raw, envelope) => {
      await new Promise<void>((resolve) => (release = resolve));
      pipeline.delivered.push({ raw: Buffer.from(raw), envelope });
      return { ids: ["msg_late"] };
    };
    const c = await RawClient.ready(port);
    expect(await c.cmd("DATA")).toStartWith("354 ");
    const reply = c.cmd("Subject: x\r\n\r\nhi\r\n.");
    while (!release) await sleep(5);
    // Wait past the session limit while accept holds the message.
    await sleep(1500);
    expect(c.closed).toBe(false);
    release();
    expect(await reply).toBe("250 2.0.0 Ok: queued as msg_late");
    expect(await c.reply()).toBe(SESSION_LIMIT);
    await c.closedPromise();
    expect(pipeline.delivered).toHaveLength(1);
  });

  test("the session limit also ends a DATA still arriving, and nothing of it is kept", async () => {
    const { port, pipeline } = await start(fakePipeline(), { sessionTimeoutMs: 1500, minDataRate: 0 });
    const c = await RawClient.ready(port);
    expect(await c.cmd("DATA")).toStartWith("354 ");
    expect(await trickle(c, 20, 100)).toBe(SESSION_LIMIT);
    await c.closedPromise();
    await sleep(50);
    expect(pipeline.delivered).toHaveLength(0);
  });
});

describe("DATA limits", () => {
  test("a DATA under the minimum rate is cut with 421 and nothing is kept, while a normal mail alongside gets 250", async () => {
    const { log, lines } = captureLog();
    const { port, pipeline } = await start(fakePipeline(), { minDataRate: 1000, dataRateGraceMs: 1000, log });
    const slow = await RawClient.ready(port);
    expect(await slow.cmd("DATA")).toStartWith("354 ");
    const cut = trickle(slow, 10, 100);

    const fast = await RawClient.ready(port, "bob@mail.test");
    expect(await fast.cmd("DATA")).toStartWith("354 ");
    expect(await fast.cmd(`Subject: fast\r\n\r\n${"f".repeat(5000)}\r\n.`)).toBe("250 2.0.0 Ok: queued as msg_1");

    expect(await cut).toBe(DATA_SLOW);
    await slow.closedPromise();
    // The session that was not cut goes on.
    expect(await fast.cmd("NOOP")).toStartWith("250 ");
    expect(pipeline.delivered.map((d) => d.envelope.rcptTo[0]!.address)).toEqual(["bob@mail.test"]);
    const logged = lines.find((l) => l.msg === "smtp session cut");
    expect(logged).toMatchObject({ code: 421, minDataRate: 1000 });
    expect(lines.some((l) => l.msg === "smtp client left during DATA; partial message dropped")).toBe(false);
  });

  test("a DATA that keeps the rate but passes the DATA time limit is cut with 421 and nothing is kept", async () => {
    const { port, pipeline } = await start(fakePipeline(), { dataTimeoutMs: 1500, minDataRate: 10 });
    const c = await RawClient.ready(port);
    expect(await c.cmd("DATA")).toStartWith("354 ");
    expect(await trickle(c, 100, 100)).toBe(DATA_LIMIT);
    await c.closedPromise();
    await sleep(50);
    expect(pipeline.delivered).toHaveLength(0);

    // The listener takes the next client as usual.
    const next = await RawClient.ready(port);
    expect(await next.cmd("DATA")).toStartWith("354 ");
    expect(await next.cmd("Subject: ok\r\n\r\nhi\r\n.")).toStartWith("250 ");
    expect(pipeline.delivered).toHaveLength(1);
  });
});

describe("through the service and its settings", () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({
      SMTP_MAX_CLIENTS_PER_ADDRESS: "3",
      SMTP_SESSION_TIMEOUT_SECONDS: "2",
      SMTP_MIN_DATA_RATE: "1000",
      SMTP_DATA_RATE_GRACE_SECONDS: "1",
    });
  });
  afterAll(() => t.stop());

  test("the 4th connection from 127.0.0.1 gets 421 while 127.0.0.2 connects; a NOOP loop ends at the session limit", async () => {
    const port = t.service.smtpPort;
    const held = [await greeted(port), await greeted(port), await greeted(port)];
    const extra = await RawClient.connect(port);
    expect(await extra.reply()).toBe(PER_ADDRESS("127.0.0.1").replace("mx.mail.test", "mail.localhost"));
    const other = await greeted(port, "127.0.0.2");

    let reply = await other.cmd("EHLO client.example.org");
    while (reply.startsWith("250")) {
      await sleep(100);
      reply = await other.cmd("NOOP");
    }
    expect(reply).toBe(SESSION_LIMIT);
    // The held ones reach their limit too, and their slots come back.
    for (const c of held) {
      expect(await c.reply()).toBe(SESSION_LIMIT);
      await c.closedPromise();
    }
    await sleep(50);
    expect(await (await greeted(port)).cmd("NOOP")).toStartWith("250 ");
  });

  test("a slow DATA is cut and nothing of it is stored, while a normal mail alongside is stored", async () => {
    const seed = await seedAccount(t);
    const to = seed.agent.email_address as string;
    const slow = await RawClient.connect(t.service.smtpPort);
    expect(await slow.reply()).toStartWith("220 ");
    await slow.cmd("EHLO slow.example.org");
    expect(await slow.cmd("MAIL FROM:<slow@example.org>")).toStartWith("250 ");
    expect(await slow.cmd(`RCPT TO:<${to}>`)).toStartWith("250 ");
    expect(await slow.cmd("DATA")).toStartWith("354 ");
    const cut = trickle(slow, 10, 100);

    const info = await smtpSend(t.service.smtpPort, { from: "fast@example.org", to: [to] }, rfc822({ From: "fast@example.org", To: to, Subject: "fast one" }));
    expect(info.response).toStartWith("250 ");
    const id = /queued as ([0-9a-f-]{36})/.exec(info.response)![1]!;

    expect(await cut).toBe(DATA_SLOW);
    await slow.closedPromise();
    await waitForMessage(t, id);
    const list = await t.api("GET", `/v1/mailboxes/${seed.agent.id}/messages`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((m: any) => m.id)).toEqual([id]);
  });
});
