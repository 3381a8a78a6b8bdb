/**
 * A tiny command framework over `node:util` `parseArgs`: every command has a usage
 * line, a description, options with help text, and an example, and answers `--help`.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { UsageError } from "./exit.ts";

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  help: string;
  /** Value placeholder for help, e.g. PATH. */
  value?: string;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  description?: string;
  options: Record<string, OptionSpec>;
  examples: string[];
  /** False for a command that takes options only: an argument is then a usage error, not silently ignored. */
  acceptsArguments?: boolean;
  /** Runs with parsed values and positionals; returns the exit code. */
  run(values: Record<string, string | boolean | string[] | undefined>, positionals: string[]): Promise<number>;
}

/** Help text for one command. */
export function commandHelp(cmd: Command): string {
  const lines = [`Usage: ${cmd.usage}`, "", cmd.summary];
  if (cmd.description !== undefined) lines.push("", cmd.description);
  const opts = Object.entries(cmd.options);
  lines.push("", "Options:");
  for (const [name, spec] of opts) {
    const flag = `${spec.short === undefined ? "    " : `-${spec.short}, `}--${name}${
      spec.value === undefined ? "" : ` ${spec.value}`
    }`;
    lines.push(`  ${flag.padEnd(28)} ${spec.help}`);
  }
  lines.push(`  ${"-h, --help".padEnd(28)} Show this help`);
  if (cmd.examples.length > 0) lines.push("", "Examples:", ...cmd.examples.map((e) => `  ${e}`));
  return lines.join("\n");
}

/** Parses argv for a command; throws UsageError on unknown or malformed options. */
export function parseCommandArgs(cmd: Command, argv: string[]): {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  help: boolean;
} {
  const options: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> = {
    help: { type: "boolean", short: "h" },
  };
  for (const [name, spec] of Object.entries(cmd.options)) {
    options[name] = {
      type: spec.type,
      ...(spec.short === undefined ? {} : { short: spec.short }),
      ...(spec.multiple === undefined ? {} : { multiple: spec.multiple }),
    };
  }
  try {
    const parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
    const help = values.help === true;
    const extra = parsed.positionals[0];
    if (cmd.acceptsArguments === false && extra !== undefined && !help) {
      throw new UsageError(`Cannot use the argument ${JSON.stringify(extra)}: ${cmd.name} takes options only`);
    }
    return { values, positionals: parsed.positionals, help };
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(parseArgsMessage(cmd, err));
  }
}

/**
 * node:util's parseArgs error in the house's words: an unknown option is named with the command's own options
 * (parseArgs' text quotes it unbalanced and suggests `--` for a positional); the rest are kept as they are.
 */
function parseArgsMessage(cmd: Command, err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  const unknown = /^Unknown option '([^']*)'/.exec(message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown !== undefined) {
    const known = Object.keys(cmd.options).map((o) => `--${o}`);
    return `Cannot use ${unknown}: ${cmd.name} has no such option` +
      (known.length === 0 ? "" : ` (its options: ${known.join(", ")})`);
  }
  return message;
}

/** How {@link intOption} reads one integer option: its flag name, its bounds, and its value when unset. */
export interface IntOptionSpec {
  /** The flag's name without the dashes, as error messages show it. */
  name: string;
  /** The least value accepted. */
  min: number;
  /** The greatest value accepted. */
  max: number;
  /** The value when the option is unset. */
  fallback: number;
  /** Where the value came from when not the flag (an environment variable): messages name it instead. */
  from?: string;
}

/** Reads an integer option within the bounds `spec` gives, or `spec.fallback` when it is unset. */
export function intOption(value: unknown, spec: IntOptionSpec): number {
  const { name, min, max, fallback, from = `--${name}` } = spec;
  if (value === undefined) return fallback;
  // Decimal digits only: Number() would also take 1e2, 0x10, " 5 " and 1000.0.
  const n = typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : NaN;
  if (typeof value !== "string" || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`Cannot use ${from}: expected an integer from ${min} to ${max}, current value is ${value}`);
  }
  return n;
}
