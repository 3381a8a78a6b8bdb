/**
 * The runner's command line: flags, usage text, and the default target server commands per mode.
 *
 * @module
 */

import { launchFlags } from "../../src/cli/permissions.ts";
import { CATALOGUE, type Mode, PACKAGES, type PackageVersion } from "./catalogue.ts";

/** The shipped flags (src/cli/permissions.ts), so conformance runs against the real configuration. */
const PRODUCT_SERVER = `deno run ${
  launchFlags().join(" ")
} src/main.ts serve --http --http-no-auth --listen 127.0.0.1:0 --db {db}`;
const FIXTURE_SERVER = "deno run --no-prompt --allow-net=127.0.0.1 --allow-read --allow-write --allow-env " +
  "tests/helpers/conformance_fixture_server.ts --http --http-no-auth --listen 127.0.0.1:0 --db {db}";
const SPIKE_SERVER = "deno run --no-prompt --allow-net=127.0.0.1 tests/helpers/spike_server.ts --http 0";

/** What the command line asks for. */
export interface Options {
  mode: Mode;
  server: string;
  path: string;
  packages: readonly PackageVersion[];
  scenarios: readonly string[] | undefined;
  includeNotApplicable: boolean;
  timeoutMs: number;
  startTimeoutMs: number;
  out: string | undefined;
  keep: boolean;
  list: boolean;
}

const USAGE = `usage: deno task conformance [options]

  --fixture               target tests/helpers/conformance_fixture_server.ts and run the tasks-* scenarios
  --spike                 target tests/helpers/spike_server.ts (MCP at "/"); for trying the runner
  --server "<command>"    server command (split on spaces; {db} becomes a temp database path); it must print
                          "LISTENING <port>" on stderr once bound to 127.0.0.1
  --path <path>           MCP endpoint path (default /mcp; --spike sets /)
  --packages <list>       comma list of 0.1.16, 0.2.0-alpha.12 (default both)
  --scenarios <list>      comma list of scenario names to run (default: every applicable one)
  --include-na            also run scenarios marked not applicable (for visibility)
  --timeout-ms <n>        time box per scenario (default 120000)
  --start-timeout-ms <n>  time allowed for the server to print LISTENING (default 60000)
  --out <file>            output markdown (default docs/conformance.md; "-" for none)
  --keep                  keep the temp directory (database, checks.json files)
  --list                  print the scenario catalogue and exit`;

/** Prints the message and the usage text on stderr and exits 2. */
export function usageError(message: string): never {
  console.error(`conformance: ${message}\n\n${USAGE}`);
  Deno.exit(2);
}

/** Parses the runner's arguments; bad usage exits 2 (`--help` prints the usage and exits 0). */
export function parseArgs(args: readonly string[]): Options {
  let mode: Mode = "product";
  let server: string | undefined;
  let path: string | undefined;
  let spike = false;
  let packages: readonly PackageVersion[] = PACKAGES;
  let scenarios: readonly string[] | undefined;
  let includeNotApplicable = false;
  let timeoutMs = 120_000;
  let startTimeoutMs = 60_000;
  let out: string | undefined = "docs/conformance.md";
  let keep = false;
  let list = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = (): string => {
      const v = args[++i];
      if (v === undefined) usageError(`${arg} needs a value`);
      return v;
    };
    const int = (): number => {
      const v = Number(value());
      if (!Number.isInteger(v) || v <= 0) usageError(`${arg} needs a positive integer`);
      return v;
    };
    switch (arg) {
      case "--fixture":
        mode = "fixture";
        break;
      case "--spike":
        spike = true;
        break;
      case "--server":
        server = value();
        break;
      case "--path":
        path = value();
        break;
      case "--packages": {
        const names = value().split(",").map((s) => s.trim()).filter((s) => s !== "");
        for (const n of names) {
          if (!(PACKAGES as readonly string[]).includes(n)) usageError(`unknown package version ${n}`);
        }
        packages = names as PackageVersion[];
        break;
      }
      case "--scenarios": {
        const names = value().split(",").map((s) => s.trim()).filter((s) => s !== "");
        for (const n of names) {
          if (!CATALOGUE.some((s) => s.name === n)) usageError(`unknown scenario ${n}`);
        }
        scenarios = names;
        break;
      }
      case "--include-na":
        includeNotApplicable = true;
        break;
      case "--timeout-ms":
        timeoutMs = int();
        break;
      case "--start-timeout-ms":
        startTimeoutMs = int();
        break;
      case "--out": {
        const v = value();
        out = v === "-" ? undefined : v;
        break;
      }
      case "--keep":
        keep = true;
        break;
      case "--list":
        list = true;
        break;
      case "-h":
      case "--help":
        console.log(USAGE);
        Deno.exit(0);
        break;
      default:
        usageError(`unknown argument ${arg}`);
    }
  }
  if (spike && mode === "fixture") usageError("--spike and --fixture exclude each other");
  const defaultServer = spike ? SPIKE_SERVER : mode === "fixture" ? FIXTURE_SERVER : PRODUCT_SERVER;
  const resolvedPath = path ?? (spike ? "/" : "/mcp");
  if (!resolvedPath.startsWith("/")) usageError("--path must start with /");
  return {
    mode,
    server: server ?? defaultServer,
    path: resolvedPath,
    packages,
    scenarios,
    includeNotApplicable,
    timeoutMs,
    startTimeoutMs,
    out,
    keep,
    list,
  };
}
