/**
 * Test helpers that drive an MCP server with the official client packages:
 *
 * - `connectLegacyV1`: `@modelcontextprotocol/sdk@1.32.2` Client (2025 `initialize` handshake).
 * - `connectV2`: `@modelcontextprotocol/client@2.4.0` Client, legacy or modern (pinned 2026-07-28).
 * - `connectTaskHost`: a modern v2 Client wrapped by `createTaskSessionFromClient` from
 *   `@modelcontextprotocol/ext-tasks/client`, so `tools/call` may return a task that the session
 *   polls with `tasks/get` until it settles.
 * - `spawnHttpServer`: start a streamable-HTTP server child and wait for its port.
 *
 * Targets are `{command, args, env?}` (stdio; the helper spawns the child) or `{url, bearerToken?}`
 * (streamable HTTP). See docs/notes/sdk.md for the facts these helpers rely on.
 *
 * Parts (testing/mcp_clients/): targets.ts (targets, client identity, the explicit-permission guard),
 * envelope.ts (the modern `_meta` envelope and its constants), lifecycle.ts (connect-or-close, output-schema
 * validation, graceful stdio close), legacy_v1.ts (the v1 client), raw_channel.ts (raw JSON-RPC on an SDK-owned
 * transport), v2.ts (the v2 client), task_host.ts (v2 + ext-tasks session), http_server.ts (the HTTP server
 * child). This file only re-exports them, so callers import one path.
 *
 * Deno permissions needed by a test using them (see the notes):
 *   --allow-env=OSTYPE,HOME,LOGNAME,PATH,SHELL,TERM,USER,NODE_V8_COVERAGE
 *   --allow-run=<real path of deno, i.e. Deno.execPath()>   (stdio children and spawnHttpServer)
 *   --allow-net=127.0.0.1                                    (HTTP targets)
 *
 * @module
 */

export {
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  MODERN_PROTOCOL_VERSION,
  TASKS_EXTENSION_ID,
} from "./mcp_clients/envelope.ts";
export { type SpawnedHttpServer, spawnHttpServer, type SpawnHttpServerOptions } from "./mcp_clients/http_server.ts";
export { connectLegacyV1, type LegacyV1Options, V1Client } from "./mcp_clients/legacy_v1.ts";
export { outputSchemasOf } from "./mcp_clients/lifecycle.ts";
export { type JsonRpcErrorObject, type RawResponse, type RawSendOptions } from "./mcp_clients/raw_channel.ts";
export {
  assertExplicitPermissionFlags,
  type ClientIdentity,
  DENO_CACHE_ENV_VARS,
  denoCacheEnv,
  denoExecPath,
  type HttpTarget,
  type ServerTarget,
  type StdioTarget,
} from "./mcp_clients/targets.ts";
export { connectTaskHost, type TaskCallResult, type TaskHost, type TaskHostOptions } from "./mcp_clients/task_host.ts";
export {
  Client,
  connectV2,
  type Era,
  type RawRequestOptions,
  type V2Connection,
  type V2Options,
} from "./mcp_clients/v2.ts";
