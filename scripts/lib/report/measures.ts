/**
 * What the host evaluation computes from its {@linkcode RunResult}s: both hosts' runs of a scenario, sums per
 * host, relative reductions, the wait_ms bound and the goal check. Pure functions; rendering is in tables.ts and
 * markdown_report.ts.
 *
 * @module
 */

import { type RunResult, sameAnswer } from "../../../testing/hosts.ts";
import type { Scenario } from "../../../testing/scenarios.ts";
import { pct } from "./format.ts";

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
