/**
 * The console's inbox with a large mailbox, in Chromium.
 *
 *   bun bench/console-inbox.ts [--messages 10000] [--runs 7]
 *
 * Starts the service on a fresh PostgreSQL database (`{database of DATABASE_URL}_bench_…` on
 * its server, default the local one), seeds one mailbox with `--messages` synthetic processed
 * messages straight into the tables, signs in to /console with a key of that mailbox in
 * Debian's Chromium (playwright-core), and prints:
 *   - time to first render of the inbox: from navigation start to the first message row in the
 *     DOM, on the first load (the service bundles the console on its first request) and on
 *     reloads (median, min, max);
 *   - the messages list call at page 1 and at the last page (the console's pager), median;
 *   - the size of the JavaScript and CSS shipped, raw and gzipped.
 * Figures from a shared, loaded machine are noisy: compare runs made together.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import postgres from "postgres";
import { freePort, startService, stop, tempDir } from "./lib.ts";

// Functions given to page.evaluate run in the browser: its globals, loosely typed (this project compiles without the DOM lib).
declare const window: any;
declare const document: any;
declare const MutationObserver: any;

const { values } = parseArgs({ options: { messages: { type: "string", default: "10000" }, runs: { type: "string", default: "7" } } });
const MESSAGES = Number(values.messages);
const RUNS = Number(values.runs);
const CHROMIUM = "/usr/bin/chromium";
if (!existsSync(CHROMIUM)) {
  console.error(`${CHROMIUM} is absent: apt-get install -y chromium`);
  process.exit(1);
}

const baseUrl = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
const dbName = `${baseUrl.pathname.slice(1) || "postgres"}_bench_${Date.now()}`;
const server = postgres({ host: baseUrl.hostname, port: Number(baseUrl.port || 5432), user: decodeURIComponent(baseUrl.username || "postgres"), password: decodeURIComponent(baseUrl.password) || undefined, database: "postgres", max: 1, onnotice: () => {} });
await server.unsafe(`create database ${dbName}`);
const dbUrl = new URL(baseUrl);
dbUrl.pathname = `/${dbName}`;

const port = await freePort();
const admin = `bench-admin-${crypto.randomUUID()}`;
const svc = await startService({
  PORT: String(port),
  SMTP_PORT: String(await freePort()),
  HOST: "127.0.0.1",
  ADMIN_TOKEN: admin,
  DATABASE_URL: dbUrl.toString(),
  DATA_DIR: tempDir("mailroom-bench-"),
  API_KEY_RATE_LIMIT: "10000000",
});
const base = `http://127.0.0.1:${port}`;
const sqlc = postgres(dbUrl.toString(), { max: 4, onnotice: () => {} });
const profile = mkdtempSync(join(tmpdir(), "mailroom-bench-chromium-"));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

try {
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(base + path, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as any;
  };
  const acct = await call("POST", "/v1/accounts", admin, { slug: `bench-${Date.now().toString(36)}`, displayName: "Bench" });
  const mailbox = acct.primary_mailbox;
  const key: string = (await call("POST", `/v1/mailboxes/${mailbox.id}/api-keys`, admin, { name: "bench", scope: "mailbox" })).token;

  // Every row shares one raw blob: the list reads the parsed columns only.
  const sha = "0".repeat(64);
  await sqlc`insert into blobs (sha256, size, bytes) values (${sha}, 1, ${Buffer.from("x")}) on conflict do nothing`;
  const t0 = performance.now();
  const start = Date.now() - MESSAGES * 60_000;
  const risks = ["low", "low", "low", "medium", "high"];
  const triage = ["fyi", "reply_needed", "action_required", "newsletter", "notification"];
  for (let done = 0; done < MESSAGES; done += 1000) {
    const rows = Array.from({ length: Math.min(1000, MESSAGES - done) }, (_, i) => {
      const n = done + i;
      const at = new Date(start + n * 60_000);
      const text = `Message ${n}: the quarterly figures, the meeting on Thursday and the invoice ${n * 7}. Please reply when you can.`;
      return {
        id: crypto.randomUUID(),
        mailbox_id: mailbox.id,
        transport: "smtp",
        direction: "inbound",
        status: n % 3 === 0 ? "reviewed" : "processed",
        from_address: `sender${n % 97}@example${n % 13}.com`,
        to_address: mailbox.email_address,
        subject: `Quarterly figures ${n}`,
        snippet: text.slice(0, 200),
        text_body: text,
        extracted_text: text,
        risk_level: risks[n % risks.length],
        triage_label: triage[n % triage.length],
        raw_sha256: sha,
        raw_size: text.length,
        processed_at: at,
        created_at: at,
      };
    });
    await sqlc`insert into messages ${sqlc(rows)}`;
  }
  await sqlc`analyze messages`;
  console.log(`seeded ${MESSAGES} messages in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 1280, height: 800 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // Noted inside the page, when the first row enters the DOM, not when the driver notices it.
  await page.addInitScript(() => {
    const w = window as unknown as { __firstRow?: number };
    new MutationObserver((_: unknown, obs: { disconnect(): void }) => {
      if (document.querySelector("ol.messages li.row")) {
        w.__firstRow = performance.now();
        obs.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  const firstRow = async () => {
    await page.waitForSelector("ol.messages li.row", { timeout: 60_000 });
    return page.evaluate(() => (window as unknown as { __firstRow: number }).__firstRow);
  };

  // The service bundles the console on the first request for it.
  const b0 = performance.now();
  await (await fetch(`${base}/console`)).text();
  const buildMs = performance.now() - b0;

  // Signing in: from the click to the first row (whoami, then the first page).
  await page.goto(`${base}/console`);
  await page.fill("input[name=token]", key);
  const clickAt = await page.evaluate(() => performance.now());
  await page.click("button[type=submit]");
  const signIn = (await firstRow()) - clickAt;
  const total = await page.getAttribute(".list-head [data-total]", "data-total");

  const warm: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await page.reload();
    warm.push(await firstRow());
  }

  // Where one reload's time goes: the page's requests, by when they started and how long they took.
  await page.reload();
  const rendered = await firstRow();
  const requests: { name: string; start: number; ms: number }[] = await page.evaluate(() =>
    (performance as any).getEntriesByType("resource").map((e: { name: string; startTime: number; duration: number }) => ({ name: new URL(e.name).pathname, start: e.startTime, ms: e.duration })),
  );
  const nav = await page.evaluate(() => {
    const n = (performance as any).getEntriesByType("navigation")[0] as { responseEnd: number; domContentLoadedEventEnd: number };
    return { html: n.responseEnd, domContentLoaded: n.domContentLoadedEventEnd };
  });

  // The pager: the list call at the first and at the last page.
  const lastPage = Math.ceil(MESSAGES / 50);
  const timeList = async (p: number) => {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const q0 = performance.now();
      await call("GET", `/v1/mailboxes/${mailbox.id}/messages?page=${p}&limit=50`, key);
      times.push(performance.now() - q0);
    }
    return median(times);
  };
  const p1 = await timeList(1);
  const pLast = await timeList(lastPage);
  await context.close();

  const plain = { headers: { "accept-encoding": "identity" } };
  const js = new Uint8Array(await (await fetch(`${base}/console/app.js`, plain)).arrayBuffer());
  const css = new Uint8Array(await (await fetch(`${base}/console/app.css`, plain)).arrayBuffer());
  const html = new Uint8Array(await (await fetch(`${base}/console`)).arrayBuffer());
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

  console.log(`inbox of ${total} messages (${MESSAGES} seeded), 50 rows a page`);
  console.log(`first GET /console (bundles the console): ${fmt(buildMs)}`);
  console.log(`sign-in click to first row: ${fmt(signIn)}`);
  console.log(`time to first render (navigation start to first row), signed-in reload: median ${fmt(median(warm))} (min ${fmt(Math.min(...warm))}, max ${fmt(Math.max(...warm))}, ${RUNS} runs)`);
  console.log(
    `one reload: HTML by ${fmt(nav.html)}, DOMContentLoaded ${fmt(nav.domContentLoaded)}, first row ${fmt(rendered)}; requests: ${requests.map((r) => `${r.name} at ${r.start.toFixed(0)} for ${r.ms.toFixed(0)} ms`).join("; ")}`,
  );
  console.log(`GET messages page 1: median ${fmt(p1)}; page ${lastPage} (last): median ${fmt(pLast)}`);
  console.log(`shipped: JavaScript ${kib(js.length)} (${kib(Bun.gzipSync(js, { level: 9 }).length)} gzipped, as served to browsers), CSS ${kib(css.length)} (${kib(Bun.gzipSync(css, { level: 9 }).length)} gzipped), HTML ${kib(html.length)}`);
} finally {
  await sqlc.end();
  await stop(svc.proc);
  rmSync(profile, { recursive: true, force: true });
  await server.unsafe(`drop database if exists ${dbName} with (force)`);
  await server.end();
}
