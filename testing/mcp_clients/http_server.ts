/**
 * A streamable-HTTP server child: spawned with `Deno.Command` (explicit permission flags still required), ready
 * once it announces its port, stopped with SIGTERM and then SIGKILL.
 *
 * @module
 */

import { assertExplicitPermissionFlags, type StdioTarget } from "./targets.ts";

export interface SpawnedHttpServer {
  /** e.g. http://127.0.0.1:PORT/ */
  readonly url: URL;
  readonly port: number;
  readonly pid: number;
  /** Everything the child wrote to stderr so far. */
  stderr(): string;
  /** The child's exit status, once it has exited (by itself, or after `close()`). */
  readonly status: Promise<Deno.CommandStatus>;
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
    status: child.status,
    close,
    [Symbol.asyncDispose]: async () => {
      await close();
    },
  };
}
