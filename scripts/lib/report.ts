/**
 * Tables and the generated `docs/evaluation.md` for the host evaluation and the demo. Pure functions over
 * {@linkcode RunResult}s.
 *
 * @module
 */

import { answerText, HOST_LABEL, INSTANT_POLLS_MAX, type RunResult, sameAnswer } from "../../testing/hosts.ts";
import type { Scenario } from "../../testing/scenarios.ts";

/** Bytes per token of the rough token estimate. */
export const BYTES_PER_TOKEN = 4;

/** Goal on the PR-checks scenarios: fewer model calls and fewer model-visible bytes for the task-aware host. */
export const GOAL = { modelCallsReductionMin: 0.9, visibleBytesReductionMin: 0.8 } as const;

/** Both hosts' runs of one scenario, plus the runs of the hosts without tasks when they ran. */
export interface Pair {
  scenario: Scenario;
  polling: RunResult;
  task: RunResult;
  instant?: RunResult;
  wait?: RunResult;
}

/** Whether a wait_ms host run reached the right verdict within its model-call bound. */
export function withinWaitBound(r: RunResult): boolean {
  const bound = r.noTask?.bound;
  return r.correct && bound !== undefined && r.meter.modelCalls <= bound;
}

/** Relative reduction from `before` to `after` (0.9 = 90 % fewer); undefined when `before` is 0. */
export function reduction(before: number, after: number): number | undefined {
  return before === 0 ? undefined : (before - after) / before;
}

export function pct(value: number | undefined): string {
  return value === undefined ? "–" : `${(value * 100).toFixed(1)} %`;
}

export function int(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function tokens(bytes: number): string {
  return int(bytes / BYTES_PER_TOKEN);
}

/** Sums of one host's runs. */
export interface Totals {
  modelCalls: number;
  toolCalls: number;
  visibleBytes: number;
  contextBytes: number;
  hostRequests: number;
  elapsedMs: number;
  githubCounted: number;
  githubNotModified: number;
}

export function totalsOf(runs: readonly RunResult[]): Totals {
  const t: Totals = {
    modelCalls: 0,
    toolCalls: 0,
    visibleBytes: 0,
    contextBytes: 0,
    hostRequests: 0,
    elapsedMs: 0,
    githubCounted: 0,
    githubNotModified: 0,
  };
  for (const r of runs) {
    t.modelCalls += r.meter.modelCalls;
    t.toolCalls += r.meter.toolCalls;
    t.visibleBytes += r.meter.visibleBytes;
    t.contextBytes += r.meter.contextBytes;
    t.hostRequests += hostRequests(r);
    t.elapsedMs += r.elapsedMs;
    t.githubCounted += r.github.counted;
    t.githubNotModified += r.github.notModified;
  }
  return t;
}

/** Requests the host made without the model: task polls plus cancels and confirmations. */
export function hostRequests(r: RunResult): number {
  return r.hostPolls + r.meter.hostRequests;
}

/** One goal line. */
export interface GoalLine {
  what: string;
  measured: string;
  target: string;
  met: boolean;
}

/** The goal check over the PR-checks scenarios, each and together, plus correctness everywhere. */
export function goalCheck(pairs: readonly Pair[]): GoalLine[] {
  const lines: GoalLine[] = [];
  const pr = pairs.filter((p) => p.scenario.group === "pr_checks");
  const calls = (p: readonly Pair[]) =>
    reduction(totalsOf(p.map((x) => x.polling)).modelCalls, totalsOf(p.map((x) => x.task)).modelCalls) ?? 0;
  const bytes = (p: readonly Pair[]) =>
    reduction(totalsOf(p.map((x) => x.polling)).visibleBytes, totalsOf(p.map((x) => x.task)).visibleBytes) ?? 0;
  if (pr.length > 0) {
    lines.push({
      what: `Model calls, PR-checks scenarios together (${pr.length})`,
      measured: `${pct(calls(pr))} fewer`,
      target: `>= ${GOAL.modelCallsReductionMin * 100} % fewer`,
      met: calls(pr) >= GOAL.modelCallsReductionMin,
    });
    lines.push({
      what: `Model-visible bytes, PR-checks scenarios together (${pr.length})`,
      measured: `${pct(bytes(pr))} fewer`,
      target: `>= ${GOAL.visibleBytesReductionMin * 100} % fewer`,
      met: bytes(pr) >= GOAL.visibleBytesReductionMin,
    });
    for (const p of pr) {
      lines.push({
        what: `Model calls / bytes, \`${p.scenario.id}\``,
        measured: `${pct(calls([p]))} / ${pct(bytes([p]))} fewer`,
        target: `>= ${GOAL.modelCallsReductionMin * 100} % / >= ${GOAL.visibleBytesReductionMin * 100} %`,
        met: calls([p]) >= GOAL.modelCallsReductionMin && bytes([p]) >= GOAL.visibleBytesReductionMin,
      });
    }
  }
  const identical = pairs.filter((p) => sameAnswer(p.polling.answer, p.task.answer)).length;
  lines.push({
    what: "Identical final results (both hosts), every scenario",
    measured: `${identical} of ${pairs.length}`,
    target: `${pairs.length} of ${pairs.length}`,
    met: identical === pairs.length,
  });
  const waits = pairs.flatMap((p) => p.wait === undefined ? [] : [p.wait]);
  if (waits.length > 0) {
    const met = waits.filter(withinWaitBound).length;
    lines.push({
      what: "wait_ms host: right verdict within 2 + ⌈D / wait_ms⌉ model calls (+ turns a cancel or crash forces)",
      measured: `${met} of ${waits.length}`,
      target: `${waits.length} of ${waits.length}`,
      met: met === waits.length,
    });
  }
  const correct = pairs.filter((p) => p.polling.correct && p.task.correct).length;
  lines.push({
    what: "Final results equal to the scenario's expected outcome",
    measured: `${correct} of ${pairs.length}`,
    target: `${pairs.length} of ${pairs.length}`,
    met: correct === pairs.length,
  });
  return lines;
}

/** Rows of a side-by-side table: metric, polling host, task-aware host, change. */
export function pairRows(p: Pair): string[][] {
  const a = p.polling, b = p.task;
  const change = (x: number, y: number) => {
    const r = reduction(x, y);
    return r === undefined ? "–" : r >= 0 ? `−${pct(r)}` : `+${pct(-r)}`;
  };
  return [
    ["Model calls", int(a.meter.modelCalls), int(b.meter.modelCalls), change(a.meter.modelCalls, b.meter.modelCalls)],
    [
      "Tool calls written by the model",
      int(a.meter.toolCalls),
      int(b.meter.toolCalls),
      change(
        a.meter.toolCalls,
        b.meter.toolCalls,
      ),
    ],
    [
      "Model-visible bytes (≈ tokens)",
      `${int(a.meter.visibleBytes)} (≈ ${tokens(a.meter.visibleBytes)})`,
      `${int(b.meter.visibleBytes)} (≈ ${tokens(b.meter.visibleBytes)})`,
      change(a.meter.visibleBytes, b.meter.visibleBytes),
    ],
    [
      "Context re-read over all model calls, bytes",
      int(a.meter.contextBytes),
      int(b.meter.contextBytes),
      change(a.meter.contextBytes, b.meter.contextBytes),
    ],
    ["Host requests outside the model", int(hostRequests(a)), int(hostRequests(b)), ""],
    [
      "GitHub requests: counted / free 304",
      `${int(a.github.counted)} / ${int(a.github.notModified)}`,
      `${int(b.github.counted)} / ${int(b.github.notModified)}`,
      "",
    ],
    ["Elapsed (real time)", seconds(a.elapsedMs), seconds(b.elapsedMs), ""],
    [
      "Final answer",
      answerText(a.answer),
      answerText(b.answer),
      sameAnswer(a.answer, b.answer) ? "identical" : "DIFFERENT",
    ],
    ["Correct (matches the expected outcome)", a.correct ? "yes" : "NO", b.correct ? "yes" : "NO", ""],
  ];
}

function mdTable(header: string[], rows: string[][]): string {
  const esc = (s: string) => s.replaceAll("|", "\\|");
  return [
    `| ${header.map(esc).join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.map(esc).join(" | ")} |`),
  ].join("\n");
}

/** Facts about the run printed in the report's header. */
export interface RunMeta {
  /** Commit measured (short SHA, or with a note when the tree differed). */
  revision: string;
  date: string;
  rate: number;
  denoVersion: string;
  os: string;
  totalMs: number;
}

function totalsRows(label: string, pairs: readonly Pair[]): string[] {
  const a = totalsOf(pairs.map((p) => p.polling)), b = totalsOf(pairs.map((p) => p.task));
  const fewer = (x: number, y: number) => {
    const r = reduction(x, y);
    return r === undefined ? "" : ` (${pct(r)} fewer)`;
  };
  return [
    label,
    `${int(a.modelCalls)} → ${int(b.modelCalls)}${fewer(a.modelCalls, b.modelCalls)}`,
    `${int(a.toolCalls)} → ${int(b.toolCalls)}`,
    `${int(a.visibleBytes)} → ${int(b.visibleBytes)}${fewer(a.visibleBytes, b.visibleBytes)}`,
    `${int(a.contextBytes)} → ${int(b.contextBytes)}${fewer(a.contextBytes, b.contextBytes)}`,
    `${int(a.githubCounted)} / ${int(a.githubNotModified)} → ${int(b.githubCounted)} / ${int(b.githubNotModified)}`,
    `${seconds(a.elapsedMs)} → ${seconds(b.elapsedMs)}`,
  ];
}

/** One sentence on the spread of model-call reductions over scenarios, naming those under the goal. */
function perScenario(pr: readonly Pair[]): string {
  const r = pr.map((p) => ({
    id: p.scenario.id,
    v: reduction(p.polling.meter.modelCalls, p.task.meter.modelCalls) ?? 0,
  }));
  const lo = Math.min(...r.map((x) => x.v)), hi = Math.max(...r.map((x) => x.v));
  const under = r.filter((x) => x.v < GOAL.modelCallsReductionMin).map((x) => `\`${x.id}\``);
  return `Per scenario the model-call reduction ranges from ${pct(lo)} to ${pct(hi)}` +
    (under.length === 0
      ? "."
      : `; ${under.join(", ")} ${under.length === 1 ? "stays" : "stay"} under 90 % because the wait is shorter ` +
        "(see Observations).");
}

/** The whole of docs/evaluation.md. */
export function markdownReport(pairs: readonly Pair[], meta: RunMeta): string {
  const goal = goalCheck(pairs);
  const pr = pairs.filter((p) => p.scenario.group === "pr_checks");
  const prA = totalsOf(pr.map((p) => p.polling)), prB = totalsOf(pr.map((p) => p.task));
  const out: string[] = [];
  out.push("# Host evaluation: task-aware host vs polling host");
  out.push("");
  out.push(
    `> Generated by \`deno task eval\` (scripts/eval.ts) on ${meta.date} at commit ${meta.revision}: ` +
      `Deno ${meta.denoVersion}, ${meta.os}, ` +
      `simulated clock ${meta.rate}x, whole run ${seconds(meta.totalMs)}. Do not edit by hand; re-run the command. ` +
      "GitHub is simulated: a fake GitHub REST API on 127.0.0.1 (testing/fake_github.ts) plays the " +
      "scripted timelines of testing/scenarios.ts.",
  );
  out.push("");
  out.push("## Headline");
  out.push("");
  if (pr.length > 0) {
    out.push(
      `On the ${pr.length} PR-checks scenarios, the task-aware host needed **${int(prB.modelCalls)} model calls ` +
        `instead of ${int(prA.modelCalls)} (${pct(reduction(prA.modelCalls, prB.modelCalls))} fewer)** and put ` +
        `**${int(prB.visibleBytes)} bytes in front of the model instead of ${int(prA.visibleBytes)} ` +
        `(${pct(reduction(prA.visibleBytes, prB.visibleBytes))} fewer)**; counting the conversation each model ` +
        `call re-reads, ${int(prB.contextBytes)} bytes instead of ${int(prA.contextBytes)}. ${perScenario(pr)} ` +
        "Both hosts cost GitHub the same (the server polls GitHub in both cases), and they ended with the same " +
        `final answer in ${pairs.filter((p) => sameAnswer(p.polling.answer, p.task.answer)).length} of ` +
        `${pairs.length} scenarios.`,
    );
    out.push("");
  } else {
    out.push("This run had no PR-checks scenario (a subset was selected); see the tables below.");
    out.push("");
  }
  out.push("## Goal check");
  out.push("");
  out.push(mdTable(
    ["Check", "Measured", "Target", "Met"],
    goal.map((g) => [g.what, g.measured, g.target, g.met ? "yes" : "**no**"]),
  ));
  out.push("");
  if (pairs.some((p) => p.scenario.group === "sensitivity")) {
    out.push(
      "The `short_ci` scenario is not part of the goal set: it shows how the saving depends on how long CI runs " +
        "(see Observations).",
    );
    out.push("");
  }
  if (pairs.some((p) => p.wait !== undefined || p.instant !== undefined)) {
    out.push(...noTaskSection(pairs, meta.rate));
  }
  out.push("## Totals");
  out.push("");
  out.push(mdTable(
    [
      "Scenarios",
      "Model calls (polling → task)",
      "Tool calls",
      "Model-visible bytes",
      "Context re-read, bytes",
      "GitHub counted / 304",
      "Elapsed",
    ],
    [
      ...(pr.length === 0 ? [] : [totalsRows(`PR checks (${pr.length})`, pr)]),
      totalsRows(`All (${pairs.length})`, pairs),
    ],
  ));
  out.push("");
  out.push("## Per scenario");
  for (const p of pairs) {
    out.push("");
    out.push(`### \`${p.scenario.id}\`: ${p.scenario.title}`);
    out.push("");
    const args = JSON.stringify(p.scenario.args);
    const extras = [
      p.scenario.rateLimitRepository === undefined
        ? ""
        : ` The first request for ${p.scenario.rateLimitRepository} gets a secondary rate limit (retry-after 60 s).`,
      p.scenario.cancelAfterMs === undefined
        ? ""
        : ` The user cancels ${seconds(p.scenario.cancelAfterMs)} after the call.`,
      p.scenario.restartAfterMs === undefined
        ? ""
        : ` The server is killed with SIGKILL ${seconds(p.scenario.restartAfterMs)} after the call; a new one starts ` +
          "on the same database.",
    ].join("");
    out.push(
      `Group: ${p.scenario.group}. User: “${p.scenario.prompt}” Tool call: \`${p.scenario.tool} ${args}\`.${extras} ` +
        `Expected: ${p.scenario.expected.job_status}/${p.scenario.expected.outcome}` +
        (p.scenario.expected.error_code === undefined ? "" : ` (${p.scenario.expected.error_code})`) + ".",
    );
    out.push("");
    out.push(mdTable(["Metric", HOST_LABEL.polling, HOST_LABEL.task, "Change"], pairRows(p)));
  }
  out.push("");
  out.push(METHOD(meta.rate));
  out.push(observations(pairs, meta.rate));
  return out.join("\n") + "\n";
}

/** Simulated seconds of a real duration. */
function simSeconds(realMs: number, rate: number): string {
  return `${Math.round(realMs * rate / 1000)} s`;
}

/** The rows of the hosts-without-tasks table (also printed by scripts/eval.ts). */
export function noTaskRows(pairs: readonly Pair[], rate: number): string[][] {
  return pairs.filter((p) => p.wait !== undefined || p.instant !== undefined).map((p) => {
    const i = p.instant, w = p.wait;
    const nt = w?.noTask;
    return [
      `\`${p.scenario.id}\``,
      nt === undefined ? "–" : simSeconds(nt.jobMs, rate),
      i === undefined ? "–" : int(i.meter.modelCalls),
      i === undefined ? "–" : i.noTask?.gaveUp === true ? `gave up (${answerText(i.answer)})` : answerText(i.answer),
      w === undefined ? "–" : int(w.meter.modelCalls),
      nt?.bound === undefined ? "–" : `${nt.bound}${nt.forcedTurns > 0 ? ` (incl. ${nt.forcedTurns} forced)` : ""}`,
      w === undefined ? "–" : withinWaitBound(w) ? "yes" : "**no**",
      w === undefined ? "–" : `${answerText(w.answer)}${w.correct ? "" : " (WRONG)"}`,
    ];
  });
}

function noTaskSection(pairs: readonly Pair[], rate: number): string[] {
  const w = pairs.find((p) => p.wait?.noTask !== undefined)?.wait?.noTask;
  const waitSim = w === undefined ? "" : `${Math.round(w.waitMs * rate / 1000)} s`;
  return [
    "## Hosts without tasks",
    "",
    "Hosts that get a JobReference (headless `claude -p`, `CLAUDE_CODE_DISABLE_MCP_TASKS=1`, any session on the " +
    "legacy handshake) and whose model answers instantly. The **instant polling host** calls `jobs.get` again " +
    `as soon as it has an answer and gives up after ${INSTANT_POLLS_MAX} polls of an unfinished job, as the fast ` +
    "model of `claude -p` was seen to do (41 calls in 3 s). The **wait_ms polling host** calls `jobs.get` with the " +
    `\`wait_ms\` its JobReference's \`follow_up\` suggests (${waitSim} of simulated time), \`until: "terminal"\` and ` +
    "the detailed view, so each call returns when the job ends or after `wait_ms`. *D* is the time from the tool " +
    "call until the host saw the job end (simulated). The bound is 2 + ⌈D / wait_ms⌉ model calls (the tool call, " +
    "the waits, the answer), plus the turns a scenario forces: a user's stop costs a `jobs.cancel` and the call " +
    "that confirms the cooperative stop (2), a crash costs the call it cut (1).",
    "",
    mdTable(
      [
        "Scenario",
        "D",
        "Instant host: model calls",
        "Instant host: answer",
        "wait_ms host: model calls",
        "Bound",
        "Within",
        "wait_ms host: answer",
      ],
      noTaskRows(pairs, rate),
    ),
    "",
  ];
}

const METHOD = (rate: number) =>
  `## Method

- **What runs.** For every scenario and each host: a fresh fake GitHub on 127.0.0.1, a fresh temporary SQLite
  database, and the real longcall server (\`src/main.ts serve\`) spawned over stdio by the host's official MCP client
  with explicit permission flags (read/write of its temporary directory, read of \`src/\` for the network worker,
  longcall's environment variables, \`--allow-net=127.0.0.1\`). Parent GitHub tokens are blanked; the server talks
  to the fake anonymously. Scenarios run one after the other.
- **Task-aware host.** \`@modelcontextprotocol/client@2.4.0\` (2026-07-28, \`server/discover\`) with the
  \`@modelcontextprotocol/ext-tasks@0.2.2\` client session. The model makes one tool call; the session polls
  \`tasks/get\` outside the model at the server's \`pollIntervalMs\`; the model reads only the final result. A user
  cancellation is done by the host (\`tasks/cancel\`, then one \`tasks/get\` to confirm what the server recorded).
  After a crash the host starts a new server and resumes the task from its persisted reference
  (\`session.resumeTask\`, i.e. \`tasks/get\` by id).
- **Polling host.** \`@modelcontextprotocol/sdk@1.32.2\` (\`initialize\`). The tool returns a JobReference; each
  \`jobs.get\` is a model turn whose payload the model reads; it waits exactly \`retry_after_ms\` (or \`poll_after_ms\`)
  between turns, which is the best case for this host (real hosts often poll sooner or add turns). It polls with the
  default concise view and, when the job ends without an error, reads the typed result once with
  \`response_format: "detailed"\`. A user cancellation is a model turn calling \`jobs.cancel\`, then polling until
  the job is terminal. After a crash the host starts a new server between two turns, and the model keeps polling.
- **Hosts without tasks** (instant polling host, wait_ms polling host; section above). The same v1 client and
  JobReference as the polling host, but the model takes no time per turn and cannot sleep: the instant host calls
  \`jobs.get\` again at once; the wait_ms host passes \`wait_ms\` (the \`follow_up\`'s suggestion divided by the
  simulated-clock rate, so a 45-s wait of a real host is 45 s of simulated CI here) and \`until: "terminal"\`. A user's
  stop aborts the call in flight with the client's request abort (\`notifications/cancelled\`), then the model calls
  \`jobs.cancel\`; a crash cuts the call in flight and the host starts a new server before the next call.
- **The scripted model** is deterministic and offline: it always makes the decisions above, and takes no time to
  think (so elapsed times favour the polling host, whose every turn would cost an LLM round trip in reality).
- **Counted.** *Model calls*: inferences, each reading the conversation and writing one tool call or the final
  answer (task-aware host: the call, then the answer = 2). *Model-visible bytes*: UTF-8 JSON of the arguments of
  every tool call the model writes plus the text of every tool result (or tool error) it reads; the user's prompt
  and the final answer are the same for both hosts and not counted; tokens ≈ bytes / 4. *Context re-read*: the sum,
  over model calls, of those bytes accumulated so far (what an API without prompt caching would bill again).
  *Host requests*: requests the task-aware host made on its own (\`tasks/get\` polls, \`tasks/cancel\`,
  confirmations). *GitHub requests*: as the fake counted them, counted (charged against the rate limit) vs free
  \`304 Not Modified\`. *Elapsed*: real time from the first model call to the final answer. *Correct*: the
  normalized final answer (job status, outcome, error code, and a detail line with CI summary and head commit or
  per-repository sync outcomes) matches the scenario's expectation; *identical*: both hosts' answers are equal.
- **Simulated time.** The fake GitHub and the server's job handlers (\`serve --simulate-time-rate ${rate}\`) run on a
  clock ${rate}x faster than real time, so a 4.5-minute CI plays in about 14 s. Poll guidance is computed from the
  handler's next observation converted to real time, so both hosts poll at the real-time equivalent of the watcher's
  10-s GitHub interval. Leases, heartbeats and the MCP wire are not scaled (hence the restart scenario's ~10 s wait
  for the dead server's lease to expire).
`;

function observations(pairs: readonly Pair[], rate: number): string {
  const lines: string[] = ["## Observations", ""];
  const short = pairs.find((p) => p.scenario.id === "short_ci");
  lines.push(
    "- **The saving grows with the wait.** The polling host needs one model call per `jobs.get` poll, and it polls " +
      "about once per GitHub observation (every 10 s of CI by default), plus the first call, the detailed read " +
      "and the answer; the task-aware host needs 2 whatever the duration. So the model-call reduction is about " +
      "1 − 2/(N + 3) for N polls: 90 % needs N ≥ 17, i.e. roughly three minutes of waiting at the default interval.",
  );
  const under = pairs.filter((p) =>
    p.scenario.group === "pr_checks" &&
    (reduction(p.polling.meter.modelCalls, p.task.meter.modelCalls) ?? 0) < GOAL.modelCallsReductionMin
  );
  for (const p of under) {
    const wait = p.scenario.args["first_check_grace_ms"];
    lines.push(
      `  \`${p.scenario.id}\` is below 90 %: ${int(p.polling.meter.modelCalls)} vs ${
        int(p.task.meter.modelCalls)
      } model ` +
        "calls" +
        (typeof wait === "number"
          ? `, because its first-check grace is ${wait / 60_000} minutes (shorter than the 3-minute default, to ` +
            "keep the run short), so the watch ends sooner."
          : ", because its wait is shorter."),
    );
  }
  if (short !== undefined) {
    lines.push(
      `  The 90-s \`short_ci\` timeline shows it: ${int(short.polling.meter.modelCalls)} vs ` +
        `${int(short.task.meter.modelCalls)} model calls (${
          pct(reduction(short.polling.meter.modelCalls, short.task.meter.modelCalls))
        } fewer), ` +
        `${pct(reduction(short.polling.meter.visibleBytes, short.task.meter.visibleBytes))} fewer bytes.`,
    );
  }
  const sync = pairs.find((p) => p.scenario.group === "sync");
  if (sync !== undefined) {
    lines.push(
      `- **Short jobs save little.** The sync finishes within about a second: ${int(sync.polling.meter.modelCalls)} ` +
        `vs ${int(sync.task.meter.modelCalls)} model calls. The partial result (one repository retryable with ` +
        "`retry_after_ms`, the others complete) reached both models intact: a per-item outcome is a completed " +
        "task, not a failed one." +
        (sync.task.elapsedMs > sync.polling.elapsedMs + 200
          ? " The task-aware host learnt it slightly later here: the server's first `pollIntervalMs` for a queued " +
            "job is 1 s."
          : ""),
    );
  }
  const restart = pairs.find((p) => p.scenario.restartAfterMs !== undefined);
  if (restart !== undefined) {
    const turns = restart.polling.meter.modelCalls;
    lines.push(
      `- **After a crash** both hosts end with \`process_lost\` once the dead server's lease expires (about 10 s ` +
        `real time; leases are not scaled). The polling host spent ${int(turns)} model calls there: while the job ` +
        "still shows `running` with its dead owner, its `next_poll_at` lies in the past, so `retry_after_ms` " +
        "falls to the 250-ms floor and a host that honours it polls four times a second until reconciliation. " +
        "The task-aware host's extra polls at that rate cost no model calls.",
    );
  }
  const cancel = pairs.find((p) => p.scenario.cancelAfterMs !== undefined);
  if (cancel !== undefined) {
    lines.push(
      `- **Cancellation** ends \`cancelled\` on both. The polling host's model must itself call \`jobs.cancel\` ` +
        "and then poll until the cooperative stop is recorded; the task-aware host cancels without the model.",
    );
  }
  lines.push(
    "- **GitHub cost does not depend on the host**, because in both cases the longcall server, not the client, " +
      "polls GitHub with conditional requests; most of its requests are free `304`s, and `jobs.get` or `tasks/get` " +
      "never reaches GitHub. The two columns are separate runs, so a request or two may differ with timing (one " +
      "watcher poll more or less before the verdict, the instant of the kill).",
  );
  lines.push(
    `- **Elapsed times** are close: both hosts learn the result within one poll interval ` +
      `(about ${int(10_000 / rate + 250)} ms real here). With a real model, every polling turn would also add an LLM ` +
      "round trip, which this scripted model does not simulate.",
  );
  lines.push("");
  return lines.join("\n");
}

/** A plain-text table (terminal). */
export function textTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(header), widths.map((w) => "─".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}
