/**
 * `deno task eval`: the host evaluation. Runs every scenario of testing/scenarios.ts through the polling host,
 * the task-aware host and the two hosts without tasks whose model answers instantly (the instant polling host and
 * the wait_ms polling host; testing/hosts.ts), one run at a time, against the real longcall server and a fake
 * GitHub on 127.0.0.1, then writes docs/evaluation.md.
 *
 *   deno task eval                          # all scenarios, writes docs/evaluation.md
 *   deno task eval --json                   # also prints the raw results as JSON on stdout (progress on stderr)
 *   deno task eval --scenario checks_pass   # a subset (repeatable or comma-separated); writes nothing unless --write
 *   deno task eval --rate 20 --out PATH --no-write
 *
 * Exit code 0 when every final answer of the polling and task-aware hosts is correct and both agree in every
 * scenario, 1 otherwise, 2 on bad usage. The goal figures are reported, not enforced (the instant polling host is
 * expected to give up: it shows the problem that `wait_ms` solves).
 *
 * @module
 */

import { updateReadme } from "./readme_tables.ts";
import { revision } from "./revision.ts";
import { type HostKind, REPO_ROOT, type RunResult, runScenario, sameAnswer } from "../testing/hosts.ts";
import { pct, seconds } from "./lib/report/format.ts";
import { markdownReport } from "./lib/report/markdown_report.ts";
import { goalCheck, type Pair, reduction } from "./lib/report/measures.ts";
import { noTaskRows, textTable } from "./lib/report/tables.ts";
import { DEFAULT_RATE, type Scenario, scenarioById, SCENARIOS } from "../testing/scenarios.ts";

interface Args {
  json: boolean;
  rate: number;
  scenarios: Scenario[];
  out: string;
  write: boolean;
}

function usage(message: string): never {
  console.error(`eval: ${message}`);
  console.error("usage: deno task eval [--json] [--scenario ID[,ID]] [--rate N] [--out PATH] [--write|--no-write]");
  console.error(`scenarios: ${SCENARIOS.map((s) => s.id).join(", ")}`);
  Deno.exit(2);
}

function parseArgs(argv: readonly string[]): Args {
  let json = false, rate = DEFAULT_RATE, out = `${REPO_ROOT}docs/evaluation.md`;
  let write: boolean | undefined;
  const ids: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const value = () => {
      const v = argv[++i];
      if (v === undefined) usage(`${arg} needs a value`);
      return v;
    };
    if (arg === "--json") json = true;
    else if (arg === "--write") write = true;
    else if (arg === "--no-write") write = false;
    else if (arg === "--out") out = value();
    else if (arg === "--rate") {
      rate = Number(value());
      if (!Number.isInteger(rate) || rate < 1 || rate > 100) usage("--rate must be an integer 1..100");
    } else if (arg === "--scenario") ids.push(...value().split(",").filter((s) => s !== ""));
    else if (arg === "--help" || arg === "-h") usage("help");
    else usage(`unknown argument ${arg}`);
  }
  let scenarios: Scenario[];
  try {
    scenarios = ids.length === 0 ? [...SCENARIOS] : ids.map(scenarioById);
  } catch (err) {
    usage(err instanceof Error ? err.message : String(err));
  }
  return { json, rate, scenarios, out, write: write ?? ids.length === 0 };
}

const args = parseArgs(Deno.args);
/** Every host, in run order: the two of the original comparison, then the two without tasks (issue 10). */
const HOSTS: readonly HostKind[] = ["polling", "task", "instant", "wait"];
const log = (line: string) => (args.json ? console.error(line) : console.log(line));

log(
  `longcall host evaluation: ${args.scenarios.length} scenarios x ${HOSTS.length} hosts, simulated clock ${args.rate}x. ` +
    "GitHub is simulated on 127.0.0.1 (testing/fake_github.ts; scenarios in testing/scenarios.ts).",
);
const started = Date.now();
const pairs: Pair[] = [];
let index = 0;
for (const scenario of args.scenarios) {
  const runs: Partial<Record<HostKind, RunResult>> = {};
  for (const host of HOSTS) {
    index++;
    const t = Date.now();
    try {
      runs[host] = await runScenario(scenario, host, { rate: args.rate });
    } catch (err) {
      console.error(`eval: ${scenario.id} / ${host} host broke: ${err instanceof Error ? err.stack : String(err)}`);
      Deno.exit(1);
    }
    const r = runs[host];
    log(
      `[${String(index).padStart(2)}/${args.scenarios.length * HOSTS.length}] ${scenario.id.padEnd(15)} ${
        host.padEnd(7)
      } ` +
        `${String(r.meter.modelCalls).padStart(3)} model calls, ${String(r.meter.visibleBytes).padStart(6)} bytes, ` +
        `${seconds(Date.now() - t).padStart(6)}  ${r.correct ? "correct" : "WRONG"}`,
    );
    if (!r.correct && r.serverLog !== undefined && r.serverLog !== "") {
      console.error(`--- server stderr (tail) ---\n${r.serverLog}`);
    }
  }
  pairs.push({
    scenario,
    polling: runs.polling as RunResult,
    task: runs.task as RunResult,
    ...(runs.instant === undefined ? {} : { instant: runs.instant }),
    ...(runs.wait === undefined ? {} : { wait: runs.wait }),
  });
}
const totalMs = Date.now() - started;

log("");
log(textTable(
  ["scenario", "model calls", "change", "visible bytes", "change", "GitHub counted/304", "answers"],
  pairs.map((p) => [
    p.scenario.id,
    `${p.polling.meter.modelCalls} → ${p.task.meter.modelCalls}`,
    `−${pct(reduction(p.polling.meter.modelCalls, p.task.meter.modelCalls))}`,
    `${p.polling.meter.visibleBytes} → ${p.task.meter.visibleBytes}`,
    `−${pct(reduction(p.polling.meter.visibleBytes, p.task.meter.visibleBytes))}`,
    `${p.polling.github.counted}/${p.polling.github.notModified} | ${p.task.github.counted}/${p.task.github.notModified}`,
    p.polling.correct && p.task.correct
      ? sameAnswer(p.polling.answer, p.task.answer) ? "identical, correct" : "DIFFERENT"
      : "WRONG",
  ]),
));
log("");
log("hosts without tasks (instant model): D = tool call to the job's end, simulated");
log(textTable(
  ["scenario", "D", "instant calls", "instant answer", "wait_ms calls", "bound", "within", "wait_ms answer"],
  noTaskRows(pairs, args.rate).map((r) => r.map((c) => c.replaceAll("`", "").replaceAll("**", ""))),
));
log("");
const goal = goalCheck(pairs);
for (const g of goal) log(`${g.met ? "met " : "MISS"}  ${g.what}: ${g.measured} (target ${g.target})`);
log(`total ${seconds(totalMs)}`);

if (args.write) {
  const report = markdownReport(pairs, {
    revision: await revision(),
    date: new Date().toISOString().slice(0, 10),
    rate: args.rate,
    denoVersion: Deno.version.deno,
    os: `${Deno.build.os}/${Deno.build.arch}`,
    totalMs,
  });
  await Deno.writeTextFile(args.out, report);
  log(`wrote ${args.out}`);
  if (args.out.endsWith("docs/evaluation.md") && await updateReadme()) log("updated the measurements in README.md");
}
if (args.json) {
  console.log(JSON.stringify({ rate: args.rate, totalMs, goal, pairs }, null, 2));
}
const ok = goal.filter((g) => g.what.startsWith("Identical") || g.what.startsWith("Final results")).every((g) => g.met);
Deno.exit(ok ? 0 : 1);
