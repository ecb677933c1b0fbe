/**
 * GET /docs in a real browser that may reach nothing but the service: the reference renders
 * every operation, and the page asks for nothing elsewhere.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { startTestService, type TestService } from "./harness.ts";

const SLOW = 180_000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`SKIPPED the /docs browser test: ${CHROMIUM} is absent (install it with: apt-get install -y chromium)`);

let t: TestService;
let browser: Browser;
// Without the browser the suite below is skipped, and so is what it needs.
beforeAll(async () => {
  if (!haveChromium) return;
  t = await startTestService();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}, SLOW);
afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

describe.skipIf(!haveChromium)("GET /docs in a browser without a network", () => {
  test("renders the reference from the service alone", async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    const origin = new URL(t.url).origin;
    // Anything not for the service is refused and recorded, as on a machine without internet.
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(origin) || url.startsWith("data:")) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${t.url}/docs`);
    await page.waitForSelector(".swagger-ui .info .title", { timeout: 60_000 });
    expect(await page.textContent(".swagger-ui .info .title")).toContain("Mailroom API");
    // One block per operation of the document.
    const doc = (await t.api("GET", "/openapi.json", { token: null })).body;
    const operations = Object.values<any>(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    // Runs in the page, where `document` is the DOM's (this project's types have no DOM).
    await page.waitForFunction((n) => (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document.querySelectorAll(".opblock").length >= n, operations, { timeout: 60_000 });
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, SLOW);
});
