/**
 * Conformance runner: starts a target MCP server over streamable HTTP on 127.0.0.1, runs scenarios of the
 * official `@modelcontextprotocol/conformance` CLI (0.1.16 for the 2025-11-25 wire, 0.2.0-alpha.12 for the
 * 2026-07-28 wire and the `tasks-*` extension scenarios) against it, one CLI process per scenario with a time
 * box, reads each scenario's `checks.json`, and writes a pass/fail table into `docs/conformance.md`.
 *
 *   deno task conformance                 # product server (src/main.ts serve --http), legacy + core scenarios
 *   deno task conformance --fixture       # tests/helpers/conformance_fixture_server.ts, tasks-* scenarios
 *   deno task conformance --spike         # tests/helpers/spike_server.ts at "/", to try the runner itself
 *   deno task conformance --list          # print the scenario catalogue and exit
 *
 * The conformance CLI is run with `--allow-net=127.0.0.1` (never -A), so it cannot reach anything but loopback.
 * The product and fixture sections of the output file are replaced independently (HTML comment markers).
 * Exit code: 0 when every applicable scenario passed (known issues excepted), 1 otherwise, 2 on bad usage.
 * See docs/notes/conformance.md for what each scenario checks and which fixture tools it needs.
 */

import { launchFlags } from "../src/cli/permissions.ts";

type PackageVersion = "0.1.16" | "0.2.0-alpha.12";
type Wire = "2025-11-25" | "2026-07-28";
type Group = "legacy" | "core" | "tasks";
type Mode = "product" | "fixture";

interface ScenarioSpec {
  readonly pkg: PackageVersion;
  readonly name: string;
  readonly group: Group;
  /** The wire the scenario speaks. 0.2.0-alpha.12 core scenarios get `--spec-version 2026-07-28`. */
  readonly wire: Wire;
  /** Set when the scenario does not apply to the target in this mode; the scenario is then not run. */
  readonly notApplicable?: string;
  /** A failure with a reason rooted in the SDK or the suite: reported, but it does not fail the run. */
  readonly knownIssue?: string;
  /** Check ids (from checks.json) that do not apply, with the reason; their FAILUREs are excused. */
  readonly naChecks?: Readonly<Record<string, string>>;
}

const PACKAGES: readonly PackageVersion[] = ["0.1.16", "0.2.0-alpha.12"];

// ---------------------------------------------------------------------------------------------------------------
// Scenario catalogue (data). Reasons are about the product server: tools `jobs.get`, `jobs.cancel` and
// job-submitting tools; capabilities `tools` (+ the tasks extension on the modern era); no resources, prompts,
// completions, logging capability, sampling or elicitation; no input_required (MRTR) results.

type Entry = Omit<ScenarioSpec, "pkg" | "group" | "wire"> & { readonly wire?: Wire };

function entries(pkg: PackageVersion, group: Group, wire: Wire, list: readonly Entry[]): readonly ScenarioSpec[] {
  return list.map((e) => ({ wire, ...e, pkg, group }));
}

const FIXTURE_TOOLS = (names: string): string =>
  `needs the suite's fixture tool(s) ${names}, which longcall does not ship`;
const NO_RESOURCES = "longcall exposes no resources (no `resources` capability; needs the suite's test:// fixtures)";
const NO_PROMPTS = "longcall exposes no prompts (no `prompts` capability; needs the suite's test_*prompt fixtures)";
const NO_MRTR = "longcall tools never return `input_required` (MRTR); needs the suite's test_input_required_result_* " +
  "fixture tools";
const TASKS_PRODUCT_NA = "needs the tasks fixture tools (greet, slow_compute, failing_job, protocol_error_job, " +
  "confirm_delete, multi_input, test_tool_with_task); run `deno task conformance --fixture`";

const LEGACY = entries("0.1.16", "legacy", "2025-11-25", [
  { name: "server-initialize" },
  { name: "logging-set-level", notApplicable: "longcall declares no `logging` capability (logs go to stderr)" },
  { name: "ping" },
  { name: "completion-complete", notApplicable: "longcall declares no `completions` capability" },
  { name: "tools-list" },
  { name: "tools-call-simple-text", notApplicable: FIXTURE_TOOLS("`test_simple_text`") },
  { name: "tools-call-image", notApplicable: FIXTURE_TOOLS("`test_image_content`") },
  { name: "tools-call-audio", notApplicable: FIXTURE_TOOLS("`test_audio_content`") },
  { name: "tools-call-embedded-resource", notApplicable: FIXTURE_TOOLS("`test_embedded_resource`") },
  { name: "tools-call-mixed-content", notApplicable: FIXTURE_TOOLS("`test_multiple_content_types`") },
  { name: "tools-call-with-logging", notApplicable: FIXTURE_TOOLS("`test_tool_with_logging`") },
  { name: "tools-call-error", notApplicable: FIXTURE_TOOLS("`test_error_handling`") },
  { name: "tools-call-with-progress", notApplicable: FIXTURE_TOOLS("`test_tool_with_progress`") },
  { name: "tools-call-sampling", notApplicable: FIXTURE_TOOLS("`test_sampling`") + "; longcall never samples" },
  {
    name: "tools-call-elicitation",
    notApplicable: FIXTURE_TOOLS("`test_elicitation`") + "; longcall never elicits",
  },
  { name: "json-schema-2020-12", notApplicable: FIXTURE_TOOLS("`json_schema_2020_12_tool`") },
  { name: "elicitation-sep1034-defaults", notApplicable: FIXTURE_TOOLS("`test_elicitation_sep1034_defaults`") },
  {
    name: "server-sse-polling",
    notApplicable: FIXTURE_TOOLS("`test_reconnection`") + " (SSE resumption of a tool call)",
  },
  { name: "server-sse-multiple-streams" },
  { name: "elicitation-sep1330-enums", notApplicable: FIXTURE_TOOLS("`test_elicitation_sep1330_enums`") },
  { name: "resources-list", notApplicable: NO_RESOURCES },
  { name: "resources-read-text", notApplicable: NO_RESOURCES },
  { name: "resources-read-binary", notApplicable: NO_RESOURCES },
  { name: "resources-templates-read", notApplicable: NO_RESOURCES },
  { name: "resources-subscribe", notApplicable: NO_RESOURCES },
  { name: "resources-unsubscribe", notApplicable: NO_RESOURCES },
  { name: "prompts-list", notApplicable: NO_PROMPTS },
  { name: "prompts-get-simple", notApplicable: NO_PROMPTS },
  { name: "prompts-get-with-args", notApplicable: NO_PROMPTS },
  { name: "prompts-get-embedded-resource", notApplicable: NO_PROMPTS },
  { name: "prompts-get-with-image", notApplicable: NO_PROMPTS },
  { name: "dns-rebinding-protection" },
]);

const CORE = entries("0.2.0-alpha.12", "core", "2026-07-28", [
  {
    name: "server-stateless",
    naChecks: {
      "sep-2575-server-rejects-undeclared-capability": FIXTURE_TOOLS("`test_missing_capability`") +
        " (a tool that needs a client capability; no longcall tool needs one)",
      "sep-2575-missing-capability-http-400": FIXTURE_TOOLS("`test_missing_capability`"),
      "sep-2575-http-server-no-independent-requests-on-stream": FIXTURE_TOOLS("`test_streaming_elicitation`") +
        "; longcall never sends server-to-client requests",
      "sep-2575-server-no-log-without-loglevel": FIXTURE_TOOLS("`test_logging_tool`") +
        "; longcall sends no notifications/message",
    },
  },
  {
    name: "server-session-lifecycle",
    wire: "2025-11-25",
  },
  { name: "completion-complete", notApplicable: "longcall declares no `completions` capability" },
  { name: "tools-list" },
  { name: "tools-call-simple-text", notApplicable: FIXTURE_TOOLS("`test_simple_text`") },
  { name: "tools-call-image", notApplicable: FIXTURE_TOOLS("`test_image_content`") },
  { name: "tools-call-audio", notApplicable: FIXTURE_TOOLS("`test_audio_content`") },
  { name: "tools-call-embedded-resource", notApplicable: FIXTURE_TOOLS("`test_embedded_resource`") },
  { name: "tools-call-mixed-content", notApplicable: FIXTURE_TOOLS("`test_multiple_content_types`") },
  { name: "tools-call-error", notApplicable: FIXTURE_TOOLS("`test_error_handling`") },
  { name: "tools-call-with-progress", notApplicable: FIXTURE_TOOLS("`test_tool_with_progress`") },
  { name: "json-schema-2020-12", notApplicable: FIXTURE_TOOLS("`json_schema_2020_12_tool`") },
  { name: "server-sse-multiple-streams" },
  { name: "resources-list", notApplicable: NO_RESOURCES },
  { name: "resources-read-text", notApplicable: NO_RESOURCES },
  { name: "resources-read-binary", notApplicable: NO_RESOURCES },
  { name: "resources-templates-read", notApplicable: NO_RESOURCES },
  { name: "sep-2164-resource-not-found", notApplicable: NO_RESOURCES },
  { name: "prompts-list", notApplicable: NO_PROMPTS },
  { name: "prompts-get-simple", notApplicable: NO_PROMPTS },
  { name: "prompts-get-with-args", notApplicable: NO_PROMPTS },
  { name: "prompts-get-embedded-resource", notApplicable: NO_PROMPTS },
  { name: "prompts-get-with-image", notApplicable: NO_PROMPTS },
  { name: "dns-rebinding-protection" },
  {
    name: "caching",
    naChecks: {
      "sep-2549-prompts-list-caching-hints": NO_PROMPTS + " (prompts/list is -32601)",
      "sep-2549-resources-list-caching-hints": NO_RESOURCES + " (resources/list is -32601)",
      "sep-2549-resources-templates-list-caching-hints": NO_RESOURCES + " (resources/templates/list is -32601)",
    },
  },
  { name: "http-header-validation" },
  {
    name: "http-custom-header-server-validation",
    notApplicable: "no longcall tool declares an `x-mcp-header` (Mcp-Param-*) input property",
  },
  { name: "input-required-result-basic-elicitation", notApplicable: NO_MRTR },
  { name: "input-required-result-basic-sampling", notApplicable: NO_MRTR },
  { name: "input-required-result-basic-list-roots", notApplicable: NO_MRTR },
  { name: "input-required-result-request-state", notApplicable: NO_MRTR },
  { name: "input-required-result-multiple-input-requests", notApplicable: NO_MRTR },
  { name: "input-required-result-multi-round", notApplicable: NO_MRTR },
  { name: "input-required-result-missing-input-response", notApplicable: NO_MRTR },
  { name: "input-required-result-non-tool-request", notApplicable: NO_MRTR },
  { name: "input-required-result-result-type", notApplicable: NO_MRTR },
  { name: "input-required-result-unsupported-methods", notApplicable: NO_MRTR },
  { name: "input-required-result-tampered-state", notApplicable: NO_MRTR },
  { name: "input-required-result-capability-check", notApplicable: NO_MRTR },
  { name: "input-required-result-ignore-extra-params", notApplicable: NO_MRTR },
  { name: "input-required-result-validate-input", notApplicable: NO_MRTR },
  { name: "sep-2640-skills-directory", notApplicable: "the skills extension (SEP-2640) is not implemented" },
  { name: "sep-2640-skills-enumeration", notApplicable: "the skills extension (SEP-2640) is not implemented" },
  { name: "sep-2640-skills-manifest", notApplicable: "the skills extension (SEP-2640) is not implemented" },
]);

const TASKS = entries("0.2.0-alpha.12", "tasks", "2026-07-28", [
  { name: "tasks-lifecycle" },
  { name: "tasks-capability-negotiation" },
  { name: "tasks-wire-fields" },
  { name: "tasks-request-state-removal" },
  { name: "tasks-mrtr-input" },
  { name: "tasks-request-headers" },
  { name: "tasks-dispatch-and-envelope" },
  {
    name: "tasks-status-notifications",
    knownIssue: "the suite itself skips it (harness pending a subscriptions/listen rewrite); it has no checks",
  },
  {
    name: "tasks-required-task-error",
    knownIssue: "expects JSON-RPC -32021 from tools/call `failing_job` when the request does not declare the " +
      "extension. In @modelcontextprotocol/server 2.4.0 the McpServer tools/call route turns every error a " +
      "registerTool callback throws (except -32042) into an isError result, and the SDK's own -32021 paths are " +
      "keyed on the method or on embedded input requests, never on a tool. Rather than replace the SDK's tools/call " +
      "route, the fixture answers that request with the JobReference (a successful result)",
  },
  { name: "tasks-mrtr-composition" },
]);

const CATALOGUE: readonly ScenarioSpec[] = [...LEGACY, ...CORE, ...TASKS];

/** Applicability differs by mode: the tasks scenarios apply only to the fixture, the rest only to the product. */
function forMode(spec: ScenarioSpec, mode: Mode): ScenarioSpec {
  if (mode === "product" && spec.group === "tasks") return { ...spec, notApplicable: TASKS_PRODUCT_NA };
  if (mode === "fixture" && spec.group !== "tasks") {
    return { ...spec, notApplicable: "fixture mode runs only the tasks-* scenarios" };
  }
  return spec;
}

// ---------------------------------------------------------------------------------------------------------------
// Options

/** The shipped flags (src/cli/permissions.ts), so conformance runs against the real configuration. */
const PRODUCT_SERVER = `deno run ${
  launchFlags().join(" ")
} src/main.ts serve --http --http-no-auth --listen 127.0.0.1:0 --db {db}`;
const FIXTURE_SERVER = "deno run --no-prompt --allow-net=127.0.0.1 --allow-read --allow-write --allow-env " +
  "tests/helpers/conformance_fixture_server.ts --http --http-no-auth --listen 127.0.0.1:0 --db {db}";
const SPIKE_SERVER = "deno run --no-prompt --allow-net=127.0.0.1 tests/helpers/spike_server.ts --http 0";

interface Options {
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

function usageError(message: string): never {
  console.error(`conformance: ${message}\n\n${USAGE}`);
  Deno.exit(2);
}

function parseArgs(args: readonly string[]): Options {
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

// ---------------------------------------------------------------------------------------------------------------
// Target server

interface RunningServer {
  readonly port: number;
  readonly child: Deno.ChildProcess;
  readonly exited: Promise<Deno.CommandStatus>;
  /** The last stderr lines, for diagnostics. */
  readonly tail: string[];
  isRunning(): boolean;
}

const TAIL_LINES = 40;

async function startServer(command: string, dbPath: string, startTimeoutMs: number): Promise<RunningServer> {
  const argv = command.split(/\s+/).filter((s) => s !== "").map((s) => s.replaceAll("{db}", dbPath));
  const [program, ...rest] = argv;
  if (program === undefined) throw new TypeError(`Cannot start the server: current command is "${command}"`);
  // The official suite sends no bearer token: the targets run with --http-no-auth, which refuses to
  // start next to a LONGCALL_HTTP_TOKEN, so an exported token is not passed on.
  const child = new Deno.Command(program, {
    args: rest,
    env: { LONGCALL_HTTP_TOKEN: "" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let running = true;
  const exited = child.status.then((s) => {
    running = false;
    return s;
  });
  const tail: string[] = [];
  let resolvePort: (port: number) => void = () => {};
  const portSeen = new Promise<number>((resolve) => (resolvePort = resolve));
  // Drain stderr for the whole life of the server so it never blocks on a full pipe.
  void (async () => {
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      buffer += decoder.decode(chunk, { stream: true });
      const lines = buffer.split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) {
        tail.push(line);
        if (tail.length > TAIL_LINES) tail.shift();
        const m = /^LISTENING (\d+)\s*$/.exec(line);
        if (m?.[1] !== undefined) resolvePort(Number(m[1]));
      }
    }
  })().catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    portSeen.then((port) => ({ port })),
    exited.then((s) => ({ exit: s.code })),
    new Promise<{ timeout: true }>((resolve) => (timer = setTimeout(() => resolve({ timeout: true }), startTimeoutMs))),
  ]);
  clearTimeout(timer);
  const server: RunningServer = { port: 0, child, exited, tail, isRunning: () => running };
  if ("port" in outcome) return { ...server, port: outcome.port };
  await stopServer(server);
  const why = "exit" in outcome
    ? `exited with code ${outcome.exit}`
    : `printed no LISTENING line in ${startTimeoutMs} ms`;
  throw new Error(`server ${why}: ${command}\n${tail.join("\n")}`);
}

async function stopServer(server: RunningServer): Promise<void> {
  if (!server.isRunning()) {
    await server.exited;
    return;
  }
  try {
    server.child.kill("SIGTERM");
  } catch { /* already gone */ }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const graceful = await Promise.race([
    server.exited.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 5_000))),
  ]);
  clearTimeout(timer);
  if (!graceful) {
    try {
      server.child.kill("SIGKILL");
    } catch { /* already gone */ }
    await server.exited;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// One scenario

type Verdict = "pass" | "fail" | "skipped" | "timeout" | "error" | "n/a";

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

interface ScenarioResult {
  spec: ScenarioSpec;
  verdict: Verdict;
  counts: Record<string, number>;
  notes: string;
  /** Failed checks excused by `naChecks`. */
  excused: string[];
  ms: number;
}

let currentScenario: Deno.ChildProcess | undefined;

function isCheck(value: unknown): value is Check {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === "string" && typeof v.status === "string";
}

async function findChecksFile(dir: string): Promise<string | undefined> {
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isFile && entry.name === "checks.json") return path;
      if (entry.isDirectory) {
        const found = await findChecksFile(path);
        if (found !== undefined) return found;
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return undefined;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

async function runScenario(spec: ScenarioSpec, url: string, workDir: string, timeoutMs: number) {
  const outDir = `${workDir}/results/${spec.pkg}/${spec.name}`;
  await Deno.mkdir(outDir, { recursive: true });
  const args = [
    "run",
    // No project config: the CLI's npm graph must not be written into the project's deno.lock.
    "--no-config",
    "--no-lock",
    "--no-prompt",
    "--allow-read",
    `--allow-write=${outDir}`,
    "--allow-env",
    "--allow-net=127.0.0.1",
    `npm:@modelcontextprotocol/conformance@${spec.pkg}`,
    "server",
    "--url",
    url,
    "--scenario",
    spec.name,
    "-o",
    outDir,
  ];
  // 0.2.0-alpha.12 defaults core scenarios to the 2025-11-25 wire; pin the wire each one is listed under. The
  // tasks-* (extension) scenarios already run at 2026-07-28, and --spec-version would make the CLI skip them.
  if (spec.pkg === "0.2.0-alpha.12" && spec.group === "core") args.push("--spec-version", spec.wire);
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: workDir,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  currentScenario = child;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, timeoutMs);
  const output = await child.output();
  clearTimeout(timer);
  currentScenario = undefined;
  const ms = Math.round(performance.now() - started);
  const decoder = new TextDecoder();
  const stdout = decoder.decode(output.stdout);
  const stderr = decoder.decode(output.stderr);
  const counts: Record<string, number> = {};
  const checksPath = await findChecksFile(outDir);
  let checks: Check[] = [];
  if (checksPath !== undefined) {
    const parsed: unknown = JSON.parse(await Deno.readTextFile(checksPath));
    if (Array.isArray(parsed)) checks = parsed.filter(isCheck);
  }
  for (const c of checks) counts[c.status] = (counts[c.status] ?? 0) + 1;
  const naChecks = spec.naChecks ?? {};
  const excused = checks.filter((c) => c.status === "FAILURE" && naChecks[c.id] !== undefined);
  const failed = checks.filter((c) => c.status === "FAILURE" && naChecks[c.id] === undefined);
  const failedNotes = failed.slice(0, 6).map((c) => `${c.id}: ${oneLine(c.errorMessage ?? "failed", 140)}`);
  if (failed.length > 6) failedNotes.push(`… ${failed.length - 6} more`);
  let verdict: Verdict;
  let notes: string;
  if (timedOut) {
    verdict = "timeout";
    notes = `killed after ${timeoutMs} ms`;
  } else if (/SKIPPED: scenario/.test(stdout)) {
    verdict = "skipped";
    notes = oneLine(stdout.slice(stdout.indexOf("SKIPPED")), 200);
  } else if (checksPath === undefined) {
    verdict = "error";
    notes = `no checks.json (exit ${output.code}): ${oneLine((stderr + stdout).slice(-400), 240)}`;
  } else if (failed.length > 0 || (output.code !== 0 && excused.length === 0)) {
    verdict = "fail";
    notes = failedNotes.length > 0 ? failedNotes.join("; ") : `exit ${output.code} without failed checks`;
  } else if ((counts.SUCCESS ?? 0) === 0) {
    verdict = "skipped";
    notes = checks.map((c) => `${c.id}: ${c.status} ${oneLine(c.errorMessage ?? "", 140)}`).join("; ");
  } else {
    verdict = "pass";
    const soft = checks.filter((c) => c.status === "WARNING" || c.status === "SKIPPED" || c.status === "INFO");
    notes = soft.map((c) => `${c.id}: ${c.status}`).join("; ");
  }
  if (excused.length > 0) {
    const list = excused.map((c) => c.id).join(", ");
    notes = [notes, `not applicable, failed as expected: ${list}`].filter((s) => s !== "").join("; ");
  }
  return { spec, verdict, counts, notes, excused: excused.map((c) => c.id), ms } satisfies ScenarioResult;
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const MARK_BEGIN = (mode: Mode) => `<!-- conformance:${mode}:begin -->`;
const MARK_END = (mode: Mode) => `<!-- conformance:${mode}:end -->`;

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

function countsCell(counts: Record<string, number>): string {
  const order = ["SUCCESS", "FAILURE", "WARNING", "SKIPPED", "INFO"];
  const short: Record<string, string> = { SUCCESS: "ok", FAILURE: "fail", WARNING: "warn", SKIPPED: "skip" };
  return order.filter((k) => (counts[k] ?? 0) > 0).map((k) => `${counts[k]} ${short[k] ?? k.toLowerCase()}`)
    .join(", ");
}

function whyNotApplicable(r: ScenarioResult): string {
  if (r.spec.notApplicable !== undefined) return r.spec.notApplicable;
  const naChecks = r.spec.naChecks ?? {};
  return r.excused.map((id) => `\`${id}\`: ${naChecks[id] ?? ""}`).join("; ");
}

function renderSection(opts: Options, results: readonly ScenarioResult[], commandLine: string): string {
  const date = new Date().toISOString();
  const ran = results.filter((r) => r.verdict !== "n/a");
  const tally = (v: Verdict) => ran.filter((r) => r.verdict === v).length;
  const title = opts.mode === "fixture" ? "Tasks extension (fixture server)" : "Product server";
  const lines = [
    MARK_BEGIN(opts.mode),
    `## ${title}`,
    "",
    `Generated ${date} by \`${commandLine}\`.`,
    "",
    `Server: \`${opts.server}\`, MCP endpoint path \`${opts.path}\`. Each scenario ran in its own conformance CLI ` +
    `process (\`--allow-net=127.0.0.1\`), time box ${opts.timeoutMs} ms. 0.2.0-alpha.12 core scenarios ran with ` +
    `\`--spec-version <Wire>\`; tasks-* scenarios at their default wire (2026-07-28); 0.1.16 at 2025-11-25.`,
    "",
    `Ran ${ran.length}: ${tally("pass")} pass, ${tally("fail")} fail, ${tally("skipped")} skipped, ` +
    `${tally("timeout")} timeout, ${tally("error")} error; ${results.length - ran.length} not applicable.`,
    "",
    "| Package | Scenario | Wire | Result | Checks | Notes | Why not applicable |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const r of results) {
    const notes = [
      r.notes,
      r.spec.knownIssue !== undefined && r.verdict !== "pass" ? `known: ${r.spec.knownIssue}` : "",
    ]
      .filter((s) => s !== "").join(" — ");
    lines.push(
      `| ${r.spec.pkg} | \`${r.spec.name}\` | ${r.spec.wire} | ${r.verdict} | ${countsCell(r.counts)} | ` +
        `${cell(notes)} | ${cell(whyNotApplicable(r))} |`,
    );
  }
  lines.push("", MARK_END(opts.mode));
  return lines.join("\n");
}

async function writeReport(path: string, mode: Mode, section: string): Promise<void> {
  let existing: string | undefined;
  try {
    existing = await Deno.readTextFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const header = "# Conformance results\n\nWritten by `scripts/conformance.ts` (see docs/notes/conformance.md). " +
    "Results: pass = no failed check other than checks listed as not applicable; skipped = the suite ran no " +
    "scorable check (reported, does not fail the run).\n";
  let text: string;
  const begin = existing?.indexOf(MARK_BEGIN(mode)) ?? -1;
  const end = existing?.indexOf(MARK_END(mode)) ?? -1;
  if (existing !== undefined && begin >= 0 && end > begin) {
    text = existing.slice(0, begin) + section + existing.slice(end + MARK_END(mode).length);
  } else if (existing !== undefined && existing.trim() !== "") {
    text = `${existing.trimEnd()}\n\n${section}\n`;
  } else {
    text = `${header}\n${section}\n`;
  }
  await Deno.writeTextFile(path, text);
}

// ---------------------------------------------------------------------------------------------------------------
// Main

function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=,@+-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

function selectScenarios(opts: Options): { run: ScenarioSpec[]; all: ScenarioSpec[] } {
  const all = CATALOGUE.filter((s) => opts.packages.includes(s.pkg)).map((s) => forMode(s, opts.mode))
    .filter((s) => opts.scenarios === undefined || opts.scenarios.includes(s.name))
    // In fixture mode the table lists only the tasks scenarios; in product mode, everything.
    .filter((s) => opts.mode === "product" || s.group === "tasks");
  const run = all.filter((s) => s.notApplicable === undefined || opts.includeNotApplicable);
  return { run, all };
}

async function main(): Promise<number> {
  const opts = parseArgs(Deno.args);
  const { run, all } = selectScenarios(opts);
  if (opts.list) {
    for (const s of all) {
      const tag = s.notApplicable !== undefined ? `n/a: ${s.notApplicable}` : s.knownIssue ?? "";
      console.log(`${s.pkg.padEnd(15)} ${s.name.padEnd(46)} ${s.wire}  ${tag}`);
    }
    return 0;
  }
  if (run.length === 0) usageError("no scenario selected");

  const workDir = await Deno.makeTempDir({ prefix: "longcall-conformance-" });
  let server: RunningServer | undefined;
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    try {
      currentScenario?.kill("SIGKILL");
    } catch { /* already gone */ }
  };
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  const results: ScenarioResult[] = [];
  try {
    const dbPath = `${workDir}/conformance.db`;
    for (const spec of all) {
      if (interrupted) break;
      if (!run.includes(spec)) {
        results.push({ spec, verdict: "n/a", counts: {}, notes: "", excused: [], ms: 0 });
        continue;
      }
      let restartNote = "";
      if (server === undefined || !server.isRunning()) {
        if (server !== undefined) {
          const status = await server.exited;
          restartNote = `server had exited (code ${status.code}) and was restarted before this scenario`;
          console.error(`conformance: ${restartNote}\n${server.tail.join("\n")}`);
        }
        server = await startServer(opts.server, dbPath, opts.startTimeoutMs);
        console.error(`conformance: server listening on 127.0.0.1:${server.port}`);
      }
      const url = `http://127.0.0.1:${server.port}${opts.path}`;
      const result = await runScenario(spec, url, workDir, opts.timeoutMs);
      if (restartNote !== "") result.notes = [restartNote, result.notes].filter((s) => s !== "").join("; ");
      results.push(result);
      const counts = countsCell(result.counts);
      console.error(`${result.verdict.padEnd(8)} ${spec.pkg.padEnd(15)} ${spec.name} (${counts}; ${result.ms} ms)`);
    }
  } finally {
    if (server !== undefined) await stopServer(server);
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
    if (opts.keep) console.error(`conformance: kept ${workDir}`);
    else await Deno.remove(workDir, { recursive: true });
  }
  if (interrupted) {
    console.error("conformance: interrupted; no report written");
    return 130;
  }

  const commandLine = ["deno task conformance", ...Deno.args.map(shellQuote)].join(" ");
  if (opts.out !== undefined) {
    await writeReport(opts.out, opts.mode, renderSection(opts, results, commandLine));
    console.error(`conformance: wrote ${opts.out}`);
  }
  const blocking = results.filter((r) =>
    r.spec.notApplicable === undefined && r.spec.knownIssue === undefined &&
    r.verdict !== "pass" && r.verdict !== "n/a" && r.verdict !== "skipped"
  );
  for (const r of blocking) console.error(`conformance: ${r.verdict}: ${r.spec.pkg} ${r.spec.name}`);
  return blocking.length === 0 ? 0 : 1;
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main();
  } catch (error) {
    console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
    code = 1;
  }
  Deno.exit(code);
}
