/**
 * One stdio MCP exchange with a longcall process (a compiled binary, a bundle or the source run
 * through `deno run`): `initialize`, `notifications/initialized`, `tools/list`, then end of stdin,
 * which makes the server shut down. Used by the release smoke test (scripts/smoke.ts) and the
 * distribution tests. The caller passes the exact command line, with explicit permission flags.
 *
 * @module
 */

/** The messages sent, one per line. */
export const TOOLS_LIST_EXCHANGE = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "longcall-smoke", version: "1" } },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list" },
].map((m) => JSON.stringify(m)).join("\n") + "\n";

export interface ProbeResult {
  code: number;
  /** The tools the server listed (empty when it never answered tools/list). */
  tools: { name: string; description?: string }[];
  /** serverInfo.version from the initialize answer. */
  serverVersion: string | undefined;
  stdout: string;
  stderr: string;
}

/** Where {@link probeToolsList} runs its process. */
export interface ProbeOptions {
  /** Variables added to the environment (default none). */
  env?: Record<string, string>;
  /** The working directory (default: this process's). */
  cwd?: string;
}

/** Runs `command args` with `options.env` added to the environment, sends the exchange and waits for exit. */
export async function probeToolsList(
  command: string,
  args: readonly string[],
  options: ProbeOptions = {},
): Promise<ProbeResult> {
  const { env = {}, cwd } = options;
  const child = new Deno.Command(command, {
    args: [...args],
    env,
    ...(cwd === undefined ? {} : { cwd }),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(TOOLS_LIST_EXCHANGE));
  await writer.close();
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  const messages = stdout.split("\n").filter((l) => l.trim() !== "").map((l) => {
    try {
      return JSON.parse(l) as { id?: number; result?: Record<string, unknown> };
    } catch {
      return {};
    }
  });
  const init = messages.find((m) => m.id === 1)?.result as { serverInfo?: { version?: string } } | undefined;
  const list = messages.find((m) => m.id === 2)?.result as
    | { tools?: { name: string; description?: string }[] }
    | undefined;
  return {
    code: out.code,
    tools: list?.tools ?? [],
    serverVersion: init?.serverInfo?.version,
    stdout,
    stderr: new TextDecoder().decode(out.stderr),
  };
}
