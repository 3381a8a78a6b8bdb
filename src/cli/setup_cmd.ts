/**
 * `longcall setup --print <host>`: the configuration snippet that registers this longcall
 * (its real path and flags) with an MCP host. It prints; it never edits a host's files.
 *
 * @module
 */

import type { Command } from "./command.ts";
import { EXIT_OK, UsageError } from "./exit.ts";
import { permissionFlags } from "./permissions.ts";

export const HOSTS = ["claude-code", "claude-desktop", "vscode", "codex", "cursor"] as const;
export type Host = typeof HOSTS[number];

/** The command line that starts this longcall's stdio server. */
export function launchCommand(): { command: string; args: string[] } {
  const main = Deno.mainModule;
  // A compiled binary embeds its modules under a deno-compile path and carries its flags.
  if (main.includes("deno-compile-")) return { command: Deno.execPath(), args: ["serve"] };
  const path = main.startsWith("file:") ? new URL(main).pathname : main;
  return { command: Deno.execPath(), args: ["run", ...permissionFlags(), path, "serve"] };
}

function quote(arg: string): string {
  return /^[A-Za-z0-9_./:=,@-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

/** The snippet for one host. */
export function setupSnippet(host: Host, launch = launchCommand()): string {
  const server = { command: launch.command, args: launch.args };
  switch (host) {
    case "claude-code":
      return `claude mcp add longcall -- ${[launch.command, ...launch.args].map(quote).join(" ")}`;
    case "claude-desktop":
      return JSON.stringify({ mcpServers: { longcall: server } }, null, 2) +
        "\n# Merge into claude_desktop_config.json (Settings > Developer > Edit Config).";
    case "cursor":
      return JSON.stringify({ mcpServers: { longcall: server } }, null, 2) + "\n# Merge into ~/.cursor/mcp.json.";
    case "vscode":
      return JSON.stringify({ servers: { longcall: { type: "stdio", ...server } } }, null, 2) +
        "\n# Merge into .vscode/mcp.json (workspace) or the user mcp.json.";
    case "codex":
      return [
        "[mcp_servers.longcall]",
        `command = ${JSON.stringify(launch.command)}`,
        `args = ${JSON.stringify(launch.args)}`,
        "# Append to ~/.codex/config.toml.",
      ].join("\n");
  }
}

/** The `setup` command. */
export function setupCommand(): Command {
  return {
    name: "setup",
    summary: "Print the snippet that registers longcall with an MCP host.",
    usage: `longcall setup --print <${HOSTS.join("|")}>`,
    description: "Prints configuration for this longcall's real path and flags; it does not edit any file. " +
      "Set GITHUB_TOKEN (or GH_TOKEN) in the host's environment for authenticated GitHub requests.",
    options: { print: { type: "string", help: `Host to print for: ${HOSTS.join(", ")}`, value: "HOST" } },
    examples: ["longcall setup --print claude-code", "longcall setup --print vscode"],
    run(values) {
      const host = values.print as string | undefined;
      if (host === undefined || !(HOSTS as readonly string[]).includes(host)) {
        throw new UsageError(
          `Cannot print setup: --print must be one of ${HOSTS.join(", ")}, current value is ${host}`,
        );
      }
      console.log(setupSnippet(host as Host));
      return Promise.resolve(EXIT_OK);
    },
  };
}
