import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Elysia } from "elysia";
import { AppError, validationError } from "../errors.ts";
import { toolContext } from "./context.ts";
import { createMcpServer } from "./tools.ts";
import type { MutationHooks } from "../http/pipeline.ts";

/** Base of the in-process calls: any origin does, app.handle routes by path (and Host for the protocol). */
const IN_PROCESS = "http://mailroom.internal";

const notOffered = () => {
  throw new AppError("method_not_allowed", "this MCP server is stateless: POST JSON-RPC messages to /mcp", { allowed: ["POST"] }, { Allow: "POST" });
};

/**
 * /mcp: the MCP server over Streamable HTTP, stateless (a server per request, JSON answers), so
 * any node answers any request. The pipeline has already authenticated the caller (401 without
 * a key) and counted the call; every tool then calls the API in-process with the caller's own
 * Authorization header, so the API's auth, tier, policy, suppressions, idempotency and rate
 * limits apply exactly as they do over HTTP.
 */
export function mcpRoutes(handle: (request: Request) => Promise<Response>, info: { version: string }, mutation: MutationHooks) {
  const serve = async ({ request, body, set, server: http }: { request: Request; body: unknown; set: { status?: number | string }; server?: { timeout?: (request: Request, seconds: number) => void } | null }) => {
    // A tool may hold the answer for minutes (wait_for_message), longer than the listener's
    // idle timeout; the caller is authenticated and every tool bounds its own time.
    http?.timeout?.(request, 0);
    const authorization = request.headers.get("authorization") ?? "";
    const ctx = await toolContext({ baseUrl: IN_PROCESS, token: authorization.replace(/^Bearer[ \t]+/i, "").trim(), fetch: handle, retries: 0 });
    if (body === undefined || body === null) throw validationError("body: a JSON-RPC message is required", [{ path: "body", message: "a JSON-RPC message is required" }]);
    const server = createMcpServer(ctx, info);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      // The pipeline has read the body as JSON already (any other media type is its 415), and
      // the answer is always JSON: the transport's own Accept and Content-Type checks have
      // nothing left to decide.
      const headers = new Headers(request.headers);
      headers.set("accept", "application/json, text/event-stream");
      headers.set("content-type", "application/json");
      const response = await transport.handleRequest(new Request(request.url, { method: "POST", headers, signal: request.signal }), { parsedBody: body });
      // Answered as a value, not the transport's Response, so an Idempotency-Key replays it like any POST.
      if (response.status < 400) {
        set.status = response.status;
        const text = await response.text();
        return text === "" ? null : JSON.parse(text);
      }
      // A message that is not JSON-RPC: the service's envelope, with the JSON-RPC error inside.
      const rpc = (await response.json().catch(() => ({}))) as { error?: { code?: number; message?: string } };
      throw new AppError("validation_error", `body: ${rpc.error?.message ?? "not a JSON-RPC message"}`, { fields: [{ path: "body", message: "is not a valid JSON-RPC message" }], jsonrpc_error: rpc.error ?? null });
    } finally {
      // JSON answers are complete when handleRequest resolves; the per-request server goes with it.
      void server.close();
    }
  };
  // JSON-RPC, not a REST operation: described in README "Agent tools", not in the OpenAPI document.
  const detail = (summary: string) => ({ summary, hide: true });
  return (
    new Elysia({ name: "mcp" })
      // Stateless: no server-initiated stream to open and no session to end (the MCP spec's 405).
      .get("/mcp", notOffered, { detail: detail("MCP server-sent stream (not offered: 405)") })
      .guard(mutation, (writes) =>
        writes.post("/mcp", serve as never, { detail: detail("MCP (Streamable HTTP)") }).delete("/mcp", notOffered, { detail: detail("MCP session end (stateless: 405)") }),
      )
  );
}
