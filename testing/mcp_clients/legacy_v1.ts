/**
 * The v1 client: `@modelcontextprotocol/sdk@1.32.2`, always the legacy (2025) `initialize` handshake, over stdio
 * or streamable HTTP.
 *
 * @module
 */

import { Client as V1Client } from "@modelcontextprotocol/sdk/client";
// The `./*` export of sdk@1.32.2 maps types to `*.js.d.ts`, which does not exist, so the
// `.js` deep imports silently type as `any`. The pragmas point the types at the right files.
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport as V1StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { connectOrClose, endStdinAndAwaitExit, rememberChild, validateOutputs } from "./lifecycle.ts";
import {
  assertExplicitPermissionFlags,
  childEnv,
  type ClientIdentity,
  DEFAULT_CLIENT_INFO,
  httpRequestInit,
  isStdioTarget,
  type ServerTarget,
} from "./targets.ts";

export { V1Client };

export interface LegacyV1Options {
  clientInfo?: ClientIdentity;
  /** Capabilities sent in `initialize` (v1 shape). */
  capabilities?: Record<string, unknown>;
  /** The SDK's own handling of list_changed notifications (its `listChanged` client option). */
  listChanged?: NonNullable<ConstructorParameters<typeof V1Client>[1]>["listChanged"];
  /** Timeout of the initialize request (the SDK's default is 60 s). */
  connectTimeoutMs?: number;
}

/** Connects a `@modelcontextprotocol/sdk@1.32.2` Client. `client.close()` also reaps a stdio child. */
export async function connectLegacyV1(
  target: ServerTarget,
  options: LegacyV1Options = {},
): Promise<V1Client> {
  const client = new V1Client(options.clientInfo ?? DEFAULT_CLIENT_INFO, {
    capabilities: options.capabilities ?? {},
    ...(options.listChanged === undefined ? {} : { listChanged: options.listChanged }),
  });
  const connectOptions = options.connectTimeoutMs === undefined ? undefined : { timeout: options.connectTimeoutMs };
  if (isStdioTarget(target)) {
    assertExplicitPermissionFlags(target);
    const transport = new V1StdioClientTransport({
      command: target.command,
      args: target.args,
      env: childEnv(target),
      ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
      stderr: target.stderr ?? "inherit",
    });
    const child = rememberChild(transport);
    await connectOrClose(() => client.connect(transport, connectOptions), () => transport.close(), { child });
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
    await connectOrClose(() => client.connect(transport, connectOptions), () => transport.close());
    await validateOutputs(client, transport);
  }
  return client;
}
