import { afterAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import {
  isBlockedAddress,
  parseTargetUrl,
  pinnedPost,
  resolveTarget,
  type Lookup,
  type PinnedTarget,
} from "../src/net/ssrf.ts";

// Self-signed test certificates (P-256, valid 2020-2120), one per name, for the HTTPS pinning
// tests: the receiver listens on 127.0.0.1 and serves the certificate matching the SNI name.
const DEFAULT_CERT = `-----BEGIN CERTIFICATE-----
MIIBXDCCAQGgAwIBAgIUasQ8o2neqS1u1PgNT27QioQOVMYwCgYIKoZIzj0EAwIw
FzEVMBMGA1UEAwwMZGVmYXVsdC50ZXN0MCAXDTIwMDEwMTAwMDAwMFoYDzIxMjAw
MTAxMDAwMDAwWjAXMRUwEwYDVQQDDAxkZWZhdWx0LnRlc3QwWTATBgcqhkjOPQIB
BggqhkjOPQMBBwNCAAROMbGWRDOP2cTh4IvDUXlUdIxJmJoeyaHSmVW8DUboa6ad
ShbaoN8tuK4xpdEeGtBXrmhpY8oLMaOzY2JC4DSGoykwJzAXBgNVHREEEDAOggxk
ZWZhdWx0LnRlc3QwDAYDVR0TAQH/BAIwADAKBggqhkjOPQQDAgNJADBGAiEA8UuZ
EVeaWG8rNRcV0wwmVMsUWlf7jcvNfwEG1qWWPYwCIQCZW91neM/1VgnB9Y+Mag7D
ApWW/TWYDObGkv6xIZtmaw==
-----END CERTIFICATE-----
`;
const DEFAULT_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgwXGWsyIiNoUPIHZk
F0FBJmyfTbOuE7ZQ9Hsc93CAzSGhRANCAAROMbGWRDOP2cTh4IvDUXlUdIxJmJoe
yaHSmVW8DUboa6adShbaoN8tuK4xpdEeGtBXrmhpY8oLMaOzY2JC4DSG
-----END PRIVATE KEY-----
`;
const HOOK_CERT = `-----BEGIN CERTIFICATE-----
MIIBaTCCARCgAwIBAgIUOAObdXXkEMKLRelUjYS/db21P5gwCgYIKoZIzj0EAwIw
HDEaMBgGA1UEAwwRaG9vay5leGFtcGxlLnRlc3QwIBcNMjAwMTAxMDAwMDAwWhgP
MjEyMDAxMDEwMDAwMDBaMBwxGjAYBgNVBAMMEWhvb2suZXhhbXBsZS50ZXN0MFkw
EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEUNF8Tf2qaZmYfBYVNiEYgaYemP941DGz
kK/DTGLhPmErO9mFMsJCm8+dxP5hCW4kItgyGFWNgII2DEyWIZcMR6MuMCwwHAYD
VR0RBBUwE4IRaG9vay5leGFtcGxlLnRlc3QwDAYDVR0TAQH/BAIwADAKBggqhkjO
PQQDAgNHADBEAiAjNTqtD/oNBOT4UAcVUY6GsNIdyd6TZzZkY1AYbXioeQIgNXt/
1Z3HtPPaoWqj5ikYJLNBkLc3vAOB4GBm2pg/g0M=
-----END CERTIFICATE-----
`;
const HOOK_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgHHPNUjcvcrr5MYGg
4fvUX2Q2qmLZC2RFxo38UxLjLDyhRANCAARQ0XxN/appmZh8FhU2IRiBph6Y/3jU
MbOQr8NMYuE+YSs72YUywkKbz53E/mEJbiQi2DIYVY2AgjYMTJYhlwxH
-----END PRIVATE KEY-----
`;

const servers: Server<unknown>[] = [];
afterAll(() => {
  for (const s of servers) s.stop(true);
});
function serve(fetch: (req: Request) => Response | Promise<Response>, tls?: Parameters<typeof Bun.serve>[0]["tls"]) {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch, ...(tls ? { tls } : {}) });
  servers.push(s);
  return s;
}

function url(raw: string): URL {
  const r = parseTargetUrl(raw);
  if (!r.ok) throw new Error(r.reason);
  return r.url;
}

/** A lookup that always answers `addresses` and counts its calls. */
function fakeLookup(addresses: string[]): Lookup & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (host: string) => {
    calls.push(host);
    return addresses.map((address) => ({ address, family: (address.includes(":") ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(fn, { calls });
}

async function pin(raw: string, addresses: string[]): Promise<PinnedTarget> {
  const r = await resolveTarget(url(raw), { allowPrivate: true, lookup: fakeLookup(addresses) });
  if (!r.ok) throw new Error(r.reason);
  return r.target;
}

const post = { headers: { "content-type": "application/json" }, body: "{}", timeoutMs: 2000, maxResponseBytes: 65536 };

describe("parseTargetUrl", () => {
  test("only http and https", () => {
    expect(parseTargetUrl("http://example.com/").ok).toBe(true);
    expect(parseTargetUrl("https://example.com/hook").ok).toBe(true);
    for (const raw of ["ftp://example.com/", "file:///etc/passwd", "javascript:alert(1)", "gopher://x/", "data:,x"]) {
      expect(parseTargetUrl(raw)).toMatchObject({ ok: false });
    }
    expect(parseTargetUrl("not a url")).toMatchObject({ ok: false });
  });

  test("user info refused", () => {
    expect(parseTargetUrl("https://user:pass@example.com/")).toMatchObject({ ok: false, reason: expect.stringContaining("user info") });
    expect(parseTargetUrl("https://user@example.com/")).toMatchObject({ ok: false });
    expect(parseTargetUrl("https://:pass@example.com/")).toMatchObject({ ok: false });
  });

  test("length limit", () => {
    expect(parseTargetUrl("https://example.com/" + "a".repeat(2048))).toMatchObject({ ok: false });
    expect(parseTargetUrl("https://example.com/" + "a".repeat(2000)).ok).toBe(true);
  });

  test("WHATWG URL normalises numeric IPv4 forms to dotted quads (on Bun)", () => {
    expect(url("http://2130706433/").hostname).toBe("127.0.0.1");
    expect(url("http://0177.0.0.1/").hostname).toBe("127.0.0.1");
    expect(url("http://0x7f.1/").hostname).toBe("127.0.0.1");
    expect(url("http://0x7f.0.0.1/").hostname).toBe("127.0.0.1");
    expect(url("http://127.1/").hostname).toBe("127.0.0.1");
    expect(url("http://[::ffff:127.0.0.1]/").hostname).toBe("[::ffff:7f00:1]");
  });
});

describe("isBlockedAddress", () => {
  const blocked = [
    "0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255", "100.64.0.1", "100.127.255.255", "100.100.100.200",
    "127.0.0.1", "127.255.255.254", "169.254.169.254", "169.254.0.1", "172.16.0.1", "172.31.255.255",
    "192.0.0.1", "192.0.0.192", "192.168.1.1", "198.18.0.1", "198.19.255.255", "224.0.0.1", "239.255.255.255",
    "240.0.0.1", "255.255.255.255",
    "::", "::1", "0:0:0:0:0:0:0:1", "[::1]",
    "fc00::1", "fd12:3456::1", "fd00:ec2::254", "fe80::1", "febf::1", "ff02::1", "ff0e::1",
    "::ffff:127.0.0.1", "::ffff:7f00:1", "::FFFF:7F00:0001", "::ffff:10.0.0.1", "::ffff:a9fe:a9fe", "0:0:0:0:0:ffff:192.168.0.1",
    "::127.0.0.1", "::10.0.0.1", "::8.8.8.8", // IPv4-compatible: deprecated, refused whole
    "64:ff9b::127.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b::10.1.2.3",
    "2001:db8::1", "2001:db8:ffff::1",
    "2002:7f00:1::1", // 6to4 around 127.0.0.1
    "fe80::1%eth0", "fe80::1%25eth0", "2606:4700::1111%1", // zone ids
    "", "localhost", "example.com", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "0x7f.0.0.1", "2130706433",
    "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", ":1::", "1.2.3.4::", "::ffff:1.2.3", "g::1",
  ];
  const allowed = [
    "93.184.216.34", "8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "169.255.0.1", "192.169.0.1", "223.255.255.255",
    "2606:4700::1111", "2606:4700:4700::1111", "2a00:1450:4001:82b::200e", "[2606:4700::1111]",
    "::ffff:8.8.8.8", "::ffff:5db8:d822", "64:ff9b::8.8.8.8", "2002:808:808::1",
  ];
  test.each(blocked)("blocks %p", (ip) => expect(isBlockedAddress(ip)).toBe(true));
  test.each(allowed)("allows %p", (ip) => expect(isBlockedAddress(ip)).toBe(false));
});

describe("resolveTarget", () => {
  test("localhost is refused (system lookup → 127.0.0.1 / ::1)", async () => {
    const r = await resolveTarget(url("http://localhost:8080/"), { allowPrivate: false });
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/loopback address (127\.0\.0\.1|::1)/) });
  });

  test.each(["http://127.0.0.1/", "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://2130706433/", "http://0x7f.0.0.1/", "http://0/", "http://[fd00:ec2::254]/", "http://169.254.169.254/latest/meta-data/"])(
    "IP literal %p refused without a lookup",
    async (raw) => {
      const lookup = fakeLookup(["93.184.216.34"]);
      const r = await resolveTarget(url(raw), { allowPrivate: false, lookup });
      expect(r.ok).toBe(false);
      expect(lookup.calls).toHaveLength(0);
    },
  );

  test("a public IP literal is pinned to itself", async () => {
    const r = await resolveTarget(url("https://[2606:4700::1111]:8443/x"), { allowPrivate: false, lookup: fakeLookup([]) });
    expect(r).toMatchObject({ ok: true, target: { address: "2606:4700::1111", family: 6, hostHeader: "[2606:4700::1111]:8443" } });
  });

  test("a name with one private address among public ones is refused; one lookup", async () => {
    const lookup = fakeLookup(["93.184.216.34", "10.0.0.5"]);
    const r = await resolveTarget(url("https://hook.example.test/"), { allowPrivate: false, lookup });
    expect(r).toEqual({ ok: false, kind: "blocked", reason: "hook.example.test resolves to a private address 10.0.0.5" });
    expect(lookup.calls).toEqual(["hook.example.test"]);
  });

  test("a public name is pinned to its first address; one lookup", async () => {
    const lookup = fakeLookup(["2606:4700::1111", "93.184.216.34"]);
    const r = await resolveTarget(url("https://hook.example.test/a"), { allowPrivate: false, lookup });
    expect(r).toMatchObject({ ok: true, target: { address: "2606:4700::1111", family: 6, hostHeader: "hook.example.test" } });
    expect(lookup.calls).toHaveLength(1);
  });

  test("no addresses, a non-IP answer, a failing or hanging lookup are refused", async () => {
    const u = url("https://hook.example.test/");
    expect(await resolveTarget(u, { allowPrivate: true, lookup: fakeLookup([]) })).toMatchObject({ ok: false });
    expect(await resolveTarget(u, { allowPrivate: true, lookup: fakeLookup(["evil.example"]) })).toMatchObject({ ok: false });
    const failing: Lookup = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    expect(await resolveTarget(u, { allowPrivate: false, lookup: failing })).toMatchObject({ ok: false, reason: expect.stringContaining("does not resolve") });
    // The lookup never settles: only the timeout can produce this answer.
    const hanging: Lookup = () => new Promise(() => {});
    expect(await resolveTarget(u, { allowPrivate: false, lookup: hanging, timeoutMs: 100 })).toMatchObject({ ok: false, reason: expect.stringContaining("timed out") });
  });

  test("allowPrivate lets private addresses through, still resolving once", async () => {
    const lookup = fakeLookup(["10.0.0.5", "127.0.0.1"]);
    const r = await resolveTarget(url("http://hook.example.test:81/"), { allowPrivate: true, lookup });
    expect(r).toMatchObject({ ok: true, target: { address: "10.0.0.5", family: 4, hostHeader: "hook.example.test:81" } });
    expect(lookup.calls).toHaveLength(1);
    expect((await resolveTarget(url("http://127.0.0.1/"), { allowPrivate: true })).ok).toBe(true);
  });
});

describe("pinnedPost", () => {
  test("connects to the pinned address, keeping path, query, Host and body", async () => {
    let seen: { url: string; host: string | null; body: string; ua: string | null } | null = null;
    const s = serve(async (req) => {
      seen = { url: req.url, host: req.headers.get("host"), body: await req.text(), ua: req.headers.get("x-sig") };
      return new Response("thanks", { status: 202 });
    });
    // hook.example.test does not exist in DNS; only the pin can get the request there.
    const lookup = fakeLookup(["127.0.0.1"]);
    const r = await resolveTarget(url(`http://hook.example.test:${s.port}/path?q=1`), { allowPrivate: true, lookup });
    if (!r.ok) throw new Error(r.reason);
    const res = await pinnedPost(r.target, { ...post, headers: { "x-sig": "abc", Host: "evil.test" }, body: '{"a":1}' });
    expect(res).toMatchObject({ ok: true, status: 202, body: "thanks" });
    expect(lookup.calls).toEqual(["hook.example.test"]);
    const u = new URL(seen!.url);
    expect(u.pathname + u.search).toBe("/path?q=1");
    expect(seen!.host).toBe(`hook.example.test:${s.port}`);
    expect(seen!.body).toBe('{"a":1}');
    expect(seen!.ua).toBe("abc");
  });

  test("a Uint8Array body and an IPv4 literal target", async () => {
    let body = "";
    const s = serve(async (req) => {
      body = await req.text();
      return new Response("ok");
    });
    const r = await resolveTarget(url(`http://127.0.0.1:${s.port}/`), { allowPrivate: true });
    if (!r.ok) throw new Error(r.reason);
    expect(await pinnedPost(r.target, { ...post, body: new TextEncoder().encode("bytes") })).toMatchObject({ ok: true, status: 200 });
    expect(body).toBe("bytes");
  });

  test("a redirect is returned as its status, not followed", async () => {
    let targetHits = 0;
    const dest = serve(() => {
      targetHits++;
      return new Response("landed");
    });
    const s = serve(() => new Response(null, { status: 302, headers: { location: `http://127.0.0.1:${dest.port}/landed` } }));
    const res = await pinnedPost(await pin(`http://hook.example.test:${s.port}/`, ["127.0.0.1"]), post);
    expect(res).toMatchObject({ ok: true, status: 302 });
    expect(targetHits).toBe(0);
  });

  test("a body trickled forever is cut off at the deadline", async () => {
    const s = serve(() => {
      let timer: ReturnType<typeof setInterval>;
      const stream = new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode("a"));
          timer = setInterval(() => {
            try {
              c.enqueue(new TextEncoder().encode("a"));
            } catch {
              clearInterval(timer);
            }
          }, 50);
        },
        cancel() {
          clearInterval(timer);
        },
      });
      return new Response(stream);
    });
    const res = await pinnedPost(await pin(`http://hook.example.test:${s.port}/`, ["127.0.0.1"]), { ...post, timeoutMs: 500 });
    expect(res).toMatchObject({ ok: false, error: "timed out after 500 ms" });
    expect(res.durationMs).toBeGreaterThanOrEqual(450);
    expect(res.durationMs).toBeLessThan(800);
  });

  test("a receiver that never answers is cut off at the deadline", async () => {
    const s = serve(() => new Promise<Response>(() => {}));
    const res = await pinnedPost(await pin(`http://hook.example.test:${s.port}/`, ["127.0.0.1"]), { ...post, timeoutMs: 300 });
    expect(res).toMatchObject({ ok: false, error: "timed out after 300 ms" });
    expect(res.durationMs).toBeLessThan(600);
  });

  test("at most maxResponseBytes of a large body are read", async () => {
    const s = serve(() => new Response("x".repeat(1024 * 1024)));
    const res = await pinnedPost(await pin(`http://hook.example.test:${s.port}/`, ["127.0.0.1"]), { ...post, maxResponseBytes: 1000 });
    expect(res.ok).toBe(true);
    if (res.ok) expect(res.body).toBe("x".repeat(1000));
  });

  test("a cap inside a UTF-8 sequence decodes lossily", async () => {
    const s = serve(() => new Response("éé"));
    const res = await pinnedPost(await pin(`http://hook.example.test:${s.port}/`, ["127.0.0.1"]), { ...post, maxResponseBytes: 3 });
    expect(res).toMatchObject({ ok: true, body: "é\uFFFD" });
  });

  test("connection refused is an error, not a throw", async () => {
    const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const port = s.port;
    s.stop(true);
    const res = await pinnedPost(await pin(`http://hook.example.test:${port}/`, ["127.0.0.1"]), post);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error).toMatch(/\S/);
  });

  describe("https", () => {
    // The receiver serves DEFAULT_CERT unless the client's SNI asks for hook.example.test.
    const tlsServer = () =>
      serve((req) => new Response(`host=${req.headers.get("host")}`), [
        { cert: DEFAULT_CERT, key: DEFAULT_KEY },
        { serverName: "hook.example.test", cert: HOOK_CERT, key: HOOK_KEY },
      ]);

    test("sends SNI and verifies the certificate against the original host name", async () => {
      const s = tlsServer();
      const lookup = fakeLookup(["127.0.0.1"]);
      const r = await resolveTarget(url(`https://hook.example.test:${s.port}/`), { allowPrivate: true, lookup });
      if (!r.ok) throw new Error(r.reason);
      // Only HOOK_CERT is trusted: success means SNI selected it and it matched the name.
      const res = await pinnedPost(r.target, { ...post, ca: HOOK_CERT });
      expect(res).toMatchObject({ ok: true, status: 200, body: `host=hook.example.test:${s.port}` });
      expect(lookup.calls).toHaveLength(1);
    });

    test("a certificate for another name is refused", async () => {
      const s = tlsServer();
      // default.test's certificate is trusted, but the target is other.example.test.
      const res = await pinnedPost(await pin(`https://other.example.test:${s.port}/`, ["127.0.0.1"]), { ...post, ca: [DEFAULT_CERT, HOOK_CERT] });
      expect(res.ok).toBe(false);
      if (!res.ok) expect(res.error).toContain("ERR_TLS_CERT_ALTNAME_INVALID");
    });

    test("an untrusted certificate is refused", async () => {
      const s = tlsServer();
      const res = await pinnedPost(await pin(`https://hook.example.test:${s.port}/`, ["127.0.0.1"]), post);
      expect(res.ok).toBe(false);
    });
  });
});
