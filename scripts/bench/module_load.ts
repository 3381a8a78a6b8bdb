/**
 * What loading longcall's own modules one by one costs a start-up from source: the modules `serve`
 * loads before it answers (src/cli/worker_env.ts, src/cli/main.ts and src/mcp/serving.ts, with everything
 * they import statically), imported from source against the same code bundled into one module. The npm packages
 * (the MCP SDK, ext-tasks, zod) stay outside the bundle, so both sides load them alike and the
 * difference is the price of our module count: Deno resolves, reads and instantiates each module on
 * its own. Each import runs in a fresh `deno run` with the shipped launch flags
 * (scripts/bench/import_probe.ts), the two sides alternating, after one unmeasured run of each.
 *
 * @module
 */

import { fileURLToPath, pathToFileURL } from "node:url";
import { median } from "./store/harness.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CONFIG = `${ROOT}deno.json`;
const PROBE = fileURLToPath(new URL("./import_probe.ts", import.meta.url));
/**
 * What `serve` imports before it serves: the entry's one static import, the CLI and the MCP layer (the
 * entry imports the last two dynamically; here all three are static, so either side loads them in one go).
 * Not src/main.ts itself: its other dynamic imports (the other commands, the network worker's code, the
 * Tasks adapter) would be bundled too, as lazy initializers, into code `serve` never loads first.
 */
const SERVE_PATH = ["src/cli/worker_env.ts", "src/cli/main.ts", "src/mcp/serving.ts"];
/** Bare specifiers left to the import map on both sides: every npm package the serve path imports. */
const EXTERNAL = ["zod", "@modelcontextprotocol/*"];

/** The module-loading measurement: medians of the two sides, and how many of our modules the source side loads. */
export interface ModuleLoad {
  /** Median ms to import the serve path from source. */
  sourceMs: number;
  /** Median ms to import the same code bundled into one module. */
  bundledMs: number;
  /** Modules under src/ the source side loads. */
  modules: number;
  runs: number;
}

async function run(args: string[], what: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`bench: ${what} failed (exit ${out.code}): ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** The modules under src/ that `entry` loads statically (as `serve` loads them before it answers). */
export async function sourceModulesOf(entry: string): Promise<number> {
  const info = JSON.parse(await run(["info", "--json", "--config", CONFIG, entry], `deno info ${entry}`)) as {
    roots: string[];
    modules: { specifier: string; dependencies?: { isDynamic?: boolean; code?: { specifier?: string } }[] }[];
  };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const todo = [...info.roots];
  for (let s = todo.pop(); s !== undefined; s = todo.pop()) {
    if (seen.has(s)) continue;
    seen.add(s);
    for (const dep of bySpecifier.get(s)?.dependencies ?? []) {
      if (dep.isDynamic !== true && dep.code?.specifier !== undefined) todo.push(dep.code.specifier);
    }
  }
  const src = pathToFileURL(`${ROOT}src/`).href;
  return [...seen].filter((s) => s.startsWith(src)).length;
}

/** One import of `url` in a fresh process with `flags`, in ms as the probe measured it. */
async function importOnce(flags: readonly string[], url: string): Promise<number> {
  const out = await run(["run", ...flags, "--config", CONFIG, PROBE, url], `importing ${url}`);
  const ms = (JSON.parse(out) as { ms?: unknown }).ms;
  if (typeof ms !== "number" || !(ms > 0)) throw new Error(`bench: the import probe printed ${out.trim()}`);
  return ms;
}

/** How {@link measureModuleLoad} imports each side. */
export interface ModuleLoadPlan {
  /** The `deno run` flags of each import (the shipped launch flags). */
  flags: readonly string[];
  /** How many measured imports of each side. */
  runs: number;
}

/**
 * Writes the serve path's entry and its one-module bundle into `dir`, then imports each `plan.runs` times,
 * alternating, with `plan.flags` (the shipped launch flags).
 */
export async function measureModuleLoad(dir: string, plan: ModuleLoadPlan): Promise<ModuleLoad> {
  const { flags, runs } = plan;
  if (!Number.isInteger(runs) || runs < 1) {
    throw new RangeError(`Cannot measure module loading: runs must be a positive integer, current value is ${runs}`);
  }
  const entry = `${dir}/serve_path.ts`;
  await Deno.writeTextFile(
    entry,
    SERVE_PATH.map((path, i) => `export * as m${i} from "${pathToFileURL(`${ROOT}${path}`).href}";\n`).join(""),
  );
  const bundled = `${dir}/serve_path.js`;
  await run(
    [
      "bundle",
      "--config",
      CONFIG,
      "--platform",
      "deno",
      ...EXTERNAL.flatMap((e) => ["--external", e]),
      "--quiet",
      "-o",
      bundled,
      entry,
    ],
    "deno bundle of the serve path",
  );
  const sides = [pathToFileURL(entry).href, pathToFileURL(bundled).href] as const;
  for (const url of sides) await importOnce(flags, url);
  const source: number[] = [];
  const one: number[] = [];
  for (let i = 0; i < runs; i++) {
    source.push(await importOnce(flags, sides[0]));
    one.push(await importOnce(flags, sides[1]));
  }
  return { sourceMs: median(source), bundledMs: median(one), modules: await sourceModulesOf(entry), runs };
}
