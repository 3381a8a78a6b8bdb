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
  kill(signal: "SIGKILL"): unknown;
}

/**
 * Remembers the child a stdio transport spawns (its private `_process`, read once `start()` has
 * spawned it), for {@linkcode connectOrClose}: when connecting fails, both SDK clients close the transport
 * themselves without waiting, which unsets `_process`, and the transport's kill timers are unref'd, so a
 * child that ignores the end of its stdin (one still loading its modules, say) outlived the host process.
 * Wraps the instance's `start`: the SDK's class checks look at the prototype, which stays the SDK's own.
 */
export function rememberChild(transport: unknown): () => ChildProcessLike | undefined {
  const t = transport as { start(): Promise<void>; _process?: ChildProcessLike };
  let child: ChildProcessLike | undefined;
  const start = t.start.bind(t);
  t.start = async () => {
    try {
      await start();
    } finally {
      child = t._process;
    }
  };
  return () => child;
}

/** Lets `child` exit on its own for `graceMs` (its stdin was ended), then SIGKILLs it; waits at most 2 s more. */
async function killIfRunning(child: ChildProcessLike | undefined, graceMs = 1_000): Promise<void> {
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  if (child === undefined || !running()) return;
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const within = async (ms: number) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([exited, new Promise<void>((resolve) => timer = setTimeout(resolve, ms))]);
    clearTimeout(timer);
  };
  await within(graceMs);
  if (!running()) return;
  try {
    child.kill("SIGKILL");
  } catch { /* already gone */ }
  await within(2_000);
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

/**
 * Runs `connect`; when it fails, runs `close` (ignoring its failure), kills the stdio child `options.child` if
 * one was spawned and is still running (see {@linkcode rememberChild}), and rethrows the connect error.
 */
export async function connectOrClose(
  connect: () => Promise<void>,
  close: () => Promise<void>,
  options: { child?: (() => ChildProcessLike | undefined) | undefined } = {},
): Promise<void> {
  const { child = () => undefined } = options;
  try {
    await connect();
  } catch (error) {
    await close().catch(() => {});
    await killIfRunning(child());
    throw error;
  }
}
