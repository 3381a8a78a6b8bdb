/**
 * Serving the factory over stdio (`serveStdio`) and streamable HTTP (`createMcpHandler`
 * behind `Deno.serve`). The SDK does the JSON-RPC; this module adds the bounds, the
 * DNS-rebinding checks, bearer authentication and an observable close.
 *
 * @module
 */

import { isLoopbackHost } from "../base/net.ts";
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
import {
  HTTP_BODY_TIMEOUT_MS,
  HTTP_CONCURRENT_REQUESTS_MAX,
  HTTP_PENDING_BODIES_MAX,
  HTTP_PENDING_BODIES_PER_CLIENT_MAX,
  LOG_TRANSPORT_ERROR_CHARS_MAX,
  MCP_MESSAGE_BYTES_MAX,
} from "../base/limits.ts";
import type { Logger } from "../base/log.ts";
import { type LineIo, LineTransport, processStdio } from "./stdio_framing.ts";

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

/** How {@linkcode serveOnStdio} serves. */
export interface StdioOptions {
  log: Logger;
  /** Hears every chunk read and every line written (the idle collection's activity, src/base/idle_collect.ts). */
  onActivity?: (() => void) | undefined;
  /** The stdio served: the process's by default; scripts/bench/bench_server.ts passes one that times each line. */
  io?: LineIo | undefined;
}

/**
 * Serves MCP on stdin/stdout through longcall's own line framing (src/mcp/stdio_framing.ts):
 * every line that is not valid JSON-RPC is answered (-32700 / -32600) and an over-long line is
 * skipped with an answer, never closing the session. stdout carries only protocol messages.
 * `inputEnded` resolves when stdin ends; `closed` when the transport has closed (it closes itself
 * right after the end of input). `options.onActivity` hears every chunk read and every line written
 * (the idle collection's activity, src/base/idle_collect.ts).
 */
export function serveOnStdio(
  factory: McpServerFactory,
  options: StdioOptions,
): Serving & { inputEnded: Promise<void> } {
  const { log, onActivity, io = processStdio() } = options;
  const transport = new LineTransport(observedStdio(io, onActivity), { lineBytesMax: MCP_MESSAGE_BYTES_MAX });
  const handle = serveStdio(factory, {
    transport,
    onerror: (error) => log.warn("stdio transport error", { error: firstLine(error.message) }),
  });
  return { closed: transport.closed, inputEnded: transport.inputEnded, close: () => handle.close() };
}

/** `io`, telling `onActivity` (if any) of every chunk read and every line written, after `io`'s own `onChunk`. */
export function observedStdio(io: LineIo, onActivity: (() => void) | undefined): LineIo {
  if (onActivity === undefined) return io;
  const heard = io.onChunk;
  return {
    input: io.input,
    onChunk: heard === undefined ? onActivity : () => {
      heard();
      onActivity();
    },
    write: (bytes) => {
      onActivity();
      return io.write(bytes);
    },
  };
}

export interface HttpOptions {
  hostname: string;
  port: number;
  /** The bearer token every request must carry. Required unless `noAuth`. */
  token?: string | undefined;
  /**
   * Explicit opt-in to serve without a bearer token (loopback only, for local conformance runs).
   * Such requests act as {@linkcode NO_AUTH_AUTHORITY}: they never see jobs created with a token
   * or by the local authority (stdio, CLI).
   */
  noAuth?: boolean;
  log: Logger;
  /** Called with the bound port once listening. */
  onListen?: (port: number) => void;
  /** Requests wait for this before they are handled (the server narrows its permissions first). */
  gate?: Promise<void>;
  /** Slow-client bounds (tests shorten them; defaults from src/base/limits.ts). */
  bounds?: Partial<HttpBounds>;
  /** Called when a request arrives and when its answer is ready (the idle collection's activity). */
  onActivity?: () => void;
}

/** The bounds on requests whose bodies are still arriving. */
export interface HttpBounds {
  bodyTimeoutMs: number;
  pendingBodiesMax: number;
  pendingBodiesPerClientMax: number;
}

/** Counters of the slow-client defences (observable by tests and logged on eviction). */
export interface HttpStats {
  /** Requests whose bodies are being read right now. */
  pendingBodies: number;
  /** Requests answered 408 because their body did not arrive within the deadline. */
  timedOut: number;
  /** Requests answered 408 because newer requests needed their place. */
  evicted: number;
}

/** The authority of every request served under `--http-no-auth`: its own scope, never the local one. */
export const NO_AUTH_AUTHORITY = "http-no-auth";

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

/** A JSON-RPC `error` (id null) as an HTTP response with `status`, and `options.headers` beside the content type. */
function jsonError(
  status: number,
  error: { code: number; message: string },
  options: { headers?: Record<string, string> } = {},
): Response {
  const { code, message } = error;
  const { headers = {} } = options;
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

interface PendingBody {
  client: string;
  abort(why: "timeout" | "evicted"): void;
}

/**
 * Reads request bodies under a deadline and two bounds (in total and per client). A request past
 * a bound evicts the oldest pending one in that scope (it is answered 408), so a crowd of slow
 * clients can delay nobody for longer than it takes to replace one of them.
 */
class BodyReader {
  readonly stats: HttpStats = { pendingBodies: 0, timedOut: 0, evicted: 0 };
  readonly #pending: PendingBody[] = [];
  readonly #bounds: HttpBounds;
  readonly #log: Logger;

  constructor(bounds: HttpBounds, log: Logger) {
    this.#bounds = bounds;
    this.#log = log;
  }

  #admit(entry: PendingBody): void {
    const ofClient = this.#pending.filter((p) => p.client === entry.client);
    if (ofClient.length >= this.#bounds.pendingBodiesPerClientMax) ofClient[0]?.abort("evicted");
    if (this.#pending.length >= this.#bounds.pendingBodiesMax) this.#pending[0]?.abort("evicted");
    this.#pending.push(entry);
    this.stats.pendingBodies = this.#pending.length;
  }

  #remove(entry: PendingBody): void {
    const i = this.#pending.indexOf(entry);
    if (i >= 0) this.#pending.splice(i, 1);
    this.stats.pendingBodies = this.#pending.length;
  }

  /** The whole body, or the error response to send instead. */
  async read(body: ReadableStream<Uint8Array>, client: string): Promise<Uint8Array<ArrayBuffer> | Response> {
    const reader = body.getReader();
    let reason: "timeout" | "evicted" | undefined;
    const entry: PendingBody = {
      client,
      abort: (why) => {
        if (reason !== undefined) return;
        reason = why;
        this.#remove(entry);
        reader.cancel().catch(() => {});
      },
    };
    this.#admit(entry);
    const timer = setTimeout(() => entry.abort("timeout"), this.#bounds.bodyTimeoutMs);
    const chunks: Uint8Array[] = [];
    let length = 0;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        length += value.length;
        if (length > MCP_MESSAGE_BYTES_MAX) {
          reader.cancel().catch(() => {});
          return jsonError(413, {
            code: -32000,
            message: `Payload too large: a request body is at most ${MCP_MESSAGE_BYTES_MAX} bytes`,
          }, {
            headers: {
              connection: "close",
            },
          });
        }
        chunks.push(value);
      }
    } catch {
      if (reason === undefined) {
        return jsonError(400, { code: -32000, message: "Bad request: the request body could not be read" });
      }
    } finally {
      clearTimeout(timer);
      this.#remove(entry);
    }
    if (reason === "timeout") {
      this.stats.timedOut++;
      return jsonError(408, {
        code: -32000,
        message: `Request Timeout: the request body did not arrive within ${this.#bounds.bodyTimeoutMs} ms`,
      }, { headers: { connection: "close" } });
    }
    if (reason === "evicted") {
      this.stats.evicted++;
      this.#log.warn("http: a slow request body was dropped for a newer request", { client_pending: client });
      return jsonError(408, {
        code: -32000,
        message: "Request Timeout: too many requests were still sending their bodies; this one had waited longest",
      }, { headers: { connection: "close" } });
    }
    const out = new Uint8Array(length);
    let offset = 0;
    for (const c of chunks) {
      out.set(c, offset);
      offset += c.length;
    }
    return out;
  }
}

/**
 * Serves MCP at `/mcp` over streamable HTTP. A bearer token is always required unless `noAuth`
 * (loopback only) is set explicitly; `Host` and `Origin` are validated against the bound address
 * (DNS-rebinding protection). Bodies are read under a deadline and per-client and total bounds
 * before a request takes one of the {@linkcode HTTP_CONCURRENT_REQUESTS_MAX} handling slots, so
 * slow clients cannot starve the others.
 *
 * @throws {AppError} `invalid_argument` without a token and without `noAuth`, or with `noAuth`
 * on a non-loopback address.
 */
export function serveOnHttp(
  factory: McpServerFactory,
  options: HttpOptions,
): Serving & { port: Promise<number>; stats: () => HttpStats } {
  if (options.noAuth === true && options.token !== undefined) {
    throw new AppError("invalid_argument", "Cannot serve HTTP: a bearer token and --http-no-auth exclude each other");
  }
  if (options.noAuth === true && !isLoopbackHost(options.hostname)) {
    throw new AppError(
      "invalid_argument",
      `Cannot listen on ${options.hostname} without authentication: --http-no-auth is for loopback addresses only`,
    );
  }
  if (options.noAuth !== true && options.token === undefined) {
    throw new AppError("invalid_argument", "Cannot serve HTTP: a bearer token is required (or --http-no-auth)");
  }
  const handler = createMcpHandler(factory, {
    maxRequestBodySize: MCP_MESSAGE_BYTES_MAX,
    onerror: (error) => options.log.warn("http transport error", { error: firstLine(error.message) }),
  });
  const allowedHosts = isLoopbackHost(options.hostname)
    ? localhostAllowedHostnames()
    : [...localhostAllowedHostnames(), options.hostname];
  const allowedOrigins = isLoopbackHost(options.hostname)
    ? localhostAllowedOrigins()
    : [...localhostAllowedOrigins(), options.hostname];
  const token = options.token;
  const tokenAuthority = token === undefined ? Promise.resolve(NO_AUTH_AUTHORITY) : authorityFor(token);
  const bodies = new BodyReader({
    bodyTimeoutMs: options.bounds?.bodyTimeoutMs ?? HTTP_BODY_TIMEOUT_MS,
    pendingBodiesMax: options.bounds?.pendingBodiesMax ?? HTTP_PENDING_BODIES_MAX,
    pendingBodiesPerClientMax: options.bounds?.pendingBodiesPerClientMax ?? HTTP_PENDING_BODIES_PER_CLIENT_MAX,
  }, options.log);
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
  }, async (req, info) => {
    options.onActivity?.();
    try {
      return await serveRequest(req, info);
    } finally {
      options.onActivity?.();
    }
  });
  async function serveRequest(req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>): Promise<Response> {
    if (options.gate !== undefined) await options.gate;
    const url = new URL(req.url);
    if (url.pathname !== "/mcp") return jsonError(404, { code: -32000, message: "Not found: MCP is served at /mcp" });
    const badHost = hostHeaderValidationResponse(req, allowedHosts);
    if (badHost !== undefined) return badHost;
    const badOrigin = originValidationResponse(req, allowedOrigins);
    if (badOrigin !== undefined) return badOrigin;
    if (token !== undefined) {
      const header = req.headers.get("authorization") ?? "";
      // The scheme is case-insensitive (RFC 7235); the token is compared in constant time.
      const presented = /^bearer +(.+)$/i.exec(header)?.[1] ?? "";
      if (!timingSafeEqual(presented, token)) {
        return jsonError(401, { code: -32001, message: "Unauthorized: a valid bearer token is required" }, {
          headers: {
            "www-authenticate": 'Bearer realm="longcall"',
          },
        });
      }
    }
    const authority = await tokenAuthority;
    let forwarded = req;
    if (req.body !== null) {
      const declared = Number(req.headers.get("content-length") ?? "0");
      if (declared > MCP_MESSAGE_BYTES_MAX) {
        return jsonError(413, {
          code: -32000,
          message: `Payload too large: a request body is at most ${MCP_MESSAGE_BYTES_MAX} bytes`,
        }, {
          headers: {
            connection: "close",
          },
        });
      }
      const body = await bodies.read(req.body, `${authority}@${info.remoteAddr.hostname}`);
      if (body instanceof Response) return body;
      // The original request's signal aborts when the client drops the connection; the SDK handler (and a
      // waiting jobs.get) must still see that.
      forwarded = new Request(req.url, { method: req.method, headers: req.headers, body, signal: req.signal });
    }
    if (inFlight >= HTTP_CONCURRENT_REQUESTS_MAX) {
      return jsonError(503, { code: -32000, message: "Server busy: too many concurrent requests" }, {
        headers: { "retry-after": "1" },
      });
    }
    inFlight++;
    try {
      return await handler.fetch(forwarded, {
        authInfo: { token: "[bearer]", clientId: "longcall-http", scopes: [], extra: { authority } },
      });
    } finally {
      inFlight--;
    }
  }
  return {
    port,
    stats: () => ({ ...bodies.stats }),
    closed: server.finished,
    close: async () => {
      await handler.close();
      await server.shutdown();
    },
  };
}
