/**
 * The baseline for the start-up and RSS benchmarks (scripts/bench/mcp.ts): the smallest
 * server the official SDK makes, one `McpServer` with one tool served by `serveStdio`, and
 * nothing else (no store, no executor, no worker). It exits when stdin ends.
 *
 *   deno run <the flags of src/cli/permissions.ts> scripts/bench/hello_server.ts
 *
 * @module
 */

import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

/** The hello server for one connection; `onCall` hears every call (scripts/bench/hello_collect_server.ts). */
export function helloServer(onCall?: () => void): McpServer {
  const mcp = new McpServer({ name: "hello", version: "0.0.0" }, { capabilities: { tools: {} } });
  mcp.registerTool("hello", {
    description: "Say hello",
    inputSchema: z.object({ name: z.string() }),
  }, ({ name }) => {
    onCall?.();
    return { content: [{ type: "text", text: `Hello, ${name}!` }] };
  });
  return mcp;
}

if (import.meta.main) serveStdio(() => helloServer());
