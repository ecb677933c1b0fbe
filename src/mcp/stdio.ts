#!/usr/bin/env bun
/**
 * The MCP server over stdio, for desktop agent clients: `mailroom mcp` or `bun run mcp`.
 * Calls the service at MAILROOM_URL with MAILROOM_TOKEN (a mailbox API key) over HTTP, so the
 * same API rules apply as for /mcp. Logs go to stderr: stdout is the protocol.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import pkg from "../../package.json" with { type: "json" };
import { MailroomError } from "../../clients/typescript/src/index.ts";
import { toolContext } from "./context.ts";
import { createMcpServer } from "./tools.ts";

export async function runStdio(env: Record<string, string | undefined> = process.env): Promise<void> {
  if (!env.MAILROOM_TOKEN) throw new Error("MAILROOM_TOKEN must be a mailbox API key (svc_…)");
  const ctx = await toolContext({ baseUrl: env.MAILROOM_URL ?? "http://localhost:3000", token: env.MAILROOM_TOKEN });
  const server = createMcpServer(ctx, { version: pkg.version });
  await server.connect(new StdioServerTransport());
  console.error(`mailroom mcp: serving ${ctx.me.mailbox?.email_address} over stdio`);
}

if (import.meta.main) {
  runStdio().catch((err) => {
    console.error(err instanceof MailroomError ? `mailroom mcp: ${err.code}: ${err.message}` : `mailroom mcp: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  });
}
