/**
 * Serving the factory over stdio (`serveStdio`) and streamable HTTP (`createMcpHandler`
 * behind `Deno.serve`). The SDK does the JSON-RPC; this module adds the bounds, the
 * DNS-rebinding checks, bearer authentication and an observable close.
 *
 * @module
 */

import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServerFactory,
  originValidationResponse,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { AppError } from "../base/errors.ts";
import { HTTP_CONCURRENT_REQUESTS_MAX, LOG_TRANSPORT_ERROR_CHARS_MAX, MCP_MESSAGE_BYTES_MAX } from "../base/limits.ts";
import type { Logger } from "../base/log.ts";
import { LineTransport, processStdio } from "./stdio_framing.ts";

/** Transport errors can carry whole validation reports; a log line keeps the gist. */
function firstLine(message: string): string {
  const flat = message.replace(/\s+/g, " ").trim();
  return flat.length <= LOG_TRANSPORT_ERROR_CHARS_MAX ? flat : `${flat.slice(0, LOG_TRANSPORT_ERROR_CHARS_MAX)}...`;
}

/** A running server: resolves `closed` when the transport ends; `close()` ends it. */
export interface Serving {
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves MCP on stdin/stdout through longcall's own line framing (src/mcp/stdio_framing.ts):
 * every line that is not valid JSON-RPC is answered (-32700 / -32600) and an over-long line is
 * skipped with an answer, never closing the session. stdout carries only protocol messages.
 * `inputEnded` resolves when stdin ends; `closed` when the transport has closed (it closes itself
 * right after the end of input).
 */
export function serveOnStdio(factory: McpServerFactory, log: Logger): Serving & { inputEnded: Promise<void> } {
  const transport = new LineTransport(processStdio(), MCP_MESSAGE_BYTES_MAX);
  const handle = serveStdio(factory, {
    transport,
    onerror: (error) => log.warn("stdio transport error", { error: firstLine(error.message) }),
  });
  return { closed: transport.closed, inputEnded: transport.inputEnded, close: () => handle.close() };
}

export interface HttpOptions {
  hostname: string;
  port: number;
  /** Required unless bound to loopback. */
  token?: string | undefined;
  log: Logger;
  /** Called with the bound port once listening. */
  onListen?: (port: number) => void;
  /** Requests wait for this before they are handled (the server narrows its permissions first). */
  gate?: Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Whether an address is loopback. */
export function isLoopback(hostname: string): boolean {
  return LOOPBACK.has(hostname) || hostname.startsWith("127.");
}

async function authorityFor(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`longcall-authority:${token}`));
  return [...new Uint8Array(digest)].slice(0, 16).map((b) => b.toString(16).padStart(2, "0")).join("");
}

function timingSafeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a), y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

function jsonError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/**
 * Serves MCP at `/mcp` over streamable HTTP. Loopback only unless a bearer token is set;
 * `Host` and `Origin` are validated against the bound address (DNS-rebinding protection).
 *
 * @throws {AppError} `invalid_argument` when asked to bind a non-loopback address without a token.
 */
export function serveOnHttp(factory: McpServerFactory, options: HttpOptions): Serving & { port: Promise<number> } {
  if (!isLoopback(options.hostname) && options.token === undefined) {
    throw new AppError(
      "invalid_argument",
      `Cannot listen on ${options.hostname}: a non-loopback address requires LONGCALL_HTTP_TOKEN (bearer authentication)`,
    );
  }
  const handler = createMcpHandler(factory, {
    maxRequestBodySize: MCP_MESSAGE_BYTES_MAX,
    onerror: (error) => options.log.warn("http transport error", { error: firstLine(error.message) }),
  });
  const allowedHosts = isLoopback(options.hostname)
    ? localhostAllowedHostnames()
    : [...localhostAllowedHostnames(), options.hostname];
  const allowedOrigins = isLoopback(options.hostname)
    ? localhostAllowedOrigins()
    : [...localhostAllowedOrigins(), options.hostname];
  const tokenAuthority = options.token === undefined ? undefined : authorityFor(options.token);
  let inFlight = 0;
  let resolvePort: (port: number) => void = () => {};
  const port = new Promise<number>((resolve) => resolvePort = resolve);

  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: ({ port }) => {
      resolvePort(port);
      options.onListen?.(port);
    },
  }, async (req) => {
    if (options.gate !== undefined) await options.gate;
    const url = new URL(req.url);
    if (url.pathname !== "/mcp") return jsonError(404, -32000, "Not found: MCP is served at /mcp");
    const badHost = hostHeaderValidationResponse(req, allowedHosts);
    if (badHost !== undefined) return badHost;
    const badOrigin = originValidationResponse(req, allowedOrigins);
    if (badOrigin !== undefined) return badOrigin;
    let authority: string | undefined;
    if (options.token !== undefined) {
      const header = req.headers.get("authorization") ?? "";
      const presented = header.startsWith("Bearer ") ? header.slice(7) : "";
      if (!timingSafeEqual(presented, options.token)) {
        return jsonError(401, -32001, "Unauthorized: a valid bearer token is required", {
          "www-authenticate": 'Bearer realm="longcall"',
        });
      }
      authority = await tokenAuthority;
    }
    if (inFlight >= HTTP_CONCURRENT_REQUESTS_MAX) {
      return jsonError(503, -32000, "Server busy: too many concurrent requests", { "retry-after": "1" });
    }
    inFlight++;
    try {
      return await handler.fetch(
        req,
        authority === undefined ? {} : {
          authInfo: { token: "[bearer]", clientId: "longcall-http", scopes: [], extra: { authority } },
        },
      );
    } finally {
      inFlight--;
    }
  });
  return {
    port,
    closed: server.finished,
    close: async () => {
      await handler.close();
      await server.shutdown();
    },
  };
}
