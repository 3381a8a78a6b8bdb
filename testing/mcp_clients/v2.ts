/**
 * The v2 client: `@modelcontextprotocol/client@2.4.0`, legacy (`initialize`) or modern (2026-07-28,
 * `server/discover`), over stdio or streamable HTTP, with a raw JSON-RPC channel on the same transport.
 *
 * @module
 */

import {
  Client,
  type ClientCapabilities,
  StreamableHTTPClientTransport,
  type Transport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { OutputSchemaValidator } from "../output_schemas.ts";
import { MODERN_PROTOCOL_VERSION, modernEnvelope } from "./envelope.ts";
import { connectOrClose, endStdinAndAwaitExit, rememberChild, validateOutputs } from "./lifecycle.ts";
import { RawChannel, type RawResponse, type RawSendOptions } from "./raw_channel.ts";
import {
  assertExplicitPermissionFlags,
  childEnv,
  type ClientIdentity,
  DEFAULT_CLIENT_INFO,
  httpRequestInit,
  isStdioTarget,
  type ServerTarget,
} from "./targets.ts";

export { Client };

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

/** An open v2 connection before it is wrapped: what connectV2 and connectTaskHost share. */
export interface Connected {
  client: Client;
  transport: Transport;
  raw: RawChannel;
  outputSchemas: OutputSchemaValidator;
}

/** Opens a v2 Client on the target and checks it negotiated the era asked for. */
export async function openV2(target: ServerTarget, options: V2Options): Promise<Connected> {
  const client = new Client(options.clientInfo ?? DEFAULT_CLIENT_INFO, {
    capabilities: options.capabilities ?? {},
    versionNegotiation: options.era === "modern" ? { mode: { pin: MODERN_PROTOCOL_VERSION } } : { mode: "legacy" },
  });
  let transport: Transport;
  let child: ReturnType<typeof rememberChild> | undefined;
  if (isStdioTarget(target)) {
    assertExplicitPermissionFlags(target);
    const params = {
      command: target.command,
      args: target.args,
      env: childEnv(target),
      ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
      stderr: target.stderr ?? "inherit",
    };
    transport = options.stdioProbe === "sibling"
      ? new StdioClientTransport(params)
      : new InPlaceProbeStdioClientTransport(params);
    child = rememberChild(transport);
  } else {
    transport = new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: httpRequestInit(target),
    });
  }
  const connectOptions = options.connectTimeoutMs === undefined ? undefined : { timeout: options.connectTimeoutMs };
  await connectOrClose(
    () => client.connect(transport, connectOptions),
    () => client.close(),
    { child },
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

/** How {@linkcode makeConnection} wraps a connection: the options it was opened with, and what runs first when
 * it closes (a task host closes its session; nothing by default). */
export interface MakeConnectionOptions extends V2Options {
  beforeClose?: () => Promise<void>;
}

/** Wraps an open connection; `options.beforeClose` runs first when it closes. */
export function makeConnection(connected: Connected, options: MakeConnectionOptions): V2Connection {
  const { beforeClose = () => Promise.resolve() } = options;
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
    envelope: (declareTasks = false) => modernEnvelope(clientInfo, capabilities, { declareTasks }),
    rawRequest(method, params = {}, requestOptions = {}) {
      const useEnvelope = requestOptions.envelope ?? era === "modern";
      const callerMeta = (params["_meta"] ?? {}) as Record<string, unknown>;
      const meta = {
        ...callerMeta,
        ...(useEnvelope
          ? modernEnvelope(clientInfo, capabilities, { declareTasks: requestOptions.declareTasks ?? false })
          : {}),
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
