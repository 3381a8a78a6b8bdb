/**
 * Checks the import arrows between src/ layers (docs/ARCHITECTURE.md), the arrows only some
 * files of a layer may use ({@linkcode NARROW_ARROWS}), and the one-owner-per-side-effect rules
 * ({@linkcode OWNERS}: SQLite, fetch, argv/env/exit, stdout, signal handlers, Worker creation,
 * permission revocation). Exits 1 with one line per violation.
 *
 *   deno run --allow-read scripts/check_layers.ts
 *
 * @module
 */

/** Which layers each layer may import (itself always allowed). */
export const ALLOWED: Record<string, readonly string[]> = {
  base: [],
  store: ["base"],
  jobs: ["store", "base"],
  corpus: ["store", "base"],
  github: ["jobs", "store", "base"],
  tasks: ["jobs", "store", "base"],
  mcp: ["tasks", "jobs", "corpus", "github", "store", "base"],
  cli: ["mcp", "tasks", "jobs", "corpus", "github", "store", "base"],
  main: ["cli"],
};

/**
 * Arrows `ALLOWED` permits to a layer but only to the named files (paths under src/): the
 * protocol-neutral projections live below `mcp/` (src/jobs/projection.ts, src/base/answers.ts), so a
 * CLI command never needs the MCP layer.
 */
export const NARROW_ARROWS: ReadonlyArray<{ from: string; to: string; files: readonly string[]; why: string }> = [
  {
    from: "cli",
    to: "mcp",
    // serve.ts builds the MCP server and its transports; product.ts defines the product's MCP tools.
    // Every other cli/ module (the jobs, github, setup and permissions commands, the network
    // worker, the executor proxy, main.ts's dispatch) works with jobs, not with MCP.
    files: ["cli/serve.ts", "cli/product.ts"],
    why: "only the modules that serve MCP or define its tools import mcp/",
  },
];

/**
 * A side effect with one owner: a pattern, and where it may appear, as whole layers and/or single
 * files (paths under src/). `why` says why the owner is that place.
 */
export interface Owner {
  what: string;
  pattern: RegExp;
  layers: readonly string[];
  files?: readonly string[];
  why?: string;
}

/** Side effects with one owner. */
export const OWNERS: readonly Owner[] = [
  { what: "node:sqlite", pattern: /from "node:sqlite"/, layers: ["store"] },
  { what: "fetch(", pattern: /(?<![.\w])fetch\(/, layers: ["github"] },
  { what: "Deno.args", pattern: /Deno\.args/, layers: ["cli"] },
  { what: "Deno.exit", pattern: /Deno\.exit\(/, layers: ["cli"] },
  { what: "Deno.env", pattern: /Deno\.env\./, layers: ["cli"] },
  { what: "tests/ or fixtures/ import", pattern: /from "(\.\.\/)+(tests|fixtures)\//, layers: [] },
  {
    // Deno's console.log/info/debug/dir/table/count/time*/group write stdout (warn, error, trace
    // and assert write stderr), as do Deno.stdout and node's process.stdout.
    what: "a stdout write",
    pattern:
      /console\.(log|info|debug|dir|dirxml|table|count|timeEnd|timeLog|group|groupCollapsed)\(|Deno\.stdout\b|process\.stdout\b/,
    layers: [],
    files: [
      "mcp/stdio_framing.ts",
      "cli/main.ts",
      "cli/github_cmd.ts",
      "cli/jobs_cmd.ts",
      "cli/permissions_cmd.ts",
      "cli/setup_cmd.ts",
    ],
    why: "while serving, stdout carries only MCP messages (the stdio framing writes them); the terminal " +
      "commands print their answers there; everything else logs to stderr (src/base/log.ts)",
  },
  {
    what: "the SDK's stdio server",
    pattern: /from "@modelcontextprotocol\/server\/stdio"/,
    layers: [],
    files: ["mcp/transports.ts"],
    why: "its default transport writes process.stdout; longcall serves stdio once, through its own framing",
  },
  {
    what: "a signal handler",
    pattern: /Deno\.(add|remove)SignalListener\(|process\.on\(\s*["']SIG/,
    layers: [],
    files: ["cli/serve.ts", "cli/github_cmd.ts"],
    why: "serve owns SIGINT/SIGTERM/SIGHUP for the graceful stop; a blocking github command turns " +
      "Ctrl-C into a job cancel for as long as it follows the job",
  },
  {
    what: "new Worker(",
    pattern: /new Worker\(/,
    layers: [],
    files: ["cli/worker_executor.ts"],
    why: "the network worker is started with its permission set in one place",
  },
  {
    what: "Deno.permissions.revoke",
    pattern: /Deno\.permissions\.revoke/,
    layers: [],
    files: ["cli/serve.ts"],
    why: "the serving thread narrows itself once, after the database, listener and worker are up",
  },
];

/** Where an owner's side effect may appear, for messages. */
function ownersOf(owner: Owner): string {
  const places = [...owner.layers, ...(owner.files ?? [])];
  return places.length === 0 ? "no runtime code" : places.join(", ");
}

function layerOf(path: string): string {
  const rel = path.slice(path.indexOf("src/") + 4);
  return rel.includes("/") ? rel.slice(0, rel.indexOf("/")) : rel.replace(/\.ts$/, "");
}

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** Every violation in `srcDir`. */
export async function checkLayers(srcDir: string): Promise<string[]> {
  const problems: string[] = [];
  for await (const path of sources(srcDir)) {
    const layer = layerOf(path);
    const rel = path.slice(srcDir.length + 1);
    const text = await Deno.readTextFile(path);
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    for (const m of code.matchAll(/from "(\.[^"]+)"/g)) {
      const target = new URL(m[1] ?? "", `file://${path}`).pathname;
      if (!target.includes("/src/")) continue;
      const to = layerOf(target);
      if (to !== layer && !(ALLOWED[layer] ?? []).includes(to)) {
        problems.push(`${rel}: ${layer} may not import ${to} (${m[1]})`);
        continue;
      }
      const narrow = NARROW_ARROWS.find((a) => a.from === layer && a.to === to);
      if (narrow !== undefined && !narrow.files.includes(rel)) {
        problems.push(`${rel}: ${layer} may not import ${to} (${m[1]}): ${narrow.why} (${narrow.files.join(", ")})`);
      }
    }
    for (const owner of OWNERS) {
      if (owner.pattern.test(code) && !owner.layers.includes(layer) && !(owner.files ?? []).includes(rel)) {
        problems.push(
          `${rel}: ${owner.what} belongs to ${ownersOf(owner)}${owner.why === undefined ? "" : ` (${owner.why})`}`,
        );
      }
    }
  }
  return problems;
}

if (import.meta.main) {
  const problems = await checkLayers(new URL("../src", import.meta.url).pathname);
  for (const p of problems) console.error(p);
  console.log(problems.length === 0 ? "layers: ok" : `layers: ${problems.length} violation(s)`);
  Deno.exit(problems.length === 0 ? 0 : 1);
}
