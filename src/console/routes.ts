import { Elysia } from "elysia";
import type { ConsoleAsset, ConsoleBundle } from "./bundle.ts";
import { consolePage } from "./page.ts";

/**
 * The console's own policy: its script and stylesheet only, API calls to this origin, never
 * framed. Inline styles are allowed because a message's HTML is shown in an `about:srcdoc`
 * frame, which inherits this policy, and mail is laid out with inline styles; the frame adds
 * its own stricter policy (no script at all, no remote load) on top of it.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
};

const acceptsGzip = (request: Request) => /(^|[\s,])gzip(?!;\s*q=0(\.0*)?(\s|,|$))/i.test(request.headers.get("accept-encoding") ?? "");

function serveAsset(a: ConsoleAsset, request: Request): Response {
  const headers: Record<string, string> = { ...SECURITY_HEADERS, "content-type": a.type, etag: a.etag, "cache-control": "no-cache", vary: "accept-encoding" };
  const match = request.headers.get("if-none-match");
  if (match && match.split(",").some((m) => m.trim() === a.etag || m.trim() === `W/${a.etag}`)) return new Response(null, { status: 304, headers });
  if (acceptsGzip(request)) return new Response(a.gzip, { headers: { ...headers, "content-encoding": "gzip" } });
  return new Response(a.body, { headers });
}

/**
 * GET /console and its two assets. The page is a shell that loads the bundle; the console
 * signs in with a token the user types and calls the public API with it like any client.
 */
export function consoleRoutes(bundle: () => Promise<ConsoleBundle>) {
  return new Elysia({ name: "console" })
    .get(
      "/console",
      async () => {
        const b = await bundle();
        return new Response(consolePage(b), { headers: { ...SECURITY_HEADERS, "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" } });
      },
      { detail: { hide: true } },
    )
    .get("/console/app.js", async ({ request }) => serveAsset((await bundle()).js, request), { detail: { hide: true } })
    .get("/console/app.css", async ({ request }) => serveAsset((await bundle()).css, request), { detail: { hide: true } });
}
