import { Elysia } from "elysia";
import { DOCS_ASSET_PATHS, DOCS_CSP, DOCS_PAGE, docsAsset } from "./docs-page.ts";
import { buildOpenApiDocument } from "./openapi-document.ts";

/** Routes that are not operations of the API, so not in its document. */
export const UNDOCUMENTED = ["/openapi.json", "/docs", ...DOCS_ASSET_PATHS, "/console", "/console/app.js", "/console/app.css", "/mcp"];

/** GET /openapi.json (src/http/openapi-document.ts), GET /docs and the files the docs page loads. */
export function openapiRoutes(getApp: () => Elysia<any, any, any, any, any, any, any>, info: { version: string }) {
  let cached: { routes: number; doc: unknown } | undefined;
  let plugin = new Elysia({ name: "openapi" })
    .get(
      "/openapi.json",
      () => {
        const app = getApp();
        const routes = app.routes.length;
        if (!cached || cached.routes !== routes) cached = { routes, doc: buildOpenApiDocument(app.routes as never, app, info, UNDOCUMENTED) };
        return cached.doc;
      },
      { detail: { hide: true } },
    )
    .get("/docs", () => new Response(DOCS_PAGE, { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": DOCS_CSP } }), { detail: { hide: true } });
  for (const path of DOCS_ASSET_PATHS) {
    plugin = plugin.get(
      path,
      () => {
        const asset = docsAsset(path)!;
        return new Response(asset.body, { headers: { "content-type": asset.type, "cache-control": "public, max-age=3600" } });
      },
      { detail: { hide: true } },
    ) as never;
  }
  return plugin;
}
