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
 *
 * Parts (scripts/conformance/): catalogue.ts (the scenarios and why some do not apply), options.ts (flags and the
 * default server commands), target_server.ts (the server child), scenario_run.ts (one CLI process and its
 * verdict), report.ts (the sections of docs/conformance.md); this file runs the selected scenarios in order.
 */

import { CATALOGUE, forMode, type ScenarioSpec } from "./conformance/catalogue.ts";
import { type Options, parseArgs, usageError } from "./conformance/options.ts";
import { countsCell, renderSection, writeReport } from "./conformance/report.ts";
import { killRunningScenario, runScenario, type ScenarioResult } from "./conformance/scenario_run.ts";
import { type RunningServer, startServer, stopServer } from "./conformance/target_server.ts";

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
    killRunningScenario();
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
        server = await startServer(opts.server, { dbPath, startTimeoutMs: opts.startTimeoutMs });
        console.error(`conformance: server listening on 127.0.0.1:${server.port}`);
      }
      const url = `http://127.0.0.1:${server.port}${opts.path}`;
      const result = await runScenario(spec, { url, workDir, timeoutMs: opts.timeoutMs });
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
    await writeReport(opts.out, { mode: opts.mode, text: renderSection(results, commandLine, opts) });
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
