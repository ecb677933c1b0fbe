import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/**
 * GET /docs: Swagger UI, served from the installed swagger-ui-dist package, so the reference
 * works on a machine without internet. The page loads only same-origin files, and its
 * Content-Security-Policy keeps it that way (the UI's online validator badge is off).
 */

const require = createRequire(import.meta.url);

/** Served path → [file of swagger-ui-dist, or our own text, content type]. */
const ASSETS: Readonly<Record<string, { file?: string; text?: string; type: string }>> = {
  "/docs/swagger-ui.css": { file: "swagger-ui-dist/swagger-ui.css", type: "text/css; charset=utf-8" },
  "/docs/swagger-ui-bundle.js": { file: "swagger-ui-dist/swagger-ui-bundle.js", type: "text/javascript; charset=utf-8" },
  "/docs/init.js": {
    text: `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
`,
    type: "text/javascript; charset=utf-8",
  },
};

export const DOCS_ASSET_PATHS = Object.keys(ASSETS);

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>Mailroom API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css" />
</head>
<body>
  <noscript>The API reference needs JavaScript. The raw document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

/** Same origin only; Swagger UI sets inline styles and shows data: images. */
export const DOCS_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

const cache = new Map<string, Uint8Array>();

/** The bytes of a docs asset, read once from node_modules; undefined for an unknown path. */
export function docsAsset(path: string): { body: Uint8Array; type: string } | undefined {
  const asset = ASSETS[path];
  if (!asset) return undefined;
  let body = cache.get(path);
  if (!body) {
    body = asset.file ? readFileSync(require.resolve(asset.file)) : new TextEncoder().encode(asset.text ?? "");
    cache.set(path, body);
  }
  return { body, type: asset.type };
}
