/**
 * `deno task demo`: the same pull-request watch through two MCP hosts side by side, live.
 *
 * Starts two fake GitHub APIs on 127.0.0.1 (one per host, so each host's GitHub traffic is counted separately)
 * playing the same compressed CI timeline, and two longcall servers with temporary databases, one per host,
 * each spawned over stdio by its host's official MCP client. The polling host's model turns count up while the
 * task-aware host stays at one model call; then the comparison table. Everything is removed at the end, on
 * errors and on Ctrl-C.
 *
 *   deno task demo [--scenario ID] [--rate N]
 *
 * @module
 */

import {
  answerText,
  HOST_LABEL,
  type HostKind,
  type LiveState,
  Resources,
  type RunResult,
  runScenario,
  sameAnswer,
} from "../testing/hosts.ts";
import { BYTES_PER_TOKEN, int, pct, seconds } from "./lib/report/format.ts";
import { hostRequests, reduction } from "./lib/report/measures.ts";
import { textTable } from "./lib/report/tables.ts";
import { DEFAULT_RATE, type Scenario, scenarioById, SCENARIOS } from "../testing/scenarios.ts";

// ------------------------------------------------------------------------------------------------ arguments

function usage(message: string): never {
  console.error(`demo: ${message}`);
  console.error("usage: deno task demo [--scenario ID] [--rate N]");
  console.error(`scenarios: ${SCENARIOS.map((s) => s.id).join(", ")}`);
  Deno.exit(2);
}

let scenario: Scenario = scenarioById("checks_pass");
let rate = DEFAULT_RATE;
for (let i = 0; i < Deno.args.length; i++) {
  const arg = Deno.args[i];
  const value = Deno.args[i + 1];
  if (arg === "--scenario" && value !== undefined) {
    try {
      scenario = scenarioById(value);
    } catch (err) {
      usage(err instanceof Error ? err.message : String(err));
    }
    i++;
  } else if (arg === "--rate" && value !== undefined) {
    rate = Number(value);
    if (!Number.isInteger(rate) || rate < 1 || rate > 100) usage("--rate must be an integer 1..100");
    i++;
  } else usage(arg === "--help" || arg === "-h" ? "help" : `unknown argument ${arg}`);
}

// ------------------------------------------------------------------------------------------------ output

const tty = Deno.stdout.isTerminal();
const color = tty && Deno.env.get("NO_COLOR") === undefined;
const paint = (code: string) => (text: string) => color ? `\x1b[${code}m${text}\x1b[0m` : text;
const bold = paint("1"), dim = paint("2"), green = paint("32"), yellow = paint("33"), cyan = paint("36");
const encoder = new TextEncoder();
const write = (text: string) => Deno.stdout.writeSync(encoder.encode(text));

function columns(): number {
  try {
    // One column spare: writing the last column makes some terminals wrap, which breaks the in-place redraw.
    const c = Deno.consoleSize().columns;
    return c >= 40 ? c - 1 : 119;
  } catch {
    return 119;
  }
}

/** An SGR colour sequence (ESC [ ... m); the escape character is intended. */
// deno-lint-ignore no-control-regex
const SGR = /^\x1b\[[0-9;]*m/;
// deno-lint-ignore no-control-regex
const visibleLength = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "").length;

function fit(line: string, width: number): string {
  if (visibleLength(line) <= width) return line;
  // Cut on the plain text (the status at the end carries no colour codes).
  let out = "", seen = 0;
  for (let i = 0; i < line.length && seen < width - 1; i++) {
    const m = SGR.exec(line.slice(i));
    if (m !== null) {
      out += m[0];
      i += m[0].length - 1;
      continue;
    }
    out += line[i];
    seen++;
  }
  return `${out}…${color ? "\x1b[0m" : ""}`;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const shortStatus = (s: string) => s.replace(/^github\.[a-z_]+ /, "");

function simClock(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

function statusLine(state: LiveState | undefined, host: HostKind): string {
  const label = HOST_LABEL[host].padEnd(15);
  if (state === undefined) return `${bold(label)}  ${dim("starting…")}`;
  const m = state.meter;
  const calls = `${String(m.modelCalls).padStart(3)} model call${m.modelCalls === 1 ? " " : "s"}`;
  const seen = `${kb(m.visibleBytes).padStart(8)} seen by the model`;
  const side = host === "task"
    ? `host polled tasks/get ${String(state.hostPolls).padStart(3)}x`
    : `${String(Math.max(0, m.toolCalls - 1)).padStart(3)} jobs.get turns     `;
  const phase = state.phase === "done" ? green("done") : "";
  const status = state.phase === "done"
    ? ""
    : state.phase === "starting"
    ? dim(state.status)
    : shortStatus(state.status);
  const callsText = host === "polling" ? yellow(calls) : cyan(calls);
  return `${bold(label)}  ${callsText}  ${seen}  ${dim(side)}  ${phase}${status}`;
}

// ------------------------------------------------------------------------------------------------ run

const resources = new Resources();
const states: Partial<Record<HostKind, LiveState>> = {};
let drawnLines = 0;
let interrupted = false;

function headerLine(): string {
  const started = states.polling?.startedAt ?? states.task?.startedAt;
  if (started === undefined) return dim("starting two longcall servers…");
  const ms = (Date.now() - started) * rate;
  return `CI time ${bold(simClock(ms))} ${dim(`(simulated, ${rate}x; real ${seconds(Date.now() - started)})`)}`;
}

function draw(final = false): void {
  if (!tty) return;
  const width = columns();
  const lines = [headerLine(), statusLine(states.polling, "polling"), statusLine(states.task, "task")];
  let out = drawnLines > 0 ? `\x1b[${drawnLines}A` : "";
  for (const line of lines) out += `\r\x1b[2K${fit(line, width)}\n`;
  write(out);
  drawnLines = final ? 0 : lines.length;
}

// Plain output (not a terminal): one line a second with both hosts, plus a line when a host finishes.
let lastPlain = 0;
const finishedPrinted = new Set<HostKind>();
function plain(force = false): void {
  if (tty) return;
  const started = states.polling?.startedAt ?? states.task?.startedAt;
  if (started === undefined) return;
  const newlyDone = (["polling", "task"] as const).filter((h) =>
    states[h]?.phase === "done" && !finishedPrinted.has(h)
  );
  if (!force && newlyDone.length === 0 && Date.now() - lastPlain < 1_000) return;
  lastPlain = Date.now();
  for (const h of newlyDone) finishedPrinted.add(h);
  const part = (host: HostKind) => {
    const s = states[host];
    if (s === undefined) return `${HOST_LABEL[host]}: starting`;
    const polls = host === "task" ? `, ${s.hostPolls} host polls` : "";
    const done = s.phase === "done" ? ", done" : "";
    return `${HOST_LABEL[host]}: ${s.meter.modelCalls} model call${s.meter.modelCalls === 1 ? "" : "s"}${polls}${done}`;
  };
  const status = shortStatus(states.polling?.status ?? "").replace(/^waiting for checks /, "").replace(/: .*; /, ": ");
  console.log(
    `[CI ${simClock((Date.now() - started) * rate)} | real ${seconds(Date.now() - started).padStart(6)}] ` +
      `${part("polling")} | ${part("task")}${status === "" ? "" : ` | ${status}`}`,
  );
}

async function cleanup(): Promise<void> {
  await resources.closeAll();
}

const onSigint = () => {
  if (interrupted) return;
  interrupted = true;
  if (tty) write("\n");
  console.log("interrupted: stopping the servers and removing the temporary databases…");
  cleanup().finally(() => Deno.exit(130));
};
Deno.addSignalListener("SIGINT", onSigint);

const ciMinutes = Array.isArray(scenario.timeline)
  ? Math.max(...(scenario.timeline as readonly { atMs: number }[]).map((s) => s.atMs)) / 60_000
  : undefined;
console.log(bold("longcall demo: one pull-request watch, two MCP hosts, side by side"));
console.log(
  `${
    yellow("polling host")
  }: today's way. The tool returns a job id and the model itself calls jobs.get every retry_after_ms;`,
);
console.log("  every poll is a model turn that reads the payload.");
console.log(
  `${cyan("task-aware host")}: MCP Tasks extension. The model makes one tool call; the host polls tasks/get itself`,
);
console.log("  and the model reads only the final result.");
console.log("");
console.log(
  `${bold("GitHub is simulated")}: a fake GitHub REST API on 127.0.0.1 (testing/fake_github.ts), no network, ` +
    "a placeholder token the fake accepts.",
);
console.log(
  `Scenario "${scenario.id}" (testing/scenarios.ts): ${scenario.title}` +
    (ciMinutes === undefined ? "" : `, played ${rate}x faster (about ${Math.ceil(ciMinutes * 60 / rate) + 1} s)`) +
    ".",
);
console.log(`The model is scripted (deterministic, offline). User: “${scenario.prompt}”`);
console.log("");

let ticker: ReturnType<typeof setInterval> | undefined;
let results: Record<"polling" | "task", RunResult>;
try {
  ticker = tty ? setInterval(() => draw(), 100) : undefined;
  const run = (host: HostKind) =>
    runScenario(scenario, host, {
      rate,
      resources,
      tempPrefix: "longcall-demo-",
      onUpdate: (state) => {
        if (interrupted) return;
        states[host] = state;
        plain();
      },
    });
  const [polling, task] = await Promise.all([run("polling"), run("task")]);
  results = { polling, task };
  clearInterval(ticker);
  draw(true);
} catch (err) {
  clearInterval(ticker);
  if (interrupted) await new Promise(() => {}); // the SIGINT handler exits
  if (tty) write("\n");
  console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
  await cleanup();
  Deno.exit(1);
}
Deno.removeSignalListener("SIGINT", onSigint);
const dbs = [states.polling?.db, states.task?.db].filter((d) => d !== undefined).map((d) => d.replace(/\/[^/]*$/, ""));
await cleanup();

// ------------------------------------------------------------------------------------------------ table

const a = results.polling, b = results.task;
const change = (x: number, y: number) => {
  const r = reduction(x, y);
  return r === undefined ? "" : r >= 0 ? `−${pct(r)}` : `+${pct(-r)}`;
};
console.log("");
console.log(textTable(
  ["", HOST_LABEL.polling, HOST_LABEL.task, "change"],
  [
    ["model calls", int(a.meter.modelCalls), int(b.meter.modelCalls), change(a.meter.modelCalls, b.meter.modelCalls)],
    [
      "tool calls written by the model",
      int(a.meter.toolCalls),
      int(b.meter.toolCalls),
      change(
        a.meter.toolCalls,
        b.meter.toolCalls,
      ),
    ],
    [
      "model-visible bytes (≈ tokens)",
      `${int(a.meter.visibleBytes)} (≈ ${int(a.meter.visibleBytes / BYTES_PER_TOKEN)})`,
      `${int(b.meter.visibleBytes)} (≈ ${int(b.meter.visibleBytes / BYTES_PER_TOKEN)})`,
      change(a.meter.visibleBytes, b.meter.visibleBytes),
    ],
    ["host requests outside the model", int(hostRequests(a)), int(hostRequests(b)), ""],
    [
      "GitHub requests: counted / free 304",
      `${int(a.github.counted)} / ${int(a.github.notModified)}`,
      `${int(b.github.counted)} / ${int(b.github.notModified)}`,
      "",
    ],
    ["elapsed (real time)", seconds(a.elapsedMs), seconds(b.elapsedMs), ""],
  ],
));
console.log("");
console.log(`final answer, polling host:    ${answerText(a.answer)}`);
console.log(`final answer, task-aware host: ${answerText(b.answer)}`);
const same = sameAnswer(a.answer, b.answer);
console.log(
  same && a.correct && b.correct
    ? green("identical final answers, both as the scenario expects")
    : yellow(`answers: ${same ? "identical" : "DIFFERENT"}; correct: polling ${a.correct}, task-aware ${b.correct}`),
);
console.log("");
console.log(
  dim(
    "GitHub traffic is the same for both: the longcall server polls GitHub (conditional requests, mostly free 304s); " +
      "jobs.get and tasks/get never reach GitHub.",
  ),
);
console.log(dim(`Cleaned up: both servers stopped, ${dbs.join(" and ")} removed.`));
console.log(dim("All nine scenarios, with the method: deno task eval (writes docs/evaluation.md)."));
Deno.exit(same && a.correct && b.correct ? 0 : 1);
