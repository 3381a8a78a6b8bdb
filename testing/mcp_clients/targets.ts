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

export const DEFAULT_CLIENT_INFO: ClientIdentity = {
  name: "longcall-test",
  version: "0.0.0",
};

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
