/**
 * Reused SPF/DKIM/DMARC verdicts of unsigned mail (src/mail/assess/auth-verdicts.ts): what
 * the key reads, when a verdict is reused and when it is not, and that a reused verdict is the
 * one mailauth gives the message itself.
 */
import { describe, expect, test } from "bun:test";
import { AuthVerdicts, verdictKey } from "../src/mail/assess/auth-verdicts.ts";
import { Assessor } from "../src/mail/assess/index.ts";
import { parseInline } from "../src/mail/parse/convert.ts";
import type { AuthResults, Envelope } from "../src/mail/types.ts";
import { startDnsStub } from "./fixtures/dns-stub.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const envelope = (remoteAddress = "203.0.113.9", mailFrom: string | null = "news@sender.example", heloName = "mx.sender.example"): Envelope => ({
  mailFrom,
  rcptTo: ["bob@mail.localhost"],
  remoteAddress,
  heloName,
});

/** A message whose Message-ID, Date, Subject and body are its own: none of them is read by mailauth for unsigned mail. */
let seq = 0;
function message(opts: { from?: string; extra?: string } = {}) {
  seq++;
  return bytes(
    `From: ${opts.from ?? "News <news@sender.example>"}\r\n` +
      (opts.extra ?? "") +
      `To: bob@mail.localhost\r\nSubject: Issue ${seq}\r\nMessage-ID: <${seq}.${crypto.randomUUID()}@sender.example>\r\nDate: Mon, 30 Nov 2026 10:00:${String(seq % 60).padStart(2, "0")} +0000\r\n\r\nBody number ${seq}.\r\n`,
  );
}

describe("the key", () => {
  test("is the same for messages that differ only in what mailauth does not read", () => {
    expect(verdictKey(message(), envelope())).not.toBeNull();
    expect(verdictKey(message(), envelope())).toBe(verdictKey(message(), envelope())!);
  });

  test("differs with the client's IP, HELO, MAIL FROM, From and Return-Path", () => {
    const key = verdictKey(message(), envelope())!;
    const others = [
      verdictKey(message(), envelope("198.51.100.1")),
      verdictKey(message(), envelope(undefined, "other@sender.example")),
      verdictKey(message(), envelope(undefined, null)),
      verdictKey(message(), envelope(undefined, undefined, "mx2.sender.example")),
      verdictKey(message({ from: "News <news@other.example>" }), envelope()),
      verdictKey(message({ from: "News <news@sender.example>,\r\n bob@evil.example" }), envelope()),
      verdictKey(message({ extra: "Return-Path: <bounce@sender.example>\r\n" }), envelope()),
    ];
    for (const other of others) expect(other).not.toBe(key);
    expect(new Set(others).size).toBe(others.length);
  });

  test("reads the head as mailauth does: a second From spelled with space before the colon counts", () => {
    // mailauth takes "From :" for a From field (RFC 5322's obsolete syntax); with two, DMARC sees two authors.
    expect(verdictKey(message({ extra: "From : ceo@victim.example\r\n" }), envelope())).not.toBe(verdictKey(message(), envelope())!);
    expect(verdictKey(message({ extra: "FROM: ceo@victim.example\r\n" }), envelope())).not.toBe(verdictKey(message(), envelope())!);
  });

  test("there is none for signed mail, an ARC set, or a head too large to read on the event loop", () => {
    expect(verdictKey(message({ extra: "DKIM-Signature: v=1; a=rsa-sha256; d=sender.example; s=s; h=from; bh=x; b=y\r\n" }), envelope())).toBeNull();
    expect(verdictKey(message({ extra: "dkim-signature :\r\n v=1; d=sender.example\r\n" }), envelope())).toBeNull();
    expect(verdictKey(message({ extra: "ARC-Seal: i=1; a=rsa-sha256; cv=none; d=relay.example; s=s; b=z\r\n" }), envelope())).toBeNull();
    expect(verdictKey(message({ extra: `X-Padding: ${"a".repeat(17 * 1024)}\r\n` }), envelope())).toBeNull();
    expect(verdictKey(message({ extra: "X-Line: a\r\n".repeat(300) }), envelope())).toBeNull();
    expect(verdictKey(message({ from: `${Array.from({ length: 100 }, (_, i) => `user${i}@sender.example`).join(", ")}` }), envelope())).toBeNull();
  });
});

describe("the verdicts kept", () => {
  const pass: AuthResults = { spf: "pass", dkim: "none", dmarc: "pass" };

  test("are reused until they expire, and one being made is shared", async () => {
    let now = 1_000;
    const verdicts = new AuthVerdicts(() => now, 30_000);
    let made = 0;
    const make = async () => (made++, await Bun.sleep(5), pass);
    const [a, b] = await Promise.all([verdicts.verdictFor("k", make), verdicts.verdictFor("k", make)]);
    expect([a, b, made]).toEqual([pass, pass, 1]);
    now += 29_999;
    expect(await verdicts.verdictFor("k", make)).toEqual(pass);
    expect(made).toBe(1);
    expect(verdicts.reused).toBe(2);
    now += 1;
    await verdicts.verdictFor("k", make);
    expect(made).toBe(2);
  });

  test("a temperror or a failure is not kept", async () => {
    const verdicts = new AuthVerdicts();
    let made = 0;
    await verdicts.verdictFor("k", async () => (made++, { spf: "temperror", dkim: "none", dmarc: "temperror" }));
    expect(verdicts.size).toBe(0);
    await expect(verdicts.verdictFor("k", async () => (made++, Promise.reject(new Error("thread died"))))).rejects.toThrow("thread died");
    expect(verdicts.size).toBe(0);
    await verdicts.verdictFor("k", async () => (made++, pass));
    expect([made, verdicts.size, verdicts.reused]).toEqual([3, 1, 0]);
  });

  test("are bounded: the oldest goes first", async () => {
    const verdicts = new AuthVerdicts(Date.now, 30_000, 3);
    for (const k of ["a", "b", "c", "d"]) await verdicts.verdictFor(k, async () => pass);
    expect(verdicts.size).toBe(3);
    let made = 0;
    await verdicts.verdictFor("a", async () => (made++, pass));
    await verdicts.verdictFor("d", async () => (made++, pass));
    expect(made).toBe(1);
  });
});

describe("an assessor reusing verdicts", () => {
  const ZONE: Record<string, string> = {
    "sender.example": "v=spf1 ip4:203.0.113.9 -all",
    "_dmarc.sender.example": "v=DMARC1; p=reject",
  };
  function resolver(seen: string[], fail = () => false) {
    return async (name: string, rrtype: string) => {
      seen.push(`${rrtype} ${name}`);
      if (fail()) throw Object.assign(new Error(`query${rrtype} ESERVFAIL ${name}`), { code: "ESERVFAIL" });
      const txt = rrtype === "TXT" ? ZONE[name.toLowerCase()] : undefined;
      if (txt === undefined) throw Object.assign(new Error(`query${rrtype} ENOTFOUND ${name}`), { code: "ENOTFOUND" });
      return [[txt]];
    };
  }
  async function assess(assessor: Assessor, raw: Uint8Array, env: Envelope) {
    const mail = await parseInline(raw);
    return assessor.assess({ raw, mail, headers: mail.headers, envelope: env });
  }

  test("a burst from one sender asks DNS once, and each message gets the verdict mailauth gives it alone", async () => {
    const seen: string[] = [];
    const assessor = new Assessor({ mailDomain: "mail.localhost", resolver: resolver(seen), reuseVerdicts: true });
    const fresh = new Assessor({ mailDomain: "mail.localhost", resolver: resolver([]) });
    const burst = Array.from({ length: 20 }, () => message());
    const results = await Promise.all(burst.map((raw) => assess(assessor, raw, envelope())));
    const asked = seen.length;
    expect(asked).toBeGreaterThan(0);
    for (const r of results) expect(r.auth).toEqual({ spf: "pass", dkim: "none", dmarc: "pass" });
    expect(assessor.authVerdicts!.reused).toBe(19);
    expect((await assess(fresh, burst[7]!, envelope())).auth).toEqual(results[7]!.auth);

    // Another client address, or another author, is its own question.
    const elsewhere = await assess(assessor, message(), envelope("198.51.100.1"));
    expect(elsewhere.auth).toEqual({ spf: "fail", dkim: "none", dmarc: "fail" });
    expect(elsewhere.auth).toEqual((await assess(fresh, message(), envelope("198.51.100.1"))).auth);
    const spoofed = await assess(assessor, message({ from: "Boss <ceo@victim.example>" }), envelope());
    expect(spoofed.auth).toEqual((await assess(fresh, message({ from: "Boss <ceo@victim.example>" }), envelope())).auth);
    expect(spoofed.auth.dmarc).not.toBe("pass");
    expect(seen.length).toBeGreaterThan(asked);
  });

  test("a DNS failure is asked again on the next message", async () => {
    const seen: string[] = [];
    let failing = true;
    const assessor = new Assessor({ mailDomain: "mail.localhost", resolver: resolver(seen, () => failing), reuseVerdicts: true });
    expect((await assess(assessor, message(), envelope())).auth.spf).toBe("temperror");
    failing = false;
    const asked = seen.length;
    expect((await assess(assessor, message(), envelope())).auth).toEqual({ spf: "pass", dkim: "none", dmarc: "pass" });
    expect(seen.length).toBeGreaterThan(asked);
    expect(assessor.authVerdicts!.reused).toBe(0);
  });

  test("with a resolver of its own an assessor does not reuse unless asked", () => {
    expect(new Assessor({ mailDomain: "mail.localhost", resolver: resolver([]) }).authVerdicts).toBeNull();
    expect(new Assessor({ mailDomain: "mail.localhost" }).authVerdicts).not.toBeNull();
  });
});

describe("authentication started before the parse", () => {
  test("assess() takes the verdict it is handed instead of asking again, and authenticate() never rejects", async () => {
    const seen: string[] = [];
    const zone = async (name: string, rrtype: string) => {
      seen.push(`${rrtype} ${name}`);
      if (name === "sender.example" && rrtype === "TXT") return [["v=spf1 ip4:203.0.113.9 -all"]];
      throw Object.assign(new Error(`query${rrtype} ENOTFOUND ${name}`), { code: "ENOTFOUND" });
    };
    const assessor = new Assessor({ mailDomain: "mail.localhost", resolver: zone });
    const raw = message();
    // Started with nothing parsed yet, as the mail.process job starts it.
    const auth = assessor.authenticate(raw, envelope());
    const mail = await parseInline(raw);
    const asked = seen.length;
    const r = await assessor.assess({ raw, mail, headers: mail.headers, envelope: envelope(), auth });
    expect(r.auth).toEqual({ spf: "pass", dkim: "none", dmarc: "none" });
    expect(seen.length).toBe(asked);
    expect(asked).toBeGreaterThan(0);

    const exploding = () => {
      throw new Error("resolver exploded");
    };
    const broken = new Assessor({ mailDomain: "mail.localhost", resolver: exploding });
    expect(await broken.authenticate(raw, envelope())).toMatchObject({ spf: "temperror", dmarc: "temperror" });
  });
});

describe("the auth threads (the system's DNS, or DNS_SERVERS)", () => {
  test("ask the configured servers, and check unsigned mail of many senders at once, not one after another", async () => {
    const stub = await startDnsStub({ zone: { "sender.example": "v=spf1 ip4:203.0.113.9 -all" }, delayMs: 150 });
    const assessor = new Assessor({ mailDomain: "mail.localhost", dnsServers: [stub.address] });
    const serial = new Assessor({ mailDomain: "mail.localhost", dnsServers: [stub.address], authConcurrency: 1, reuseVerdicts: false });
    try {
      // Only the stub knows sender.example: a pass proves the thread asked it.
      expect(await assessor.authenticate(message(), envelope())).toEqual({ spf: "pass", dkim: "none", dmarc: "none" });
      stub.maxInFlight = 0;
      const many = await Promise.all(Array.from({ length: 12 }, (_, i) => assessor.authenticate(message(), envelope(undefined, `news@s${i}.example`))));
      expect(many.every((r) => r.spf === "none")).toBe(true);
      // Twelve messages' lookups were waiting at the server together (one thread, 32 at a time).
      expect(stub.maxInFlight).toBeGreaterThanOrEqual(12);

      stub.maxInFlight = 0;
      const one = await Promise.all(Array.from({ length: 4 }, (_, i) => serial.authenticate(message(), envelope(undefined, `news@t${i}.example`))));
      expect(one.every((r) => r.spf === "none")).toBe(true);
      // One message at a time: its SPF and DMARC lookups at most.
      expect(stub.maxInFlight).toBeLessThanOrEqual(2);
    } finally {
      await Promise.all([assessor.close(), serial.close(), stub.close()]);
    }
  });

  test("signed mail still goes one at a time to a thread of its own", async () => {
    const stub = await startDnsStub({ delayMs: 200 });
    const assessor = new Assessor({ mailDomain: "mail.localhost", dnsServers: [stub.address] });
    try {
      stub.maxInFlight = 0;
      const signed = (i: number) => message({ extra: `DKIM-Signature: v=1; a=rsa-sha256; d=s${i}.example; s=sel; h=from; bh=AAAA; b=BBBB\r\n` });
      const results = await Promise.all(Array.from({ length: 4 }, (_, i) => assessor.authenticate(signed(i), envelope(undefined, `news@s${i}.example`))));
      for (const r of results) expect(r.dkim).not.toBe("pass");
      // One message at a time: its own lookups at most (checked together, the four SPF lookups wait at once).
      expect(stub.maxInFlight).toBeLessThanOrEqual(2);
      expect(assessor.authVerdicts!.size).toBe(0);
    } finally {
      await Promise.all([assessor.close(), stub.close()]);
    }
  });
});
