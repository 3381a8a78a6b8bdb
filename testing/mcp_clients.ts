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
 * Deno permissions needed by a test using them (see the notes):
 *   --allow-env=OSTYPE,HOME,LOGNAME,PATH,SHELL,TERM,USER,NODE_V8_COVERAGE
 *   --allow-run=<real path of deno, i.e. Deno.execPath()>   (stdio children and spawnHttpServer)
 *   --allow-net=127.0.0.1                                    (HTTP targets)
 */
import { Client as V1Client } from "@modelcontextprotocol/sdk/client";
// The `./*` export of sdk@1.32.2 maps types to `*.js.d.ts`, which does not exist, so the
// `.js` deep imports silently type as `any`. The pragmas point the types at the right files.
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport as V1StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  Client,
  type ClientCapabilities,
  isJSONRPCResponse,
  type JSONRPCMessage,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  createTaskSessionFromClient,
  type DispatchOptions,
  type JsonRpcResponse,
  type TaskEnabledSession,
  type TaskOutcome,
  type TaskView,
} from "@modelcontextprotocol/ext-tasks/client";
import type { JsonValue } from "@modelcontextprotocol/ext-tasks/core";
import { observeTransport, type OutputSchemaValidator, violationText } from "./output_schemas.ts";

export { Client, V1Client };

export const MODERN_PROTOCOL_VERSION = "2026-07-28";
export const TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks";
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

/** A server the helper spawns and talks to over stdio. */
export interface StdioTarget {
  command: string;
  args: string[];
  /**
   * Extra environment for the child. NOTE: under Deno, `node:child_process` MERGES this with the
   * parent's environment (it is not a replacement), and both SDK transports add HOME, LOGNAME,
   * PATH, SHELL, TERM, USER from the parent. To hide a parent variable, set it to "".
   */
  env?: Record<string, string>;
  cwd?: string;
  /** Child stderr handling; default "inherit" (server logs show up in the test output). */
  stderr?: "inherit" | "ignore" | "pipe";
}

/** A streamable-HTTP endpoint. */
export interface HttpTarget {
  url: string | URL;
  /** Sent as `Authorization: Bearer <token>` on every request. */
  bearerToken?: string;
  /** Extra headers sent on every request. */
  headers?: Record<string, string>;
}

export type ServerTarget = StdioTarget | HttpTarget;

export interface ClientIdentity {
  name: string;
  version: string;
}

const DEFAULT_CLIENT_INFO: ClientIdentity = {
  name: "longcall-test",
  version: "0.0.0",
};

function isStdioTarget(target: ServerTarget): target is StdioTarget {
  return "command" in target;
}

const PERMISSION_FLAG = /^(-A|--allow-all|--allow-[a-z-]+(=.*)?|--deny-[a-z-]+(=.*)?|-[A-Z]+)$/;
const DENO_SUBCOMMANDS_WITH_PERMISSIONS = new Set(["run", "serve", "test", "bench", "eval"]);

/**
 * Guard against the Deno `node:child_process` trap: `deno run ...` with no permission flag is
 * rewritten to `deno run -A ...` (observed when the command is the real deno path, i.e.
 * `Deno.execPath()`; `--no-prompt` alone does not count). Throws unless the args contain an
 * explicit `--allow-*`/`--deny-*`/`-A` flag before the script.
 */
export function assertExplicitPermissionFlags(target: StdioTarget): void {
  const base = target.command.split(/[\\/]/).pop() ?? "";
  if (!/^deno(\.exe)?$/.test(base)) return;
  const sub = target.args[0];
  if (sub === undefined || !DENO_SUBCOMMANDS_WITH_PERMISSIONS.has(sub)) return;
  const flags: string[] = [];
  for (const arg of target.args.slice(1)) {
    if (!arg.startsWith("-")) break;
    flags.push(arg);
  }
  if (!flags.some((flag) => PERMISSION_FLAG.test(flag))) {
    throw new Error(
      `refusing to spawn ${JSON.stringify([target.command, ...target.args])}: pass an explicit ` +
        "permission flag (e.g. --deny-net or --allow-read=...), otherwise node:child_process " +
        "silently runs the child with -A",
    );
  }
}

/** The real path of the running deno binary (needs no permission in Deno 2.9.6; grant it in --allow-run). */
export function denoExecPath(): string {
  return Deno.execPath();
}

function httpRequestInit(target: HttpTarget): RequestInit {
  const headers: Record<string, string> = { ...target.headers };
  if (target.bearerToken !== undefined) {
    headers["Authorization"] = `Bearer ${target.bearerToken}`;
  }
  return { headers };
}

// ---------------------------------------------------------------------------
// v1 (@modelcontextprotocol/sdk@1.32.2): always the legacy initialize handshake
// ---------------------------------------------------------------------------

export interface LegacyV1Options {
  clientInfo?: ClientIdentity;
  /** Capabilities sent in `initialize` (v1 shape). */
  capabilities?: Record<string, unknown>;
}

/** Connects a `@modelcontextprotocol/sdk@1.32.2` Client. `client.close()` also reaps a stdio child. */
export async function connectLegacyV1(
  target: ServerTarget,
  options: LegacyV1Options = {},
): Promise<V1Client> {
  const client = new V1Client(options.clientInfo ?? DEFAULT_CLIENT_INFO, {
    capabilities: options.capabilities ?? {},
  });
  if (isStdioTarget(target)) {
    assertExplicitPermissionFlags(target);
    const transport = new V1StdioClientTransport({
      command: target.command,
      args: target.args,
      ...(target.env === undefined ? {} : { env: target.env }),
      ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
      stderr: target.stderr ?? "inherit",
    });
    await connectOrClose(() => client.connect(transport), () => transport.close());
    const sdkClose = client.close.bind(client);
    client.close = async () => {
      await endStdinAndAwaitExit(transport);
      await sdkClose();
    };
    await validateOutputs(client, transport);
  } else {
    const transport = new V1StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: httpRequestInit(target),
    });
    await connectOrClose(() => client.connect(transport), () => transport.close());
    await validateOutputs(client, transport);
  }
  return client;
}

const VALIDATORS = new WeakMap<object, OutputSchemaValidator>();

/** The output-schema validator of a connected client (see testing/output_schemas.ts). */
export function outputSchemasOf(client: V1Client | Client): OutputSchemaValidator {
  const v = VALIDATORS.get(client);
  if (v === undefined) throw new Error("client was not connected through mcp_clients.ts");
  return v;
}

/**
 * Every structuredContent this client sees is validated against its tool's outputSchema from
 * `tools/list` (listed once here, so the schemas are known before the first call); `close()` fails
 * when anything did not validate.
 */
async function validateOutputs(client: V1Client | Client, transport: unknown): Promise<OutputSchemaValidator> {
  const validator = observeTransport(transport);
  VALIDATORS.set(client, validator);
  try {
    await client.listTools();
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  const close = client.close.bind(client);
  client.close = async () => {
    await close();
    validator.assertNoViolations();
  };
  return validator;
}

interface ChildProcessLike {
  exitCode: number | null;
  signalCode: string | null;
  stdin?: { end(): void } | null;
  once(event: "close", listener: () => void): unknown;
}

/**
 * Graceful stdio shutdown as a host does it: end the child's stdin and wait for it to exit
 * (serveStdio exits on stdin EOF). Both SDK StdioClientTransport.close() implementations race
 * the exit against an unref'd 2 s setTimeout they never clear, which trips Deno's op/resource
 * sanitizers; once the child is gone (the transport's `_process` is unset by its "close"
 * handler) close() starts no timer. Reads the transport's private `_process`.
 */
async function endStdinAndAwaitExit(transport: unknown, timeoutMs = 2_000): Promise<void> {
  const proc = (transport as { _process?: ChildProcessLike })._process;
  if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const exited = new Promise<void>((resolve) => proc.once("close", () => resolve()));
  try {
    proc.stdin?.end();
  } catch { /* already closed */ }
  await Promise.race([
    exited,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    }),
  ]);
  clearTimeout(timer);
}

async function connectOrClose(
  connect: () => Promise<void>,
  close: () => Promise<void>,
): Promise<void> {
  try {
    await connect();
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}

// ---------------------------------------------------------------------------
// Raw JSON-RPC channel on a connected v2 transport
// ---------------------------------------------------------------------------

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** What a raw request produced: the JSON-RPC result object or the JSON-RPC error object. */
export type RawResponse =
  | { kind: "result"; result: Record<string, unknown> }
  | { kind: "error"; error: JsonRpcErrorObject };

export interface RawSendOptions {
  signal?: AbortSignal;
  /** Default 10 000 ms. */
  timeoutMs?: number;
  /** Extra HTTP headers (ignored on stdio; SDK-owned headers such as Mcp-Name cannot be overridden). */
  headers?: Record<string, string>;
}

/**
 * Sends JSON-RPC requests with its own string ids ("raw:N") on a transport the SDK Client already
 * owns, and intercepts their responses before the Client sees them (the Client would reject
 * unknown ids and `resultType: "task"` results). Must be attached AFTER `client.connect()`
 * (Protocol.connect chains, rather than replaces, an existing `onmessage`).
 */
class RawChannel {
  readonly #transport: Transport;
  readonly #pending = new Map<string, (response: RawResponse | Error) => void>();
  #next = 0;
  #closed = false;

  constructor(transport: Transport) {
    this.#transport = transport;
    const inner = transport.onmessage;
    transport.onmessage = <T extends JSONRPCMessage>(
      message: T,
      extra?: Parameters<NonNullable<Transport["onmessage"]>>[1],
    ) => {
      if (isJSONRPCResponse(message) && typeof message.id === "string") {
        const settle = this.#pending.get(message.id);
        if (settle !== undefined) {
          settle(toRawResponse(message));
          return;
        }
      }
      inner?.(message, extra);
    };
    const innerClose = transport.onclose;
    transport.onclose = () => {
      this.#closed = true;
      for (const settle of [...this.#pending.values()]) settle(new Error("transport closed"));
      innerClose?.();
    };
  }

  async send(
    body: { method: string; params?: Record<string, unknown> },
    options: RawSendOptions = {},
  ): Promise<RawResponse> {
    if (this.#closed) throw new Error("transport closed");
    const id = `raw:${++this.#next}`;
    const timeoutMs = options.timeoutMs ?? 10_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const settled = new Promise<RawResponse>((resolve, reject) => {
      this.#pending.set(id, (outcome) => {
        this.#pending.delete(id);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      });
      timer = setTimeout(() => {
        this.#pending.get(id)?.(new Error(`raw ${body.method} timed out after ${timeoutMs}ms`));
      }, timeoutMs);
      if (options.signal !== undefined) {
        onAbort = () => this.#pending.get(id)?.(new Error(`raw ${body.method} aborted`));
        if (options.signal.aborted) onAbort();
        else options.signal.addEventListener("abort", onAbort, { once: true });
      }
    });
    try {
      const message = {
        jsonrpc: "2.0" as const,
        id,
        method: body.method,
        ...(body.params === undefined ? {} : { params: body.params }),
      };
      await this.#transport.send(message as JSONRPCMessage, {
        ...(options.headers === undefined ? {} : { headers: options.headers }),
        ...(options.signal === undefined ? {} : { requestSignal: options.signal }),
      }).catch((error: unknown) => {
        // Streamable HTTP: a pre-dispatch rejection with a non-400 status (e.g. -32601 -> 404)
        // throws SdkHttpError from send(); its `data.text` holds the JSON-RPC error body.
        const fromHttp = jsonRpcErrorFromHttpError(error, id);
        const settle = this.#pending.get(id);
        if (settle === undefined) return;
        settle(fromHttp ?? (error instanceof Error ? error : new Error(String(error))));
      });
      return await settled;
    } finally {
      this.#pending.delete(id);
      if (timer !== undefined) clearTimeout(timer);
      if (onAbort !== undefined) options.signal?.removeEventListener("abort", onAbort);
    }
  }
}

function toRawResponse(message: unknown): RawResponse {
  const record = message as { result?: unknown; error?: unknown };
  if (record.error !== undefined) {
    const error = record.error as JsonRpcErrorObject;
    return {
      kind: "error",
      error: {
        code: error.code,
        message: error.message,
        ...(error.data === undefined ? {} : { data: error.data }),
      },
    };
  }
  return { kind: "result", result: (record.result ?? {}) as Record<string, unknown> };
}

function jsonRpcErrorFromHttpError(error: unknown, id: string): RawResponse | undefined {
  const text = (error as { data?: { text?: unknown } } | null)?.data?.text;
  if (typeof text !== "string") return undefined;
  try {
    const parsed = JSON.parse(text) as { id?: unknown; error?: unknown };
    if (parsed.error === undefined || (parsed.id !== id && parsed.id !== null)) return undefined;
    return toRawResponse(parsed);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------
// v2 (@modelcontextprotocol/client@2.4.0)
// ---------------------------------------------------------------------------

export type Era = "legacy" | "modern";

export interface V2Options {
  era: Era;
  clientInfo?: ClientIdentity;
  capabilities?: ClientCapabilities;
  /**
   * Modern stdio only. "in-place" (this helper's default): the `server/discover` probe runs on
   * the session child itself (one spawn). "sibling" (the SDK default for the base
   * StdioClientTransport, i.e. what a real v2 host does): the probe runs on a short-lived extra
   * child that is then SIGTERMed, and the real child starts afterwards; the SDK's sibling reaper
   * leaves an unref'd 1 s timer behind (trips Deno's sanitizers).
   */
  stdioProbe?: "sibling" | "in-place";
  /** Connect/probe timeout (SDK default 60 s). */
  connectTimeoutMs?: number;
}

export interface RawRequestOptions extends RawSendOptions {
  /**
   * Attach the modern `_meta` envelope (protocolVersion, clientInfo, clientCapabilities).
   * Default: true on a modern connection, false on a legacy one.
   */
  envelope?: boolean;
  /** Declare the tasks extension in the envelope's clientCapabilities. Default false. */
  declareTasks?: boolean;
  /** Extra `_meta` keys, applied last (can override envelope keys, e.g. protocolVersion). */
  meta?: Record<string, unknown>;
}

export interface V2Connection {
  readonly client: Client;
  /** The era the client actually negotiated (`client.getProtocolEra()`). */
  readonly era: Era;
  /** The capabilities the client declares (base for the modern envelope). */
  readonly capabilities: ClientCapabilities;
  readonly clientInfo: ClientIdentity;
  /** The stdio child's pid (undefined for HTTP or once it has exited). */
  readonly pid: number | undefined;
  /** Checks every structuredContent against its tool's outputSchema; `close()` fails on a violation. */
  readonly outputSchemas: OutputSchemaValidator;
  /** Modern `_meta` envelope for this client, optionally declaring the tasks extension. */
  envelope(declareTasks?: boolean): Record<string, unknown>;
  /** Sends a raw JSON-RPC request on the same transport; never throws for JSON-RPC errors. */
  rawRequest(
    method: string,
    params?: Record<string, unknown>,
    options?: RawRequestOptions,
  ): Promise<RawResponse>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** StdioClientTransport subclass: the SDK probes subclasses in place (no sibling process). */
class InPlaceProbeStdioClientTransport extends StdioClientTransport {}

function modernEnvelope(
  clientInfo: ClientIdentity,
  capabilities: ClientCapabilities,
  declareTasks: boolean,
): Record<string, unknown> {
  const extensions = {
    ...(capabilities.extensions ?? {}),
    ...(declareTasks ? { [TASKS_EXTENSION_ID]: {} } : {}),
  };
  return {
    [META_PROTOCOL_VERSION]: MODERN_PROTOCOL_VERSION,
    [META_CLIENT_INFO]: { ...clientInfo },
    [META_CLIENT_CAPABILITIES]: Object.keys(extensions).length === 0
      ? { ...capabilities }
      : { ...capabilities, extensions },
  };
}

interface Connected {
  client: Client;
  transport: Transport;
  raw: RawChannel;
  outputSchemas: OutputSchemaValidator;
}

async function openV2(target: ServerTarget, options: V2Options): Promise<Connected> {
  const client = new Client(options.clientInfo ?? DEFAULT_CLIENT_INFO, {
    capabilities: options.capabilities ?? {},
    versionNegotiation: options.era === "modern" ? { mode: { pin: MODERN_PROTOCOL_VERSION } } : { mode: "legacy" },
  });
  let transport: Transport;
  if (isStdioTarget(target)) {
    assertExplicitPermissionFlags(target);
    const params = {
      command: target.command,
      args: target.args,
      ...(target.env === undefined ? {} : { env: target.env }),
      ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
      stderr: target.stderr ?? "inherit",
    };
    transport = options.stdioProbe === "sibling"
      ? new StdioClientTransport(params)
      : new InPlaceProbeStdioClientTransport(params);
  } else {
    transport = new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: httpRequestInit(target),
    });
  }
  const connectOptions = options.connectTimeoutMs === undefined ? undefined : { timeout: options.connectTimeoutMs };
  await connectOrClose(
    () => client.connect(transport, connectOptions),
    () => client.close(),
  );
  const era = client.getProtocolEra();
  if (era !== options.era) {
    await client.close();
    throw new Error(`expected a ${options.era} connection, negotiated ${String(era)}`);
  }
  const raw = new RawChannel(transport);
  const outputSchemas = await validateOutputs(client, transport);
  return { client, transport, raw, outputSchemas };
}

function makeConnection(
  connected: Connected,
  options: V2Options,
  beforeClose: () => Promise<void> = () => Promise.resolve(),
): V2Connection {
  const { client, raw } = connected;
  const era = options.era;
  const capabilities = options.capabilities ?? {};
  const clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      try {
        await beforeClose();
      } finally {
        await endStdinAndAwaitExit(connected.transport);
        await client.close();
      }
    })();
    return closing;
  };
  const { transport } = connected;
  return {
    client,
    era,
    capabilities,
    clientInfo,
    get pid() {
      return transport instanceof StdioClientTransport ? transport.pid ?? undefined : undefined;
    },
    outputSchemas: connected.outputSchemas,
    envelope: (declareTasks = false) => modernEnvelope(clientInfo, capabilities, declareTasks),
    rawRequest(method, params = {}, requestOptions = {}) {
      const useEnvelope = requestOptions.envelope ?? era === "modern";
      const callerMeta = (params["_meta"] ?? {}) as Record<string, unknown>;
      const meta = {
        ...callerMeta,
        ...(useEnvelope ? modernEnvelope(clientInfo, capabilities, requestOptions.declareTasks ?? false) : {}),
        ...requestOptions.meta,
      };
      const finalParams = Object.keys(meta).length === 0 ? params : { ...params, _meta: meta };
      return raw.send({ method, params: finalParams }, requestOptions);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Connects a `@modelcontextprotocol/client@2.4.0` Client. `era: "modern"` pins 2026-07-28
 * (`versionNegotiation: {mode: {pin: "2026-07-28"}}`: connect sends `server/discover`, fails
 * loudly if the server does not offer it, and then every request carries the `_meta` envelope).
 * `era: "legacy"` is the plain `initialize` handshake.
 */
export async function connectV2(target: ServerTarget, options: V2Options): Promise<V2Connection> {
  return makeConnection(await openV2(target, options), options);
}

// ---------------------------------------------------------------------------
// Task-aware host: modern v2 Client + ext-tasks session with raw dispatch
// ---------------------------------------------------------------------------

export interface TaskCallResult {
  /** "task" when tools/call returned `resultType: "task"`, "immediate" for a plain result. */
  kind: "task" | "immediate";
  taskId?: string;
  /** The raw `tools/call` result as it came off the wire (the CreateTaskResult for a task). */
  initial: Record<string, unknown> | undefined;
  outcome: TaskOutcome<unknown>;
  lastTask: TaskView | undefined;
  /** `tasks/get` requests the session made for this task. */
  polls: number;
}

export interface TaskHost extends V2Connection {
  readonly session: TaskEnabledSession;
  /** Calls a tool through the task session and waits for the final outcome. */
  callToolAsTask(
    name: string,
    args?: Record<string, JsonValue>,
    options?: { signal?: AbortSignal },
  ): Promise<TaskCallResult>;
  /** Raw `tasks/get` (tasks extension declared unless `declareTasks: false`). */
  tasksGet(taskId: string, options?: RawRequestOptions): Promise<RawResponse>;
  /** Raw `tasks/cancel` (tasks extension declared unless `declareTasks: false`). */
  tasksCancel(taskId: string, options?: RawRequestOptions): Promise<RawResponse>;
  /** Number of `tasks/get` polls the session made (all tasks; raw tasksGet calls excluded). */
  readonly tasksGetPolls: number;
  /** Every request the session sent through raw dispatch, in order (method + taskId if any). */
  readonly dispatched: ReadonlyArray<{ method: string; taskId?: string }>;
}

export interface TaskHostOptions extends Omit<V2Options, "era"> {
  endpointId?: string;
}

function fromSessionResponse(response: RawResponse): JsonRpcResponse {
  if (response.kind === "result") {
    return { kind: "result", result: response.result as JsonValue };
  }
  const { code, message, data } = response.error;
  return {
    kind: "error",
    error: { code, message, ...(data === undefined ? {} : { data: data as JsonValue }) },
  };
}

/**
 * A modern v2 Client plus `createTaskSessionFromClient(client, {rawDispatch, v2RequestFraming})`.
 * Works over stdio and streamable HTTP. The server must advertise
 * `capabilities.extensions["io.modelcontextprotocol/tasks"] = {}` in `server/discover`,
 * otherwise the session treats the server as task-less and calls go through the SDK Client.
 */
export async function connectTaskHost(
  target: ServerTarget,
  options: TaskHostOptions = {},
): Promise<TaskHost> {
  const v2Options: V2Options = { ...options, era: "modern" };
  const connected = await openV2(target, v2Options);
  const { client, raw } = connected;
  const capabilities = options.capabilities ?? {};
  const clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
  const dispatched: Array<{ method: string; taskId?: string }> = [];
  const pollsByTask = new Map<string, number>();
  const initialByTask = new Map<string, Record<string, unknown>>();
  let lastImmediate: Record<string, unknown> | undefined;
  let tasksGetPolls = 0;

  const rawDispatch = async (request: JsonValue, dispatchOptions?: DispatchOptions) => {
    const body = request as { method: string; params?: Record<string, unknown> };
    const taskId = typeof body.params?.["taskId"] === "string" ? body.params["taskId"] : undefined;
    dispatched.push({ method: body.method, ...(taskId === undefined ? {} : { taskId }) });
    if (body.method === "tasks/get" && taskId !== undefined) {
      tasksGetPolls++;
      pollsByTask.set(taskId, (pollsByTask.get(taskId) ?? 0) + 1);
    }
    const context = dispatchOptions?.context;
    const response = await raw.send(body, {
      ...(dispatchOptions?.signal === undefined ? {} : { signal: dispatchOptions.signal }),
      ...(context?.requestTimeoutMs === undefined ? {} : { timeoutMs: context.requestTimeoutMs }),
      ...(context?.headers === undefined ? {} : { headers: { ...context.headers } }),
    });
    if (body.method === "tools/call" && response.kind === "result") {
      const result = response.result;
      if (result["resultType"] === "task" && typeof result["taskId"] === "string") {
        initialByTask.set(result["taskId"], result);
      } else {
        lastImmediate = result;
      }
    }
    return fromSessionResponse(response);
  };

  let session: TaskEnabledSession;
  try {
    session = createTaskSessionFromClient(client, {
      endpointId: options.endpointId ?? `longcall-test:${isStdioTarget(target) ? target.command : String(target.url)}`,
      rawDispatch,
      v2RequestFraming: {
        protocolVersion: MODERN_PROTOCOL_VERSION,
        clientInfo: { ...clientInfo },
        clientCapabilities: capabilities as Record<string, JsonValue>,
      },
    });
  } catch (error) {
    await client.close();
    throw error;
  }

  const base = makeConnection(connected, v2Options, () => session.close());
  const callAndSettle = async (
    name: string,
    args: Record<string, JsonValue>,
    callOptions: { signal?: AbortSignal },
  ): Promise<TaskCallResult> => {
    const execution = await session.callTool(name, args, {
      ...(callOptions.signal === undefined ? {} : { signal: callOptions.signal }),
    });
    const settlement = await execution.settle(
      callOptions.signal === undefined ? {} : { signal: callOptions.signal },
    );
    if (execution.kind === "task") {
      const taskId: string = execution.handle.taskId;
      return {
        kind: "task",
        taskId,
        initial: initialByTask.get(taskId),
        outcome: settlement.outcome,
        lastTask: settlement.lastTask,
        polls: pollsByTask.get(taskId) ?? 0,
      };
    }
    return {
      kind: "immediate",
      initial: lastImmediate,
      outcome: settlement.outcome,
      lastTask: settlement.lastTask,
      polls: 0,
    };
  };
  return {
    ...base,
    get pid() {
      return base.pid;
    },
    session,
    async callToolAsTask(name, args = {}, callOptions = {}) {
      lastImmediate = undefined;
      // A task host that validates like MCP Inspector: a completed result (read by the session's
      // tasks/get polls, checked on the way in) that misses the tool's outputSchema fails the call.
      const violationsBefore = connected.outputSchemas.violations.length;
      const result = await callAndSettle(name, args, callOptions);
      const fresh = connected.outputSchemas.violations.slice(violationsBefore);
      if (fresh.length > 0) throw new Error(fresh.map(violationText).join("\n"));
      return result;
    },
    tasksGet(taskId, requestOptions = {}) {
      return base.rawRequest("tasks/get", { taskId }, { declareTasks: true, ...requestOptions });
    },
    tasksCancel(taskId, requestOptions = {}) {
      return base.rawRequest("tasks/cancel", { taskId }, { declareTasks: true, ...requestOptions });
    },
    get tasksGetPolls() {
      return tasksGetPolls;
    },
    get dispatched() {
      return dispatched;
    },
  };
}

// ---------------------------------------------------------------------------
// Streamable-HTTP server child
// ---------------------------------------------------------------------------

export interface SpawnedHttpServer {
  /** e.g. http://127.0.0.1:PORT/ */
  readonly url: URL;
  readonly port: number;
  readonly pid: number;
  /** Everything the child wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then SIGKILL after `graceMs` (default 3000); resolves with the exit status. */
  close(graceMs?: number): Promise<Deno.CommandStatus>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface SpawnHttpServerOptions {
  /** Matches a stderr or stdout line announcing the port; group 1 = port. Default /LISTENING (\d+)/. */
  ready?: RegExp;
  /** Default 15 000 ms. */
  timeoutMs?: number;
  /** Path appended to http://127.0.0.1:PORT. Default "/". */
  path?: string;
  /** Start the child with an empty environment plus `env` (Deno.Command clearEnv). */
  clearEnv?: boolean;
  /** Echo the child's stderr to this process's stderr as well. Default false. */
  echoStderr?: boolean;
}

/**
 * Spawns an HTTP server child (with `Deno.Command`, so no -A rewriting, but still pass explicit
 * permission flags) and waits until it prints its bound port.
 */
export async function spawnHttpServer(
  target: StdioTarget,
  options: SpawnHttpServerOptions = {},
): Promise<SpawnedHttpServer> {
  assertExplicitPermissionFlags(target);
  const ready = options.ready ?? /LISTENING (\d+)/;
  const child = new Deno.Command(target.command, {
    args: target.args,
    ...(target.env === undefined ? {} : { env: target.env }),
    ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
    ...(options.clearEnv === true ? { clearEnv: true } : {}),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stderrText = "";
  let resolvePort: (port: number) => void = () => {};
  const portFound = new Promise<number>((resolve) => (resolvePort = resolve));
  const pump = async (stream: ReadableStream<Uint8Array>, isStderr: boolean) => {
    let buffered = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      if (isStderr) {
        stderrText += chunk;
        if (options.echoStderr === true) await Deno.stderr.write(new TextEncoder().encode(chunk));
      }
      buffered += chunk;
      const match = ready.exec(buffered);
      if (match?.[1] !== undefined) resolvePort(Number(match[1]));
      buffered = buffered.slice(Math.max(0, buffered.lastIndexOf("\n")));
    }
  };
  const pumps = Promise.all([pump(child.stdout, false), pump(child.stderr, true)]);
  const timeoutMs = options.timeoutMs ?? 15_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    portFound,
    child.status.then((status) => new Error(`server exited (${status.code}) before announcing a port`)),
    new Promise<Error>((resolve) => {
      timer = setTimeout(() => resolve(new Error(`no port announced within ${timeoutMs}ms`)), timeoutMs);
    }),
  ]);
  clearTimeout(timer);

  let closing: Promise<Deno.CommandStatus> | undefined;
  const close = (graceMs = 3_000) => {
    closing ??= (async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* already exited */ }
      let killTimer: ReturnType<typeof setTimeout> | undefined;
      const status = await Promise.race([
        child.status,
        new Promise<undefined>((resolve) => {
          killTimer = setTimeout(() => resolve(undefined), graceMs);
        }),
      ]);
      clearTimeout(killTimer);
      if (status === undefined) {
        try {
          child.kill("SIGKILL");
        } catch { /* already exited */ }
      }
      const final = await child.status;
      await pumps.catch(() => {});
      return final;
    })();
    return closing;
  };
  if (outcome instanceof Error) {
    await close(0);
    throw new Error(`${outcome.message}\n--- stderr ---\n${stderrText}`);
  }
  const port = outcome;
  return {
    url: new URL(options.path ?? "/", `http://127.0.0.1:${port}`),
    port,
    pid: child.pid,
    stderr: () => stderrText,
    close,
    [Symbol.asyncDispose]: async () => {
      await close();
    },
  };
}
