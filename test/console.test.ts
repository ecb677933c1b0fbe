import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { seedAccount, sleep, startTestService, waitFor, type TestService } from "./harness.ts";
import { rfc822, smtpSend, waitForMessage } from "./mail-support.ts";
import { startReceiver } from "./webhook-support.ts";

// Functions given to page.evaluate run in the browser: its globals, loosely typed (this project compiles without the DOM lib).
declare const window: any;
declare const document: any;

/**
 * The console in a real browser (Debian's Chromium driven by playwright-core) against the
 * started service. Skipped, saying why, only when /usr/bin/chromium is absent.
 */
export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`SKIPPED console browser tests: ${CHROMIUM} is absent (install it with: apt-get install -y chromium)`);
const suite = haveChromium ? describe : describe.skip;

const ARTIFACTS = join(import.meta.dir, "artifacts", "console");

suite("console in a browser", () => {
  let t: TestService;
  let seed: Awaited<ReturnType<typeof seedAccount>>;
  let other: Awaited<ReturnType<typeof seedAccount>>;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  let receiver: ReturnType<typeof startReceiver>;
  let receiverFails = true;
  const canaryHits: string[] = [];
  let canary: ReturnType<typeof Bun.serve>;
  const pageErrors: string[] = [];

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: false });

  const signIn = async (token: string) => {
    await page.goto(`${t.url}/console`);
    await page.evaluate(() => sessionStorage.clear());
    await page.reload();
    await page.fill("input[name=token]", token);
    await page.click("button[type=submit]");
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    canary = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        canaryHits.push(`${req.method} ${new URL(req.url).pathname}`);
        return new Response("canary", { headers: { "content-type": "image/png" } });
      },
    });
    receiver = startReceiver(() => new Response(receiverFails ? "down for maintenance" : "ok", { status: receiverFails ? 503 : 200 }));
    t = await startTestService({ WEBHOOK_RETRY_DELAYS: "0.2" });
    seed = await seedAccount(t);
    other = await seedAccount(t);
    const hook = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/webhooks`, { body: { url: receiver.url, events: ["message.received"] } });
    expect(hook.status).toBe(201);
    profile = mkdtempSync(join(tmpdir(), "mailroom-chromium-"));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 800 } });
    page = context.pages()[0] ?? (await context.newPage());
    page.on("pageerror", (e) => pageErrors.push(String(e)));
    page.on("dialog", (d) => {
      pageErrors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
  }, 420_000);

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    receiver?.stop();
    canary?.stop(true);
    await t?.stop();
  });

  test("/console is served with its security headers, and its script from the bundle with an ETag", async () => {
    const res = await fetch(`${t.url}/console`);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    const html = await res.text();
    expect(html).not.toMatch(/<script>(?!<)|<script(?![^>]*\ssrc=)[^>]*>/); // no inline script
    const js = await fetch(`${t.url}/console/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("javascript");
    const etag = js.headers.get("etag")!;
    expect(etag).toBeTruthy();
    expect((await fetch(`${t.url}/console/app.js`, { headers: { "if-none-match": etag } })).status).toBe(304);
    const gz = await fetch(`${t.url}/console/app.js`, { headers: { "accept-encoding": "gzip" }, decompress: false } as RequestInit);
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gz.headers.get("vary")).toBe("accept-encoding");
    expect(await js.text()).not.toMatch(/https?:\/\/(unpkg|cdn|esm\.sh|jsdelivr)/);
  });

  test("signs in with a mailbox key and shows its (empty) inbox, live", async () => {
    await signIn(seed.agentKey.token);
    await page.waitForSelector(".mailbox-nav");
    expect(await page.textContent(".top .mailbox-name")).toContain(seed.agent.email_address);
    await page.waitForSelector(".live.on", { timeout: 15_000 });
    await page.waitForSelector(".empty");
  }, 120_000);

  let phishingId = "";
  test("a mail sent over SMTP appears in the open inbox without a reload, marked new and unread", async () => {
    const subject = `Urgent wire transfer ${crypto.randomUUID().slice(0, 8)}`;
    const raw = rfc822(
      { From: "CEO <ceo@example.com>", To: seed.agent.email_address, Subject: subject, "Message-ID": `<${crypto.randomUUID()}@example.com>`, Date: new Date().toUTCString() },
      "Please pay the urgent invoice by wire transfer today and buy gift cards.\r\nAlso verify your password here or your account will be suspended.\r\n",
    );
    await page.evaluate(() => ((window as unknown as { __marker?: string }).__marker = "same-document"));
    await smtpSend(t.service.smtpPort, { from: "ceo@example.com", to: [seed.agent.email_address] }, raw);
    const row = await page.waitForSelector(`li.row:has-text("${subject}")`, { timeout: 15_000 });
    expect(await row.getAttribute("class")).toContain("new");
    expect(await row.getAttribute("class")).toContain("unread");
    phishingId = (await row.getAttribute("data-id"))!;
    // Still the same document: nothing reloaded the page.
    expect(await page.evaluate(() => (window as unknown as { __marker?: string }).__marker)).toBe("same-document");
    // Processing lands later; the live list follows it to the assessed risk.
    await waitForMessage(t, phishingId, ["processed"], 45_000);
    await page.waitForSelector(`li.row[data-id="${phishingId}"] .badge.risk-medium, li.row[data-id="${phishingId}"] .badge.risk-high`, { timeout: 15_000 });
    await shot("inbox");
  }, 120_000);

  test("opening it shows its risk, triage, each signal explained in words, and SPF/DKIM/DMARC", async () => {
    await page.click(`li.row[data-id="${phishingId}"] a`);
    await page.waitForSelector(".assessment .signals");
    const risk = await page.getAttribute(".risk-line", "data-risk");
    expect(["medium", "high"]).toContain(risk!);
    for (const signal of ["urgent_payment_language", "credential_request"]) {
      const explain = await page.textContent(`.signal[data-signal=${signal}] .explain`);
      expect(explain!.length).toBeGreaterThan(30);
    }
    expect(await page.textContent(".verdicts")).toContain("SPF");
    expect(await page.textContent("pre[data-view=extracted]")).toContain("wire transfer");
    await shot("message");
    // Opening it marked it reviewed, through the API.
    await waitFor(async () => ((await t.api("GET", `/v1/messages/${phishingId}`)).body.message.status === "reviewed" ? true : undefined), "reviewed");
  }, 120_000);

  test("labels are added and removed, and e archives", async () => {
    await page.fill("input[name=label]", "finance");
    await page.click(".labels button[type=submit]");
    await page.waitForSelector('.chip:has-text("finance")');
    let m = (await t.api("GET", `/v1/messages/${phishingId}`)).body.message;
    expect(m.labels.length).toBe(1);
    await page.click('.chip:has-text("finance") button');
    await page.waitForSelector('.chip:has-text("finance")', { state: "detached" });
    await page.keyboard.press("e");
    await page.waitForSelector('button:has-text("Archived")');
    m = (await t.api("GET", `/v1/messages/${phishingId}`)).body.message;
    expect(m.labels).toEqual([]);
    expect(m.status).toBe("archived");
  }, 120_000);

  test("a hostile HTML mail runs no script and loads nothing remote", async () => {
    const c = `http://127.0.0.1:${canary.port}`;
    const html = [
      `<html><head><meta http-equiv="refresh" content="0;url=${c}/refresh"><base href="${c}/base/"><link rel="stylesheet" href="${c}/link.css"><link rel="prefetch" href="${c}/prefetch">`,
      `<style>@import url("${c}/import.css"); body { background: url("${c}/bg.png"); } @font-face { font-family: x; src: url("${c}/font.woff"); } p { font-family: x; }</style>`,
      `<script>fetch("${c}/script"); new Image().src = "${c}/script-img"; parent.postMessage("pwned", "*"); alert("pwned");</script></head>`,
      `<body onload="fetch('${c}/onload')"><p>Hello from a hostile sender.</p>`,
      `<img src="${c}/img.png"><img src="x" onerror="fetch('${c}/onerror')"><img srcset="${c}/srcset.png 2x">`,
      `<iframe src="${c}/iframe"></iframe><object data="${c}/object"></object><embed src="${c}/embed">`,
      `<video poster="${c}/poster.png" src="${c}/video.mp4"></video><audio src="${c}/audio.mp3" autoplay></audio>`,
      `<svg><image href="${c}/svg-image.png" /></svg><table background="${c}/table-bg.png"><tr><td>cell</td></tr></table>`,
      `<a href="${c}/link" ping="${c}/ping">a link</a><form action="${c}/form"><input type="image" src="${c}/input.png"></form>`,
      `<div style="background-image:url('${c}/inline-style.png')">styled</div></body></html>`,
    ].join("\n");
    const subject = `Hostile HTML ${crypto.randomUUID().slice(0, 8)}`;
    const boundary = "b0undary";
    const raw = rfc822(
      { From: "mallory@example.net", To: seed.agent.email_address, Subject: subject, "MIME-Version": "1.0", "Content-Type": `multipart/alternative; boundary="${boundary}"` },
      `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHello from a hostile sender.\r\n--${boundary}\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html.replace(/\n/g, "\r\n")}\r\n--${boundary}--\r\n`,
    );
    await smtpSend(t.service.smtpPort, { from: "mallory@example.net", to: [seed.agent.email_address] }, raw);
    await page.goto(`${t.url}/console#/m/${seed.agent.id}/inbox`);
    const row = await page.waitForSelector(`li.row:has-text("${subject}")`, { timeout: 15_000 });
    const id = (await row.getAttribute("data-id"))!;
    await waitForMessage(t, id, ["processed", "reviewed"], 45_000);
    await page.goto(`${t.url}/console#/m/${seed.agent.id}/message/${id}`);
    await page.click('button[role=tab]:has-text("HTML")');
    const frame = await page.waitForSelector("iframe.mail-html");
    expect(await frame.getAttribute("sandbox")).toBe("");
    const srcdoc = (await frame.getAttribute("srcdoc"))!;
    expect(srcdoc).toContain(`http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:`);
    const content = await (await frame.contentFrame())!.textContent("body");
    expect(content).toContain("Hello from a hostile sender.");
    await sleep(2000); // time for anything that would load or run to do so
    await shot("message-html");
    expect(canaryHits).toEqual([]);
    expect(pageErrors.filter((e) => e.startsWith("dialog"))).toEqual([]);
  }, 120_000);

  test("approving a draft sends it, through the API", async () => {
    const created = await t.api("POST", `/v1/mailboxes/${seed.agent.id}/drafts`, {
      token: seed.agentKey.token,
      body: { to: ["customer@example.com"], subject: "Your refund", textBody: "Hello, your refund is on its way." },
    });
    expect(created.status).toBe(201);
    const draftId = created.body.draft.id;
    await page.goto(`${t.url}/console#/m/${seed.agent.id}/approvals`);
    const card = await page.waitForSelector(`li.draft[data-draft="${draftId}"]`);
    await (await card.$("textarea[name=text]"))!.fill("Hello, your refund of 20 EUR is on its way.");
    await shot("approvals");
    await (await card.$('button:has-text("Approve and send")'))!.click();
    await page.waitForSelector("[data-outcome=sent]");
    expect(await page.textContent("[data-outcome=sent]")).toContain("sent");
    expect((await t.api("GET", `/v1/drafts/${draftId}`)).status).toBe(404);
    const sent = await t.api("GET", `/v1/mailboxes/${seed.agent.id}/messages?direction=outbound`);
    const msg = sent.body.items.find((m: { subject: string }) => m.subject === "Your refund");
    expect(msg.status).toBe("sent");
    expect((await t.api("GET", `/v1/messages/${msg.id}`)).body.message.text_body).toContain("20 EUR");
  }, 120_000);

  test("the admin replays a failed webhook delivery", async () => {
    // The receiver refused every attempt: wait until the first message's delivery has given up.
    const endpoint = (await t.api("GET", `/v1/mailboxes/${seed.agent.id}/webhooks`)).body.items[0];
    await waitFor(async () => {
      const h = (await t.api("GET", `/v1/webhooks/${endpoint.id}/deliveries`)).body.items as { attempt: number; success: boolean }[];
      return h.some((a) => a.attempt >= 2 && !a.success) ? true : undefined;
    }, "a failed delivery", 20_000);
    receiverFails = false;
    const before = receiver.requests.length;
    await signIn(t.admin);
    await page.waitForSelector(".accounts");
    await shot("accounts");
    await page.goto(`${t.url}/console#/m/${seed.agent.id}/webhooks`);
    await page.waitForSelector("table.attempts tr.bad");
    await shot("webhooks");
    await page.click("table.attempts tr.bad button[data-replay]");
    await page.waitForSelector('.notice:has-text("succeeded")');
    expect(receiver.requests.length).toBeGreaterThan(before);
    const history = (await t.api("GET", `/v1/webhooks/${endpoint.id}/deliveries`)).body.items as { trigger: string; success: boolean }[];
    expect(history.some((a) => a.trigger === "replay" && a.success)).toBe(true);
    await page.waitForSelector('table.attempts tr.ok:has-text("replay")');
  }, 120_000);

  test("the admin creates an account and a mailbox, and disables and enables it", async () => {
    const slug = `ui-${crypto.randomUUID().slice(0, 8)}`;
    await page.goto(`${t.url}/console#/accounts`);
    await page.fill("input[name=account-slug]", slug);
    await page.fill("input[name=display-name]", "Made in the console");
    await page.click('button:has-text("Create account")');
    const card = await page.waitForSelector(`li[data-account="${slug}"] .account-mailboxes tr[data-mailbox]`);
    expect(await card.textContent()).toContain(`${slug}@`);
    await page.fill(`li[data-account="${slug}"] input[name=mailbox-slug]`, "helper");
    await page.click(`li[data-account="${slug}"] button:has-text("Create mailbox")`);
    const row = await page.waitForSelector(`li[data-account="${slug}"] tr:has-text("helper.${slug}@")`);
    const mailboxId = (await row.getAttribute("data-mailbox"))!;
    await (await row.$('button:has-text("Disable")'))!.click();
    await page.waitForSelector(`tr[data-mailbox="${mailboxId}"] button:has-text("Enable")`);
    expect((await t.api("GET", `/v1/mailboxes/${mailboxId}`)).body.mailbox.status).toBe("disabled");
    await page.click(`tr[data-mailbox="${mailboxId}"] button:has-text("Enable")`);
    await page.waitForSelector(`tr[data-mailbox="${mailboxId}"] button:has-text("Disable")`);
    expect((await t.api("GET", `/v1/mailboxes/${mailboxId}`)).body.mailbox.status).toBe("active");
  }, 120_000);

  test("the admin issues an API key, sees its token once, and revokes it", async () => {
    await page.goto(`${t.url}/console#/m/${seed.agent.id}/settings`);
    await page.fill("input[name=key-name]", "issued in the console");
    await page.click('button:has-text("Issue key")');
    const token = await (await page.waitForSelector("[data-secret]")).inputValue();
    expect(token).toMatch(/^svc_[0-9a-f-]{36}\.[A-Za-z0-9_-]+$/);
    expect((await t.api("GET", "/v1/me", { token })).status).toBe(200);
    await shot("settings");
    const keyId = token.slice(4, 40);
    await page.click(`tr[data-key="${keyId}"] button:has-text("Revoke")`);
    await page.waitForSelector(`tr[data-key="${keyId}"]:has-text("revoked")`);
    expect((await t.api("GET", "/v1/me", { token })).status).toBe(401);
    // Shown once: a fresh visit to the screen lists the key, never its token.
    await page.reload();
    await page.waitForSelector(`tr[data-key="${keyId}"]`);
    expect(await page.$("[data-secret]")).toBeNull();
  }, 120_000);

  test("a key of another mailbox sees nothing of this one", async () => {
    await signIn(other.agentKey.token);
    await page.waitForSelector(".mailbox-nav");
    await page.waitForSelector(".empty");
    expect(await page.textContent(".top .mailbox-name")).toContain(other.agent.email_address);
    await page.goto(`${t.url}/console#/m/${seed.agent.id}/inbox`);
    await page.waitForSelector(".error");
    expect(await page.textContent(".error")).toContain("forbidden");
    await page.goto(`${t.url}/console#/m/${other.agent.id}/message/${phishingId}`);
    await page.waitForSelector(".error");
    expect(await page.textContent(".error")).toContain("forbidden");
    const text = (await page.textContent("body")) ?? "";
    expect(text).not.toContain("wire transfer");
    expect(text).not.toContain(seed.agent.email_address);
  }, 120_000);

  test("reads on a phone and in dark mode", async () => {
    await signIn(seed.agentKey.token);
    await page.waitForSelector("ol.messages li.row");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.waitForSelector("ol.messages li.row");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await shot("inbox-phone-dark");
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: "light" });
    expect(pageErrors).toEqual([]);
  }, 120_000);

  test("keyboard: j/k move, enter opens, / focuses the search", async () => {
    await page.goto(`${t.url}/console#/m/${seed.agent.id}/inbox`);
    await page.waitForSelector("ol.messages li.row.selected");
    const first = await page.getAttribute("li.row.selected", "data-id");
    await page.keyboard.press("j");
    await page.waitForFunction((id) => document.querySelector("li.row.selected")?.getAttribute("data-id") !== id, first);
    await page.keyboard.press("k");
    await page.waitForFunction((id) => document.querySelector("li.row.selected")?.getAttribute("data-id") === id, first);
    await page.keyboard.press("/");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("q");
    await page.keyboard.press("Escape");
    await page.keyboard.press("Enter");
    // Wait for the route itself: a message view from an earlier test can still be on the page.
    await page.waitForURL((url) => url.hash.endsWith(`/message/${first}`));
    await page.waitForSelector("article.message");
    expect(page.url()).toContain(`/message/${first}`);
  }, 120_000);

  test("keys pressed faster than the page paints act on what it shows: j j enter opens two rows down", async () => {
    await page.goto(`${t.url}/console#/m/${seed.agent.id}/inbox`);
    await page.waitForSelector("ol.messages li.row.selected");
    const ids = await page.$$eval("ol.messages li.row", (rows: any[]) => rows.map((r) => r.getAttribute("data-id")));
    const at = ids.indexOf(await page.getAttribute("li.row.selected", "data-id"));
    expect(at).toBeGreaterThanOrEqual(0);
    const target = ids[Math.min(at + 2, ids.length - 1)];
    // No waiting between the presses: each must see the render the one before it caused.
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.hash.endsWith(`/message/${target}`), { timeout: 15_000 });
    await page.waitForSelector(`article.message[data-id="${target}"]`, { timeout: 15_000 });
    await page.keyboard.press("u");
    await page.waitForURL((url) => url.hash.endsWith("/inbox"), { timeout: 15_000 });
    await page.waitForSelector(`li.row.selected[data-id="${target}"]`, { timeout: 15_000 });
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
