/**
 * The composition root: parses arguments, wires concretes, owns the process exit code.
 *
 * @module
 */

import { AppError } from "../base/errors.ts";
import { isLogLevel } from "../base/log.ts";
import { VERSION } from "../base/version.ts";
import { type Command, commandHelp, parseCommandArgs } from "./command.ts";
import { EXIT_ERROR, EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE, UsageError } from "./exit.ts";
import { envGet } from "./config.ts";
import { githubConfigFromEnv } from "./product_kinds.ts";
import { serveCommand } from "./serve.ts";
import type * as Serving from "../mcp/serving.ts";
import type * as Commands from "./commands.ts";
import type { TasksAdapterModule } from "../mcp/server.ts";

/**
 * How the CLI's heavier modules load, chosen by its entry. From source (src/main.ts) they are
 * dynamic imports: `serve` loads the MCP layer once its runtime exists and never loads the other
 * commands, the other commands never load the SDK, and a server loads the Tasks extension's adapter
 * only at its first modern connection. The bundle's generated entry (scripts/build.ts) imports them
 * statically: a dynamic import inside the bundle would wrap every module it reaches in a lazy
 * initializer, which costs more at start-up than loading less saves.
 */
export interface CliModules {
  /** src/mcp/serving.ts: the MCP server, its transports and the product's tools. */
  mcp(): Promise<typeof Serving>;
  /** src/cli/commands.ts: every command but serve. */
  commands(): Promise<typeof Commands>;
  /** src/tasks/adapter.ts: the Tasks extension, loaded by a server's first modern connection. */
  tasks(): Promise<TasksAdapterModule>;
}

function serve(modules: CliModules): Command {
  return serveCommand(() => {
    const github = githubConfigFromEnv();
    return {
      kinds: { product: { github } },
      mcp: modules.mcp,
      tasks: modules.tasks,
      tools: ({ control, store, mcp }) => mcp.productTools(control, store),
      networkWorker: { moduleUrl: Deno.mainModule },
    };
  });
}

/** The commands `argv` may name: `serve` alone loads none of the others' modules. */
async function commands(argv: readonly string[], modules: CliModules): Promise<Command[]> {
  if (argv[0] === "serve") return [serve(modules)];
  return [serve(modules), ...(await modules.commands()).otherCommands()];
}

function topHelp(cmds: Command[]): string {
  const width = Math.max(...cmds.map((c) => c.name.length)) + 2;
  return [
    `longcall ${VERSION}: durable, cancellable GitHub work for MCP hosts (jobs + the MCP Tasks extension).`,
    "",
    "Usage: longcall <command> [options]",
    "",
    "Commands:",
    ...cmds.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    "",
    "Run `longcall <command> --help` for a command's options and examples.",
    "Exit codes: 0 ok, 1 error, 2 usage, 3 not found, 8 checks still pending, 130 cancelled.",
    "",
    "Examples:",
    ...TOP_EXAMPLES.map((e) => `  ${e}`),
  ].join("\n");
}

/** The top-level help's examples: the first thing most users run, each command's own help has more. */
const TOP_EXAMPLES = [
  "longcall setup --print claude-code        # register longcall with Claude Code",
  "longcall checks watch owner/repo#123      # wait for a pull request's CI verdict",
  "longcall sync owner/repo && longcall search flaky test",
  "longcall jobs list --state running",
];

/** Finds the longest command name matching the leading words of argv. */
function resolve(cmds: Command[], argv: string[]): { cmd: Command; rest: string[] } | undefined {
  let best: { cmd: Command; rest: string[] } | undefined;
  for (const cmd of cmds) {
    const words = cmd.name.split(" ");
    if (
      words.every((w, i) => argv[i] === w) && (best === undefined || words.length > best.cmd.name.split(" ").length)
    ) {
      best = { cmd, rest: argv.slice(words.length) };
    }
  }
  return best;
}

/**
 * The command word `word` was most likely meant to be: the one command it is a prefix of (or that is a prefix
 * of it), else the nearest at most two edits away (`job` for `jobs`, `serach` for `search`); undefined when
 * none is that close or the word is a single character.
 */
export function nearestCommand(word: string, cmds: readonly Command[]): string | undefined {
  const names = [...new Set(cmds.map((c) => c.name.split(" ")[0] ?? ""))];
  const w = word.toLowerCase();
  if (w.length < 2) return undefined;
  // Only a prefix that names one command: `se` could be serve, search or setup.
  const prefixed = names.filter((n) => n.startsWith(w) || w.startsWith(n));
  if (prefixed.length === 1) return prefixed[0];
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    const d = editDistance(w, name);
    if (d <= 2 && (best === undefined || d < best.d)) best = { name, d };
  }
  return best?.name;
}

/** Levenshtein distance (insertions, deletions, substitutions), for words as short as command names. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] ?? 0;
}

/** Runs longcall with `argv` and returns the exit code. */
export async function main(argv: string[], modules: CliModules): Promise<number> {
  let cmds: Command[];
  try {
    cmds = await commands(argv, modules);
  } catch (err) {
    // A module that cannot load (a broken install): said in one line, not as an uncaught error.
    console.error(`longcall: internal error: cannot load its commands: ${err instanceof Error ? err.message : err}`);
    return EXIT_ERROR;
  }
  if (argv.length === 0) {
    // A usage error: the help goes to stderr, as every other usage error's words do.
    console.error(topHelp(cmds));
    return EXIT_USAGE;
  }
  if (argv[0] === "help" && argv.length > 1) return await main([...argv.slice(1), "--help"], modules);
  if (argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    console.log(topHelp(cmds));
    return EXIT_OK;
  }
  if (argv[0] === "--version" || argv[0] === "-V") {
    console.log(`longcall ${VERSION}`);
    return EXIT_OK;
  }
  const found = resolve(cmds, argv);
  if (found === undefined) {
    const group = cmds.filter((c) => c.name.startsWith(`${argv[0]} `));
    if (group.length > 0 && (argv[1] === "--help" || argv[1] === "-h")) {
      // `longcall jobs --help`: the group's commands, as the top-level help lists them.
      const width = Math.max(...group.map((c) => c.name.length)) + 2;
      console.log(
        [
          `Commands of longcall ${argv[0]}:`,
          ...group.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
          "",
          "Run `longcall <command> --help` for a command's options and examples.",
          "",
          "Examples:",
          ...group.flatMap((c) => c.examples.slice(0, 1)).map((e) => `  ${e}`),
        ].join("\n"),
      );
      return EXIT_OK;
    }
    if (group.length > 0) {
      console.error(`longcall ${argv[0]}: expected one of: ${group.map((c) => c.name.split(" ")[1]).join(", ")}`);
    } else if ((argv[0] ?? "").startsWith("-")) {
      console.error(
        `longcall: ${argv[0]} is an option, and options go after the command: longcall <command> [options]. ` +
          "Run `longcall --help`.",
      );
    } else {
      const near = nearestCommand(argv[0] ?? "", cmds);
      console.error(
        `longcall: unknown command "${argv[0]}".${near === undefined ? "" : ` Did you mean "${near}"?`} ` +
          "Run `longcall --help`.",
      );
    }
    return EXIT_USAGE;
  }
  const { cmd, rest } = found;
  try {
    const { values, positionals, help } = parseCommandArgs(cmd, rest);
    if (help) {
      console.log(commandHelp(cmd));
      return EXIT_OK;
    }
    const logSetting = envGet("LONGCALL_LOG");
    if (logSetting !== undefined && !isLogLevel(logSetting)) {
      throw new UsageError(
        `Cannot use LONGCALL_LOG: expected silent, error, warn, info or debug, current value is ${logSetting}`,
      );
    }
    return await cmd.run(values, positionals);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`longcall ${cmd.name}: ${err.message}\nRun \`longcall ${cmd.name} --help\`.`);
      return EXIT_USAGE;
    }
    if (err instanceof AppError) {
      console.error(`longcall ${cmd.name}: ${err.message}`);
      return err.code === "not_found" ? EXIT_NOT_FOUND : err.code === "invalid_argument" ? EXIT_USAGE : EXIT_ERROR;
    }
    console.error(`longcall ${cmd.name}: internal error: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT_ERROR;
  }
}

/** Entry used by src/main.ts and the bundle: runs with the process arguments and exits. */
export async function run(modules: CliModules, argv: string[] = Deno.args): Promise<never> {
  Deno.exit(await main(argv, modules));
}
