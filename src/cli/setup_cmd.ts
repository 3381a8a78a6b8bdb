/**
 * `longcall setup --print <host>`: the configuration snippet that registers this longcall
 * (its real path and flags) with an MCP host. It prints; it never edits a host's files.
 *
 * The launch line must outlive the shell that printed it and start fast (Claude Code's
 * discovery probe waits at most 3 s): a compiled binary is launched as itself; a source tree
 * or bundle through a `deno` that stays where it is — this process's own executable unless it
 * sits in npm's throw-away `npx` cache, else the first `deno` on PATH. Only when neither exists
 * does it print an `npx -y deno@VERSION` line, with a warning on stderr.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import type { Command } from "./command.ts";
import { ENV_VARS, envGet } from "./config.ts";
import { EXIT_OK, UsageError } from "./exit.ts";
import { GITHUB_API_HOST, githubApiUrlFor, launchFlags, parseGitHubHost } from "./permissions.ts";

export const HOSTS = ["claude-code", "claude-desktop", "vscode", "codex", "cursor"] as const;
export type Host = typeof HOSTS[number];

/** What the launch line is derived from (injected by tests; `currentLaunchContext()` otherwise). */
export interface LaunchContext {
  /** `Deno.mainModule`. */
  mainModule: string;
  /** `Deno.execPath()`: the compiled binary, or the Deno running the source or bundle. */
  execPath: string;
  os: typeof Deno.build.os;
  /** The `PATH` variable, if readable. */
  pathEnv: string | undefined;
  /** `Deno.version.deno`, for the npx fallback. */
  denoVersion: string;
  /** Whether a path is an existing regular file. */
  isFile(path: string): boolean;
  /** Whether this process was granted net access to `host` (a compiled binary's baked-in flags). */
  netGranted(host: string): boolean;
}

/** The command line that starts this longcall's stdio server. */
export interface Launch {
  command: string;
  args: string[];
  /** Variables the host must set (`LONGCALL_GITHUB_API_URL` for another GitHub host). */
  env: Record<string, string>;
  /** Set when the line is not stable or fast: printed on stderr, never in the snippet. */
  warning?: string;
}

export function currentLaunchContext(): LaunchContext {
  return {
    mainModule: Deno.mainModule,
    execPath: Deno.execPath(),
    os: Deno.build.os,
    pathEnv: envGet("PATH"),
    denoVersion: Deno.version.deno,
    isFile: (path) => {
      try {
        return Deno.statSync(path).isFile;
      } catch {
        return false;
      }
    },
    netGranted: (host) => Deno.permissions.querySync({ name: "net", host }).state === "granted",
  };
}

/** True for a path inside npm's `npx` cache (`…/_npx/<hash>/…`), which `npm cache clean` removes. */
export function isEphemeralPath(path: string): boolean {
  return /(^|[\\/])_npx[\\/]/.test(path);
}

/** The first stable `deno` executable on PATH, if any. */
export function denoOnPath(ctx: LaunchContext): string | undefined {
  if (ctx.pathEnv === undefined) return undefined;
  const windows = ctx.os === "windows";
  const sep = windows ? "\\" : "/";
  for (const dir of ctx.pathEnv.split(windows ? ";" : ":")) {
    if (dir === "") continue;
    const candidate = `${dir.replace(/[\\/]+$/, "")}${sep}${windows ? "deno.exe" : "deno"}`;
    if (!isEphemeralPath(candidate) && ctx.isFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The launch line for this copy of longcall, for GitHub (`api.github.com`) or for the GitHub
 * Enterprise host `githubHost`.
 *
 * @throws {UsageError} when this is a compiled binary built for another GitHub host.
 */
export function launchCommand(ctx: LaunchContext = currentLaunchContext(), githubHost?: string): Launch {
  const host = githubHost === undefined ? GITHUB_API_HOST : parseGitHubHost(githubHost);
  const env: Record<string, string> = host === GITHUB_API_HOST
    ? {}
    : { LONGCALL_GITHUB_API_URL: githubApiUrlFor(host) };
  // A compiled binary embeds its modules under a deno-compile path and carries its flags.
  if (ctx.mainModule.includes("deno-compile-")) {
    const probe = host.includes(":") ? host : `${host}:443`;
    if (!ctx.netGranted(probe)) {
      throw new UsageError(
        `Cannot print a launch line for ${host}: this binary was built without net access to it; build one with ` +
          `\`deno task compile --github-host ${host}\` (or run the bundle, whose flags are in its launch line)`,
      );
    }
    return { command: ctx.execPath, args: ["serve"], env };
  }
  const script = ctx.mainModule.startsWith("file:") ? fileURLToPath(ctx.mainModule) : ctx.mainModule;
  const runArgs = ["run", ...launchFlags({ githubHosts: [host] }), script, "serve"];
  const deno = isEphemeralPath(ctx.execPath) ? denoOnPath(ctx) : ctx.execPath;
  if (deno !== undefined) return { command: deno, args: runArgs, env };
  return {
    command: "npx",
    args: ["-y", `deno@${ctx.denoVersion}`, ...runArgs],
    env,
    warning: `this Deno (${ctx.execPath}) lives in npm's npx cache, which \`npm cache clean\` removes, and no ` +
      `other deno is on PATH, so the line below starts Deno through npx. That can take far longer than the 3 s ` +
      `Claude Code waits for its discovery probe (it then uses the legacy protocol for the whole session) and needs ` +
      `the npm registry at every start. Install Deno (\`npm install -g deno@${ctx.denoVersion}\`) or use a release ` +
      `binary, then run setup again.`,
  };
}

function quote(arg: string): string {
  return /^[A-Za-z0-9_./:=,@-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

/**
 * What Codex forwards to the server by name (`env_vars`): the variables longcall reads, less the ones Codex
 * always passes (HOME, PATH). Codex starts a stdio server with a cleared environment holding only a few
 * shell basics (codex-rs/rmcp-client/src/utils.rs `DEFAULT_ENV_VARS`), so without this a GITHUB_TOKEN or
 * LONGCALL_DB set in the user's shell would not reach the server: it would run anonymously, or on another
 * database than the CLI in that shell.
 */
export const CODEX_FORWARDED_ENV: readonly string[] = ENV_VARS.filter((v) => v !== "HOME" && v !== "PATH");

/**
 * What `setup --print` gives for one host: the snippet, exactly what the host's file or command takes
 * (valid JSON for the JSON hosts, TOML for Codex), printed alone on stdout so it can be piped or redirected;
 * and the advice that goes with it (where to merge it, how to pass a token), printed on stderr.
 */
export interface SetupSnippet {
  snippet: string;
  advice: string[];
}

/** The snippet for one host, and its advice. */
export function setupSnippet(host: Host, launch: Launch = launchCommand()): SetupSnippet {
  const hasEnv = Object.keys(launch.env).length > 0;
  const server = { command: launch.command, args: launch.args, ...(hasEnv ? { env: launch.env } : {}) };
  switch (host) {
    case "claude-code":
      return {
        snippet: [
          "claude mcp add longcall",
          ...Object.entries(launch.env).map(([k, v]) => `-e ${quote(`${k}=${v}`)}`),
          "--",
          ...[launch.command, ...launch.args].map(quote),
        ].join(" "),
        advice: [],
      };
    case "claude-desktop":
      return {
        snippet: JSON.stringify({ mcpServers: { longcall: server } }, null, 2),
        advice: [
          "Merge into claude_desktop_config.json (Settings > Developer > Edit Config).",
          "Started from the Dock or Start menu, Claude Desktop does not see what a shell profile exports. For",
          "authenticated GitHub requests add GITHUB_TOKEN (or LONGCALL_GITHUB_TOKEN_FILE, the path of a file",
          "holding it) under env, or install the .mcpb bundle, which keeps the token in its secure storage.",
        ],
      };
    case "cursor":
      return {
        snippet: JSON.stringify({ mcpServers: { longcall: server } }, null, 2),
        advice: ["Merge into ~/.cursor/mcp.json."],
      };
    case "vscode":
      return {
        snippet: JSON.stringify({ servers: { longcall: { type: "stdio", ...server } } }, null, 2),
        advice: [
          "Merge into .vscode/mcp.json (workspace) or the user mcp.json. VS Code starts the server with its own",
          "environment plus this entry's env (and envFile), so a GITHUB_TOKEN VS Code sees reaches longcall. To keep",
          "the token in VS Code's secret storage instead, add a top-level input and name it under the entry's env:",
          '  "inputs": [{ "type": "promptString", "id": "github-token", "password": true }]',
          '  "env": { "GITHUB_TOKEN": "${input:github-token}" }',
        ],
      };
    case "codex":
      return {
        snippet: [
          "[mcp_servers.longcall]",
          `command = ${JSON.stringify(launch.command)}`,
          `args = ${JSON.stringify(launch.args)}`,
          ...(hasEnv
            ? [`env = { ${Object.entries(launch.env).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(", ")} }`]
            : []),
          // A `deno run` line also needs Deno's module cache where the user keeps it (Deno reads DENO_DIR).
          `env_vars = ${
            JSON.stringify([...CODEX_FORWARDED_ENV, ...(launch.args.includes("run") ? ["DENO_DIR"] : [])])
          }`,
        ].join("\n"),
        advice: [
          "Append to ~/.codex/config.toml. Codex starts servers with few of your environment variables; env_vars",
          "passes these by name from Codex's own environment (GITHUB_TOKEN, LONGCALL_DB, ...), so no token is",
          "written there.",
        ],
      };
  }
}

/** The `setup` command. */
export function setupCommand(): Command {
  return {
    name: "setup",
    acceptsArguments: false,
    summary: "Print the snippet that registers longcall with an MCP host.",
    usage: `longcall setup --print <${HOSTS.join("|")}> [--github-host HOST]`,
    description: "Prints configuration for this longcall's real path and flags; it does not edit any file. " +
      "stdout holds only the snippet, valid in the host's format (JSON, TOML or a command line), so it can be " +
      "piped or redirected; where to merge it and how to pass a token go to stderr. " +
      "Set GITHUB_TOKEN (or GH_TOKEN) in the host's environment for authenticated GitHub requests. " +
      "From source or a bundle the line runs the deno that printed it (or the first deno on PATH when that one " +
      "lives in the npx cache); a warning on stderr says when only an npx line is possible.",
    options: {
      print: { type: "string", help: `Host to print for: ${HOSTS.join(", ")}`, value: "HOST" },
      "github-host": {
        type: "string",
        help: "GitHub Enterprise Server API host (default api.github.com); sets the flags and LONGCALL_GITHUB_API_URL",
        value: "HOST",
      },
    },
    examples: [
      "longcall setup --print claude-code",
      "longcall setup --print vscode",
      "longcall setup --print claude-code --github-host ghe.example.com",
    ],
    run(values) {
      const host = values.print as string | undefined;
      if (host === undefined || !(HOSTS as readonly string[]).includes(host)) {
        throw new UsageError(
          `Cannot print setup: --print must be one of ${HOSTS.join(", ")}, ${
            host === undefined ? "none was given" : `current value is ${host}`
          }`,
        );
      }
      const githubHost = values["github-host"] as string | undefined;
      let launch: Launch;
      try {
        launch = launchCommand(currentLaunchContext(), githubHost);
      } catch (err) {
        if (err instanceof TypeError) throw new UsageError(err.message);
        throw err;
      }
      if (launch.warning !== undefined) console.error(`longcall setup: warning: ${launch.warning}`);
      const { snippet, advice } = setupSnippet(host as Host, launch);
      console.log(snippet);
      for (const line of advice) console.error(`# ${line}`);
      return Promise.resolve(EXIT_OK);
    },
  };
}
