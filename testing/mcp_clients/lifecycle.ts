/**
 * The steps every client helper's connection goes through, whatever the SDK: close the transport when connecting
 * fails, validate every structuredContent against the tool's outputSchema from the moment of connecting, and shut
 * a stdio child down the way a host does (end stdin, wait for the exit) before the SDK's own close.
 *
 * @module
 */

import type { Client as V1Client } from "@modelcontextprotocol/sdk/client";
import type { Client } from "@modelcontextprotocol/client";
import { observeTransport, type OutputSchemaValidator } from "../output_schemas.ts";

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
export async function validateOutputs(
  client: V1Client | Client,
  transport: unknown,
): Promise<OutputSchemaValidator> {
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
export async function endStdinAndAwaitExit(transport: unknown, timeoutMs = 2_000): Promise<void> {
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

/** Runs `connect`; when it fails, runs `close` (ignoring its failure) and rethrows the connect error. */
export async function connectOrClose(
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
