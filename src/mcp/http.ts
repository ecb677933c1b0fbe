import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Elysia } from "elysia";
import { toolContext } from "./context.ts";
import { createMcpServer } from "./tools.ts";

/** Base of the in-process calls: any origin does, app.handle routes by path (and Host for the protocol). */
const IN_PROCESS = "http://mailroom.internal";

/**
 * /mcp: the MCP server over Streamable HTTP, stateless (a server per request, JSON answers), so
 * any node answers any request. The pipeline has already authenticated the caller (401 without
 * a key) and counted the call; every tool then calls the API in-process with the caller's own
 * Authorization header, so the API's auth, tier, policy, suppressions, idempotency and rate
 * limits apply exactly as they do over HTTP.
 */
export function mcpRoutes(handle: (request: Request) => Promise<Response>, info: { version: string }) {
  const serve = async ({ request, body }: { request: Request; body: unknown }) => {
    const authorization = request.headers.get("authorization") ?? "";
    const ctx = await toolContext({ baseUrl: IN_PROCESS, token: authorization.replace(/^Bearer[ \t]+/i, "").trim(), fetch: handle, retries: 0 });
    const server = createMcpServer(ctx, info);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody: body ?? undefined });
    } finally {
      // JSON answers are complete when handleRequest resolves; the per-request server goes with it.
      void server.close();
    }
  };
  // JSON-RPC, not a REST operation: described in README "Agent tools", not in the OpenAPI document.
  const detail = (summary: string) => ({ summary, hide: true });
  return new Elysia({ name: "mcp" })
    .post("/mcp", serve, { detail: detail("MCP (Streamable HTTP)") })
    .get("/mcp", serve, { detail: detail("MCP server-sent stream (not offered: 405)") })
    .delete("/mcp", serve, { detail: detail("MCP session end (stateless: 405)") });
}
