/**
 * Checks the import arrows between src/ layers (docs/ARCHITECTURE.md), the arrows only some
 * files of a layer may use ({@linkcode NARROW_ARROWS}), and the one-owner-per-side-effect rules
 * ({@linkcode OWNERS}: SQLite, fetch, argv/env/exit, stdout, signal handlers, Worker creation,
 * permission revocation), and the arrows between the top-level folders ({@linkcode FOLDER_RULES}:
 * src/ imports none of tests/, scripts/, testing/ (its unit tests may use testing/); testing/ imports neither tests/ nor scripts/;
 * scripts/ never imports tests/), and the composition root's constructions ({@linkcode COMPOSITION_OWNERS}:
 * `new JobControl(` / `new Executor(` only in src/cli/runtime.ts and unit tests). Exits 1 with one line per violation.
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
  main: ["cli", "mcp", "tasks"],
};

/**
 * Arrows `ALLOWED` permits to a layer but only to the named files (paths under src/): the
 * protocol-neutral projections live below `mcp/` (src/jobs/projection.ts, src/base/answers.ts), so a
 * CLI command never needs the MCP layer.
 */
export const NARROW_ARROWS: ReadonlyArray<
  { from: string; to: string; files: readonly string[]; targets?: readonly string[]; why: string }
> = [
  {
    from: "cli",
    to: "mcp",
    // serve.ts builds the MCP server and its transports; main.ts hands serve the product's tools
    // (src/mcp/product_tools.ts). Every other cli/ module (the jobs, github, setup and permissions
    // commands, the runtime, the network worker, the executor proxy) works with jobs, not with MCP.
    files: ["cli/serve.ts", "cli/main.ts"],
    why: "only the modules that serve MCP or wire its tools into serve import mcp/",
  },
  {
    from: "main",
    to: "mcp",
    // From source, src/main.ts hands cli/main.ts a loader of the MCP layer, so only serve loads it, once
    // its runtime exists (no other command loads the SDK); that one module, nothing else of mcp/.
    files: ["main.ts"],
    targets: ["mcp/serving.ts"],
    why: "the entry hands the CLI the MCP layer as one module (src/mcp/serving.ts), loaded late",
  },
  {
    from: "main",
    to: "tasks",
    // From source, src/main.ts hands cli/main.ts a loader of the Tasks extension's adapter too, so a server
    // loads it only at its first modern connection (the 2025 generation has no Tasks extension).
    files: ["main.ts"],
    targets: ["tasks/adapter.ts"],
    why: "the entry hands the CLI the Tasks adapter as one module (src/tasks/adapter.ts), loaded when first needed",
  },
  {
    from: "mcp",
    to: "store",
    // The house style's arrows stop mcp/ at corpus/ and jobs/. Two files cross: a tool result names a storage
    // fault (store/tx.ts tells SQLite's busy, full and I/O errors apart) as storage_unavailable, and the
    // product's tools are built over the one Store the corpus tools read through corpus/.
    files: ["mcp/tool_kit.ts", "mcp/product_tools.ts"],
    targets: ["store/tx.ts", "store/store.ts"],
    why: "only the storage-fault classification and the Store the product's tools are built over cross into store/",
  },
  {
    from: "tasks",
    to: "store",
    // A task is a view of a job: the adapter and its projections read a job row's type, nothing else of store/.
    files: ["tasks/adapter.ts", "tasks/inputs.ts", "tasks/task_projection.ts"],
    targets: ["store/job_rows.ts"],
    why: "the Tasks adapter sees a job only as its row type (store/job_rows.ts)",
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
  {
    what: "fetch(",
    pattern: /(?<![.\w])fetch\(/,
    layers: [],
    files: ["github/transport.ts"],
    why: "every GitHub request goes through one transport: the API root, the token header, the timeout, " +
      "the requests in flight and the body bounds are enforced there",
  },
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
      "cli/checks_watch_cmd.ts",
      "cli/sync_cmd.ts",
      "cli/search_cmd.ts",
      "cli/github_print.ts",
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
    files: ["cli/serve.ts", "cli/follow_job.ts"],
    why: "serve owns SIGINT/SIGTERM/SIGHUP for the graceful stop; the blocking run of checks watch and sync " +
      "turns Ctrl-C into a job cancel for as long as it follows the job",
  },
  {
    what: "new Worker(",
    pattern: /new Worker\(/,
    layers: [],
    files: ["cli/worker_executor.ts"],
    why: "the network worker is started with its permission set in one place",
  },
  {
    what: "new WorkerExecutor(",
    pattern: /new WorkerExecutor\(/,
    layers: [],
    files: ["cli/runtime.ts"],
    why: "the network worker gets its permission set from networkWorkerPermissions() in one place, the one " +
      "`longcall permissions` audits",
  },
  {
    what: "the raw store connection",
    pattern: /\bstoreConnection\(/,
    layers: ["store"],
    why: "connections are private to store/ (tests and benchmarks reach them for raw SQL and fault injection)",
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
    // Static imports, re-exports and `import("…")` with a literal path.
    for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)"(\.[^"]+)"/g)) {
      const target = new URL(m[1] ?? "", `file://${path}`).pathname;
      if (!target.includes("/src/")) continue;
      const to = layerOf(target);
      if (to !== layer && !(ALLOWED[layer] ?? []).includes(to)) {
        problems.push(`${rel}: ${layer} may not import ${to} (${m[1]})`);
        continue;
      }
      // A unit test may reach further into a layer its module may use: it builds that layer's fixtures (rows, stores).
      const narrow = rel.endsWith("_test.ts") ? undefined : NARROW_ARROWS.find((a) => a.from === layer && a.to === to);
      if (narrow === undefined) continue;
      const reached = target.slice(target.lastIndexOf("/src/") + 5);
      if (!narrow.files.includes(rel)) {
        problems.push(`${rel}: ${layer} may not import ${to} (${m[1]}): ${narrow.why} (${narrow.files.join(", ")})`);
      } else if (narrow.targets !== undefined && !narrow.targets.includes(reached)) {
        problems.push(
          `${rel}: ${layer} may import only ${narrow.targets.join(", ")} of ${to} (${m[1]}): ${narrow.why}`,
        );
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

// --- Top-level folders: src/, testing/, scripts/, tests/ (issue 13 step 4) ---

/**
 * Top-level folders a folder's modules may not import (static imports, re-exports and `import("…")`
 * with a literal path). Running another folder's file as a child process is no import: scripts/conformance.ts
 * still starts tests/helpers/conformance_fixture_server.ts by path.
 */
export const FOLDER_RULES: ReadonlyArray<{ from: string; not: readonly string[]; why: string }> = [
  {
    from: "src",
    not: ["tests", "scripts", "testing"],
    why: "runtime code ships alone (bundle, compiled binary); test and build code is never part of it",
  },
  {
    from: "testing",
    not: ["tests", "scripts"],
    why: "the shared test support is imported by both tests/ and scripts/, so importing either makes a cycle",
  },
  {
    from: "scripts",
    not: ["tests"],
    why: "tests/ imports scripts/ to test them; what scripts share with tests lives in testing/",
  },
];

/**
 * Folders that hold no test files: `deno task test` runs tests/ and src/ only, so a `*_test.ts` in
 * testing/ or scripts/ would never run, and a test-named file in tests/helpers/ would run as a suite.
 */
export const NO_TEST_FILES: ReadonlyArray<{ under: string; why: string }> = [
  { under: "testing", why: "deno task test does not run testing/: the test would never run" },
  { under: "scripts", why: "deno task test does not run scripts/: the test would never run" },
  { under: "tests/helpers", why: "helpers are imported or spawned by suites, never run as one" },
];

/**
 * Constructions with one owner across the runtime and the shared test support (paths from the
 * root): the job runtime is assembled in one composition root, so serve, the network worker, the
 * CLI commands and the test harnesses all get the same wiring (control -> executor fast paths, the
 * waits the executor wakes, the kinds' policies on the control side). Unit tests of the classes
 * (tests/) and the raw-store benchmark (scripts/bench/store/) build them directly.
 */
export const COMPOSITION_OWNERS: ReadonlyArray<
  { what: string; pattern: RegExp; under: readonly string[]; files: readonly string[]; why: string }
> = [
  {
    what: "new JobControl(",
    pattern: /\bnew JobControl\(/,
    under: ["src", "testing"],
    files: ["src/cli/runtime.ts"],
    why: "the runtime is assembled in one composition root, openRuntime() (src/cli/runtime.ts)",
  },
  {
    what: "new Executor(",
    pattern: /\bnew Executor\(/,
    under: ["src", "testing"],
    files: ["src/cli/runtime.ts"],
    why: "the runtime is assembled in one composition root, openRuntime() (src/cli/runtime.ts)",
  },
];

/** Deno's default test-file pattern: `*_test.ts`, `*.test.ts`, `test.ts` (and the other extensions). */
const TEST_FILE = /(^|[_.])test\.(ts|tsx|mts|js|jsx|mjs)$/;

/** The top-level folder of a path relative to the root ("src", "tests", ...). */
function folderOf(rel: string): string {
  return rel.includes("/") ? rel.slice(0, rel.indexOf("/")) : "";
}

/**
 * Every violation of {@linkcode FOLDER_RULES}, {@linkcode NO_TEST_FILES} and
 * {@linkcode COMPOSITION_OWNERS} under `rootDir`.
 */
export async function checkFolders(rootDir: string): Promise<string[]> {
  const problems: string[] = [];
  const root = rootDir.endsWith("/") ? rootDir : `${rootDir}/`;
  for (const top of ["src", "testing", "scripts", "tests"]) {
    try {
      if (!(await Deno.stat(`${root}${top}`)).isDirectory) continue;
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) continue;
      throw e;
    }
    for await (const path of sources(`${root}${top}`)) {
      const rel = path.slice(root.length);
      const name = rel.slice(rel.lastIndexOf("/") + 1);
      const noTests = NO_TEST_FILES.find((f) => rel.startsWith(`${f.under}/`));
      if (noTests !== undefined && TEST_FILE.test(name)) {
        problems.push(`${rel}: no test files under ${noTests.under}/ (${noTests.why})`);
      }
      const text = await Deno.readTextFile(path);
      const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
      const unitTest = TEST_FILE.test(name);
      for (const owner of COMPOSITION_OWNERS) {
        // A unit test beside the class it tests may construct it.
        if (owner.under.includes(top) && owner.pattern.test(code) && !owner.files.includes(rel) && !unitTest) {
          problems.push(`${rel}: ${owner.what} belongs to ${owner.files.join(", ")} (${owner.why})`);
        }
      }
      const rule = FOLDER_RULES.find((r) => r.from === top);
      if (rule === undefined) continue;
      for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)"(\.\.?\/[^"]+)"/g)) {
        const target = new URL(m[1] ?? "", `file://${path}`).pathname;
        if (!target.startsWith(root)) continue;
        const to = folderOf(target.slice(root.length));
        // A unit test beside its module (src/**/*_test.ts) is not runtime code: it may use the shared test support.
        if (top === "src" && to === "testing" && unitTest) continue;
        if (rule.not.includes(to)) problems.push(`${rel}: ${top}/ may not import ${to}/ (${m[1]}): ${rule.why}`);
      }
    }
  }
  return problems;
}

if (import.meta.main) {
  const problems = [
    ...await checkLayers(new URL("../src", import.meta.url).pathname),
    ...await checkFolders(new URL("..", import.meta.url).pathname),
  ];
  for (const p of problems) console.error(p);
  console.log(problems.length === 0 ? "layers: ok" : `layers: ${problems.length} violation(s)`);
  Deno.exit(problems.length === 0 ? 0 : 1);
}
