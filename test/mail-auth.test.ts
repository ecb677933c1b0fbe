/**
 * SPF, DKIM and DMARC through mailauth on Bun, against fixed DNS answers.
 *
 * The DKIM fixtures were signed once with mailauth's dkimSign and throw-away keys from
 * node:crypto generateKeyPairSync (RSA 2048 and Ed25519), signTime 2024-03-12T09:30:05Z, no
 * expiry; the private keys were discarded. The public halves are the TXT records below.
 * signal-dkim_fail.eml is a third signed copy whose body was changed after signing
 * ("9:00" → "8:00").
 */
import { describe, expect, test } from "bun:test";
import { createPublicKey } from "node:crypto";
import { Assessor } from "../src/mail/assess/index.ts";
import { checkAuth, deadlineResolver } from "../src/mail/assess/auth.ts";
import { cachingResolver } from "../src/mail/assess/dns-cache.ts";
import { parseInline } from "../src/mail/parse/convert.ts";
import type { Envelope } from "../src/mail/types.ts";

const DKIM_RSA_P =
  "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA519OMi1bL84MYvJQ52OAqhucFRTHtYeoIuOCjFG7F/yC8M7iGTUyQXuJAI4nESZZMx8N70uSsvSPxE2Q/R9TDLj2Xh0/s5ZtFxviS8dY29wQvEbF8tQ9xVe0TEeZgnCSOLzL0Br5x73SrxIO5VfLpk+DgkNj5a5DeO2rxSFwpYRuiBjRNGbn8evtcqwEXKzDFZbTRd/PQPwhze9sXrII5BzfBa4QDXlbmr1SIwbabWnixBP24T9npTFkw23RCxvRYwFQThIlJaC8pYUqWdcT2CMYgbGO+MAi6DYIxrNCy1V19K2ESCCa/HhqbOMkUXR+jMNL2hOXL2t4VEhg26V9HwIDAQAB";
const DKIM_ED25519_P = "xWZHAfsF/Do+Vb4l+htwaM2sSFC8hQNW2yykZsM7b4k=";
// signal-dkim-pass-nodemailer.eml was signed by nodemailer's own DKIM signer (stream transport),
// so verification is also checked against an implementation other than mailauth's.
const DKIM_NODEMAILER_P =
  "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAvUg3AfSg8zGOD7oXHVDegAA8DEVl6GtCVBgmwzJK35gE4soWEotGxwPoa2JM+l1dnuK/XmsdN0z9AFsG1KZQDhuXjItfHilrvy3ngKArErx7cBJjJFglISMd3v1vNxlZtIjqyxFm8W2VIJZlrIsXMWhM7tLAVYyRFViFkVnL3dZue2t88NtvtV24rOzF4xvrmncscSVvZyZL8HyMQqxmW/F7ijOHZeUQUh9VB5ADxN7ZiNSY+423ZrTDJ2hpPONy5gbOoUZCgsaOcj32O2ellduI/7lRXkyxPnHaEFKGhxgalftDLTA8bQidPnL6F7SgMuzpRhpBI3tRvbP0axQJGQIDAQAB";
const RSA_RECORD = `v=DKIM1; k=rsa; p=${DKIM_RSA_P}`;
const ED25519_RECORD = `v=DKIM1; k=ed25519; p=${DKIM_ED25519_P}`;

type Zone = Record<string, string>;

/** A resolver answering TXT from `zone` (keyed by name) and NXDOMAIN for everything else. */
function zoneResolver(zone: Zone, seen: string[] = []) {
  return async (name: string, rrtype: string) => {
    seen.push(`${rrtype} ${name}`);
    const txt = rrtype === "TXT" ? zone[name.toLowerCase()] : undefined;
    if (txt === undefined) throw Object.assign(new Error(`query${rrtype} ENOTFOUND ${name}`), { code: "ENOTFOUND" });
    return [[txt]];
  };
}

const fixture = async (name: string) => new Uint8Array(await Bun.file(new URL(`./fixtures/mime/signal-${name}.eml`, import.meta.url)).arrayBuffer());
const text = (raw: Uint8Array) => new TextDecoder().decode(raw);
const bytes = (s: string) => new TextEncoder().encode(s);

const HTTP: Envelope = { mailFrom: null, rcptTo: ["bob@mail.localhost"], remoteAddress: null, heloName: null };
const smtp = (mailFrom: string | null, remoteAddress = "203.0.113.9"): Envelope => ({ mailFrom, rcptTo: ["bob@mail.localhost"], remoteAddress, heloName: "mx.sender.example" });

async function assess(raw: Uint8Array, envelope: Envelope, zone: Zone | ((n: string, t: string) => Promise<unknown>), dnsTimeoutMs?: number) {
  const resolver = typeof zone === "function" ? zone : zoneResolver(zone);
  const assessor = new Assessor({ mailDomain: "mail.localhost", resolver, dnsTimeoutMs });
  const mail = await parseInline(raw);
  return assessor.assess({ raw, mail, headers: mail.headers, envelope });
}

describe("DKIM on Bun", () => {
  test("RSA-SHA256 signed fixture verifies: dkim pass, no signals", async () => {
    const r = await assess(await fixture("dkim-pass-rsa"), HTTP, { "rsa2024._domainkey.example.org": RSA_RECORD });
    expect(r.auth.dkim).toBe("pass");
    expect(r.signals).toEqual([]);
    expect(r.riskLevel).toBe("low");
  });

  test("Ed25519-SHA256 signed fixture verifies: dkim pass", async () => {
    const r = await assess(await fixture("dkim-pass-ed25519"), HTTP, { "ed2024._domainkey.example.org": ED25519_RECORD });
    expect(r.auth.dkim).toBe("pass");
    expect(r.signals).toEqual([]);
  });

  test("a message signed by nodemailer (an independent signer) verifies", async () => {
    const r = await assess(await fixture("dkim-pass-nodemailer"), HTTP, { "nm2024._domainkey.example.org": `v=DKIM1; k=rsa; p=${DKIM_NODEMAILER_P}` });
    expect(r.auth.dkim).toBe("pass");
    expect(r.signals).toEqual([]);
  });

  test("a bare RSAPublicKey (PKCS#1) record verifies too", async () => {
    const pkcs1 = createPublicKey({ key: Buffer.from(DKIM_RSA_P, "base64"), format: "der", type: "spki" }).export({ type: "pkcs1", format: "der" });
    const r = await assess(await fixture("dkim-pass-rsa"), HTTP, { "rsa2024._domainkey.example.org": `v=DKIM1; k=rsa; p=${pkcs1.toString("base64")}` });
    expect(r.auth.dkim).toBe("pass");
  });

  test("the signed fixture with LF line endings still verifies (relaxed canonicalisation)", async () => {
    const lf = bytes(text(await fixture("dkim-pass-rsa")).replace(/\r\n/g, "\n"));
    const r = await assess(lf, HTTP, { "rsa2024._domainkey.example.org": RSA_RECORD });
    expect(r.auth.dkim).toBe("pass");
  });

  test("body changed after signing (fixture) → dkim fail and dkim_fail", async () => {
    const r = await assess(await fixture("dkim_fail"), HTTP, { "rsa2024._domainkey.example.org": RSA_RECORD });
    expect(r.auth.dkim).toBe("fail");
    expect(r.signals).toEqual(["dkim_fail"]);
    expect(r.riskLevel).toBe("low");
  });

  test("body tampered in memory → dkim_fail", async () => {
    const tampered = bytes(text(await fixture("dkim-pass-rsa")).replace("9:00", "7:00"));
    const r = await assess(tampered, HTTP, { "rsa2024._domainkey.example.org": RSA_RECORD });
    expect(r.auth.dkim).toBe("fail");
    expect(r.signals).toContain("dkim_fail");
  });

  test("signed header tampered → dkim fail (bad signature)", async () => {
    const tampered = bytes(text(await fixture("dkim-pass-ed25519")).replace("Subject: Conference schedule", "Subject: Conference schedule changed"));
    const r = await assess(tampered, HTTP, { "ed2024._domainkey.example.org": ED25519_RECORD });
    expect(r.auth.dkim).toBe("fail");
    expect(r.signals).toContain("dkim_fail");
  });

  test("a signature checked against the wrong key fails", async () => {
    const r = await assess(await fixture("dkim-pass-rsa"), HTTP, { "rsa2024._domainkey.example.org": `v=DKIM1; k=rsa; p=${DKIM_ED25519_P}` });
    expect(r.auth.dkim).not.toBe("pass");
  });

  test("no key published → not pass, and no dkim_fail (only fail counts)", async () => {
    const r = await assess(await fixture("dkim-pass-rsa"), HTTP, {});
    expect(["neutral", "permerror", "none"]).toContain(r.auth.dkim);
    expect(r.signals).not.toContain("dkim_fail");
  });

  test("an unsigned message is dkim none", async () => {
    const r = await assess(await fixture("none-personal"), HTTP, {});
    expect(r.auth.dkim).toBe("none");
  });
});

describe("SPF", () => {
  test("sender domain allows only 192.0.2.1, client is 203.0.113.9 → spf fail and spf_fail", async () => {
    const r = await assess(await fixture("spf_fail"), smtp("erin@example.com"), { "example.com": "v=spf1 ip4:192.0.2.1 -all" });
    expect(r.auth.spf).toBe("fail");
    expect(r.signals).toEqual(["spf_fail"]);
    expect(r.riskLevel).toBe("medium");
  });

  test("~all → softfail, reported as spf_softfail, not spf_fail", async () => {
    const r = await assess(await fixture("spf_softfail"), smtp("erin@example.com"), { "example.com": "v=spf1 ip4:192.0.2.1 ~all" });
    expect(r.auth.spf).toBe("softfail");
    expect(r.signals).toEqual(["spf_softfail"]);
    expect(r.riskLevel).toBe("low");
  });

  test("client inside the policy → pass", async () => {
    const r = await assess(await fixture("spf_fail"), smtp("erin@example.com", "192.0.2.1"), { "example.com": "v=spf1 ip4:192.0.2.1 -all" });
    expect(r.auth.spf).toBe("pass");
    expect(r.signals).toEqual([]);
  });

  test("no remote address (HTTP ingress, internal delivery) → spf none without any SPF lookup", async () => {
    const seen: string[] = [];
    const r = await assess(await fixture("spf_fail"), HTTP, zoneResolver({ "example.com": "v=spf1 ip4:192.0.2.1 -all" }, seen));
    expect(r.auth.spf).toBe("none");
    expect(r.signals).toEqual([]);
    expect(seen).not.toContain("TXT example.com");
  });

  test("no SPF record → none, no signal", async () => {
    const r = await assess(await fixture("spf_fail"), smtp("erin@example.com"), {});
    expect(r.auth.spf).toBe("none");
    expect(r.signals).toEqual([]);
  });
});

describe("DMARC", () => {
  test("p=reject and neither SPF nor DKIM aligned → dmarc fail and dmarc_fail", async () => {
    const r = await assess(await fixture("dmarc_fail"), smtp("bounce@bulk-sender.example.net"), {
      "_dmarc.example.com": "v=DMARC1; p=reject",
      "bulk-sender.example.net": "v=spf1 ip4:203.0.113.9 -all",
    });
    expect(r.auth.spf).toBe("pass"); // passes, but for another domain than From
    expect(r.auth.dmarc).toBe("fail");
    expect(r.signals).toEqual(["dmarc_fail"]);
    expect(r.riskLevel).toBe("medium");
  });

  test("SPF fail plus DMARC fail on the From domain → high, spam", async () => {
    const r = await assess(await fixture("spf_fail"), smtp("erin@example.com"), {
      "_dmarc.example.com": "v=DMARC1; p=reject",
      "example.com": "v=spf1 ip4:192.0.2.1 -all",
    });
    expect(r.signals).toEqual(["dmarc_fail", "spf_fail"]);
    expect(r.riskLevel).toBe("high");
    expect(r.triageLabel).toBe("spam");
  });

  test("aligned DKIM pass → dmarc pass", async () => {
    const r = await assess(await fixture("dkim-pass-rsa"), smtp("grace@example.org"), {
      "_dmarc.example.org": "v=DMARC1; p=reject",
      "rsa2024._domainkey.example.org": RSA_RECORD,
    });
    expect(r.auth).toEqual({ spf: "none", dkim: "pass", dmarc: "pass" });
    expect(r.signals).toEqual([]);
  });

  test("a trusted sender whose From DMARC authenticates: sender_trusted", async () => {
    const raw = await fixture("sender_trusted");
    const mail = await parseInline(raw);
    const resolver = zoneResolver({ "_dmarc.example.org": "v=DMARC1; p=reject", "rsa2024._domainkey.example.org": RSA_RECORD });
    const assessor = new Assessor({ mailDomain: "mail.localhost", resolver });
    const r = await assessor.assess({ raw, mail, headers: mail.headers, envelope: smtp("grace@example.org"), disposition: "trusted" });
    expect(r.auth.dmarc).toBe("pass");
    expect(r.signals).toEqual(["sender_trusted"]);
    // Without DNS the same From proves nothing: the trust is not applied.
    const offline = new Assessor({ mailDomain: "mail.localhost", resolver: zoneResolver({}) });
    const u = await offline.assess({ raw, mail, headers: mail.headers, envelope: smtp("grace@example.org"), disposition: "trusted" });
    expect(u.signals).toEqual(["sender_trusted_unverified"]);
  });

  test("a tampered body under p=reject fails DKIM and DMARC", async () => {
    const r = await assess(await fixture("dkim_fail"), HTTP, {
      "_dmarc.example.org": "v=DMARC1; p=reject",
      "rsa2024._domainkey.example.org": RSA_RECORD,
    });
    expect(r.signals).toEqual(["dkim_fail", "dmarc_fail"]);
    expect(r.riskLevel).toBe("medium");
  });
});

describe("DNS failure never hangs or throws", () => {
  test("a resolver that never answers: assess finishes (the DNS budget ends the wait), temperror", async () => {
    const budget = 300;
    const seen: string[] = [];
    const never = (name: string, rrtype: string) => {
      seen.push(`${rrtype} ${name}`);
      return new Promise<never>(() => {});
    };
    // The resolver never answers: assess resolving at all is the DNS budget at work.
    const r = await assess(await fixture("dkim-pass-rsa"), smtp("grace@example.org"), never, budget);
    expect(r.auth).toEqual({ spf: "temperror", dkim: "temperror", dmarc: "temperror" });
    expect(r.signals).toEqual([]); // temperror is not a failure
    expect(seen.length).toBeGreaterThan(0);
  });

  test("never answering, unsigned, over HTTP: spf none, dkim none", async () => {
    const r = await assess(await fixture("none-personal"), HTTP, () => new Promise<never>(() => {}), 200);
    expect(r.auth.spf).toBe("none");
    expect(r.auth.dkim).toBe("none");
    expect(["none", "temperror"]).toContain(r.auth.dmarc);
    expect(r.riskLevel).toBe("low");
  });

  test("a resolver refusing every query (offline) → temperror, no fail signals", async () => {
    const refused = async () => {
      throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    };
    const r = await assess(await fixture("dkim-pass-rsa"), smtp("grace@example.org"), refused);
    expect(r.auth).toEqual({ spf: "temperror", dkim: "temperror", dmarc: "temperror" });
    expect(r.signals).toEqual([]);
  });

  test("a resolver that throws synchronously or rejects with a non-error still resolves", async () => {
    const throwing = (() => {
      throw "boom";
    }) as unknown as (n: string, t: string) => Promise<unknown>;
    const r1 = await assess(await fixture("spf_fail"), smtp("erin@example.com"), throwing);
    expect(r1.auth.spf).toBe("temperror");
    const r2 = await assess(await fixture("spf_fail"), smtp("erin@example.com"), () => Promise.reject("nope"));
    expect(r2.auth.spf).toBe("temperror");
  });

  test("garbage DNS answers do not throw", async () => {
    const r = await assess(await fixture("dkim-pass-rsa"), smtp("grace@example.org"), async () => [[{}], null, 42]);
    expect(r.auth.dkim).not.toBe("pass");
    expect(["temperror", "permerror", "none", "neutral", "fail"]).toContain(r.auth.spf);
  });

  test("the system resolver (no override) also finishes", async () => {
    const assessor = new Assessor({ mailDomain: "mail.localhost", dnsTimeoutMs: 400 });
    try {
      const raw = await fixture("dkim-pass-rsa");
      const mail = await parseInline(raw);
      const r = await assessor.assess({ raw, mail, headers: mail.headers, envelope: smtp("grace@example.org") });
      expect(r.auth.dkim).not.toBe("pass");
    } finally {
      await assessor.close();
    }
  });

  test("with the system resolver, auth runs in the auth thread and answers what this thread would", async () => {
    // Same DNS for both sides (whatever this machine resolves), so the answers must agree; the
    // budget is wide so that a loaded machine does not end one side early.
    const assessor = new Assessor({ mailDomain: "mail.localhost", dnsTimeoutMs: 3000 });
    try {
      const big = new TextEncoder().encode(`DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.org; s=s1; h=from; bh=AAAA; b=AAAA\r\nFrom: g@example.org\r\nSubject: x\r\n\r\n${"-- \r\n".repeat(50_000)}`);
      for (const raw of [await fixture("dkim-pass-rsa"), await fixture("bulk"), big]) {
        const envelope = smtp("grace@example.org");
        const inWorker = await assessor.assess({ raw, mail: null, headers: [], envelope });
        const here = await checkAuth(raw, envelope, { mta: "mail.localhost", timeoutMs: 3000 });
        expect(inWorker.auth).toEqual(here);
      }
    } finally {
      await assessor.close();
    }
  });

  test("deadlineResolver: lookups after the deadline fail at once with ETIMEOUT", async () => {
    const resolve = deadlineResolver(async () => [["x"]], Date.now() - 1);
    await expect(resolve("example.com", "TXT")).rejects.toMatchObject({ code: "ETIMEOUT" });
  });

  test("checkAuth on bytes that are not a message resolves", async () => {
    const r = await checkAuth(new Uint8Array([0, 1, 2, 255]), smtp(null), { mta: "mail.localhost", timeoutMs: 200, resolver: zoneResolver({}) });
    expect(r.dkim).toBe("none");
  });
});

describe("the DNS answer cache", () => {
  test("answers and NXDOMAIN are kept, server failures only briefly, and the cache is bounded", async () => {
    let clock = 0;
    const calls: string[] = [];
    const resolver = cachingResolver(
      async (name) => {
        calls.push(name);
        if (name === "nx.example") throw Object.assign(new Error("nx"), { code: "ENOTFOUND" });
        if (name === "servfail.example") throw Object.assign(new Error("fail"), { code: "ESERVFAIL" });
        return [[`v=spf1 -all ${name}`]];
      },
      3,
      () => clock,
    );
    expect(await resolver("a.example", "TXT")).toEqual([["v=spf1 -all a.example"]]);
    expect(await resolver("A.EXAMPLE", "TXT")).toEqual([["v=spf1 -all a.example"]]);
    await expect(resolver("nx.example", "TXT")).rejects.toThrow("nx");
    await expect(resolver("nx.example", "TXT")).rejects.toThrow("nx");
    await expect(resolver("servfail.example", "TXT")).rejects.toThrow("fail");
    expect(calls).toEqual(["a.example", "nx.example", "servfail.example"]);
    clock += 6_000; // the failure has expired, the answers have not
    await expect(resolver("servfail.example", "TXT")).rejects.toThrow("fail");
    expect(calls.filter((c) => c === "servfail.example")).toHaveLength(2);
    await resolver("b.example", "TXT"); // over the bound: the oldest entry goes
    await resolver("a.example", "TXT");
    expect(calls.filter((c) => c === "a.example")).toHaveLength(2);
    clock += 10 * 60_000; // everything has expired
    await expect(resolver("nx.example", "TXT")).rejects.toThrow("nx");
    expect(calls.filter((c) => c === "nx.example")).toHaveLength(2);
  });

  test("lookups of one name on their way at once ask once, a failure included", async () => {
    const calls: string[] = [];
    let answer!: (v: unknown) => void;
    const resolver = cachingResolver(async (name) => {
      calls.push(name);
      if (name === "throws.example") throw Object.assign(new Error("refused"), { code: "ECONNREFUSED" });
      return new Promise((r) => (answer = r));
    });
    const together = [resolver("a.example", "TXT"), resolver("A.example", "TXT"), resolver("a.example", "TXT")];
    await Bun.sleep(0);
    answer([["v=spf1 -all"]]);
    expect(await Promise.all(together)).toEqual([[["v=spf1 -all"]], [["v=spf1 -all"]], [["v=spf1 -all"]]]);
    expect(calls).toEqual(["a.example"]);
    const failing = await Promise.allSettled([resolver("throws.example", "TXT"), resolver("throws.example", "TXT")]);
    expect(failing.map((f) => (f.status === "rejected" ? (f.reason as Error).message : "answered"))).toEqual(["refused", "refused"]);
    expect(calls).toEqual(["a.example", "throws.example"]);
  });
});

describe("unsigned messages are authenticated on their head alone", () => {
  const zone = { "_dmarc.example.com": "v=DMARC1; p=reject", "bulk-sender.example.net": "v=spf1 ip4:203.0.113.9 -all" };
  const envelope = smtp("bounce@bulk-sender.example.net");

  test("a large body changes nothing: DMARC still reads From and fails", async () => {
    const raw = text(await fixture("dmarc_fail"));
    const big = bytes(raw.replace(/\r?\n\r?\n/, (m) => m + "filler line\r\n".repeat(20_000)));
    for (const r of [await checkAuth(bytes(raw), envelope, { mta: "mail.localhost", timeoutMs: 1000, resolver: zoneResolver(zone) }), await checkAuth(big, envelope, { mta: "mail.localhost", timeoutMs: 1000, resolver: zoneResolver(zone) })]) {
      expect(r).toEqual({ spf: "pass", dkim: "none", dmarc: "fail" });
    }
  });

  test("LF-only line endings find the same head", async () => {
    const raw = text(await fixture("dmarc_fail")).replace(/\r\n/g, "\n");
    const r = await checkAuth(bytes(raw), envelope, { mta: "mail.localhost", timeoutMs: 1000, resolver: zoneResolver(zone) });
    expect(r).toEqual({ spf: "pass", dkim: "none", dmarc: "fail" });
  });

  test("a DKIM-Signature line in the body is not a signature", async () => {
    const raw = "From: a@example.com\r\nSubject: x\r\n\r\nDKIM-Signature: v=1; d=example.com\r\n";
    const r = await checkAuth(bytes(raw), envelope, { mta: "mail.localhost", timeoutMs: 1000, resolver: zoneResolver(zone) });
    expect(r.dkim).toBe("none");
  });

  test("a message with an empty head (blank first line) has no From to check", async () => {
    const raw = "\r\nFrom: a@example.com\r\nDKIM-Signature: v=1; d=example.com\r\n\r\nbody\r\n";
    const r = await checkAuth(bytes(raw), envelope, { mta: "mail.localhost", timeoutMs: 1000, resolver: zoneResolver(zone) });
    expect(r).toEqual({ spf: "pass", dkim: "none", dmarc: "none" });
  });

  test("a signed message is still verified over its whole body (a changed body fails)", async () => {
    const r = await assess(await fixture("dkim_fail"), HTTP, { "rsa2024._domainkey.example.org": RSA_RECORD });
    expect(r.auth.dkim).toBe("fail");
  });
});
