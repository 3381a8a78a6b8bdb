/**
 * What the MCP client helpers connect to: a stdio child they spawn (`StdioTarget`) or a streamable-HTTP endpoint
 * (`HttpTarget`), the client identity they announce, and the guard that every spawned deno child gets explicit
 * permission flags.
 *
 * @module
 */

/** A server the helper spawns and talks to over stdio. */
export interface StdioTarget {
  command: string;
  args: string[];
  /**
   * Extra environment for the child. The child's whole environment is this, over the parent's HOME,
   * LOGNAME, PATH, SHELL, TERM and USER (both SDK transports' default) and the variables that locate
   * Deno's cache ({@linkcode childEnv}); nothing else of the parent's reaches it (Deno 2.9.6's
   * `node:child_process` replaces the environment with the one given, as Node does).
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

export const DEFAULT_CLIENT_INFO: ClientIdentity = {
  name: "longcall-test",
  version: "0.0.0",
};

/**
 * The variables that tell a deno child where Deno's cache is (`DENO_DIR`, or `XDG_CACHE_HOME` on Linux),
 * copied from this process when set (and readable). Both SDK transports pass a child only HOME, LOGNAME,
 * PATH, SHELL, TERM and USER of the parent, so with `DENO_DIR` set a spawned server looked for its modules
 * in the default cache instead: empty on a fresh machine, where it then downloaded every package of the
 * lockfile before its first answer, and the host's first request timed out.
 */
export const DENO_CACHE_ENV_VARS = ["DENO_DIR", "XDG_CACHE_HOME"] as const;

/** {@linkcode DENO_CACHE_ENV_VARS} of this process that are set (and readable), by name. */
export function denoCacheEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of DENO_CACHE_ENV_VARS) {
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") continue;
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** A stdio child's environment as the helpers pass it to the SDK: the Deno cache variables, then `target.env`. */
export function childEnv(target: StdioTarget): Record<string, string> {
  return { ...denoCacheEnv(), ...target.env };
}

export function isStdioTarget(target: ServerTarget): target is StdioTarget {
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

/** The `requestInit` of an HTTP transport: the target's headers plus its bearer token. */
export function httpRequestInit(target: HttpTarget): RequestInit {
  const headers: Record<string, string> = { ...target.headers };
  if (target.bearerToken !== undefined) {
    headers["Authorization"] = `Bearer ${target.bearerToken}`;
  }
  return { headers };
}
